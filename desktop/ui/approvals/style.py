"""The dialog's stylesheet; widgets opt in by object name and dynamic property.

``palette(...)`` colours read in light and dark themes; the fixed state tones read on both. The
scroll bar is drawn here too: the default style took up to 1 ms to repaint it on every arrival.
"""

from __future__ import annotations

STYLESHEET = """
#approvalListContent { background: palette(window); }
#approvalList QScrollBar:vertical { background: palette(window); width: 12px; margin: 0; }
#approvalList QScrollBar::handle:vertical {
    background: palette(mid); border-radius: 4px; min-height: 24px; margin: 2px;
}
#approvalList QScrollBar::handle:vertical:hover, #approvalList QScrollBar::handle:vertical:pressed {
    background: palette(dark);
}
#approvalList QScrollBar::add-line:vertical, #approvalList QScrollBar::sub-line:vertical {
    height: 0;
}
#approvalList QScrollBar::add-page:vertical, #approvalList QScrollBar::sub-page:vertical {
    background: none;
}
#gatewayTitle { font-size: 14pt; font-weight: 600; padding: 0 0 2px 2px; }
#sessionTitle { font-weight: 600; padding: 2px 0 0 2px; }
#batchCard {
    background: palette(alternate-base);
    border: 1px solid palette(mid);
    border-radius: 8px;
}
#batchCard[resolved="true"] { border-style: dashed; }
#batchSummary { color: palette(placeholder-text); }
#orderBadge {
    background: #8a4b00; color: white; border-radius: 8px; padding: 1px 8px; font-weight: 600;
}
#rowCard {
    background: palette(base);
    border: 1px solid palette(mid);
    border-radius: 6px;
}
#rowCard[selected="true"] { border: 2px solid palette(highlight); }
#rowCard[resolved="true"] { background: palette(window); }
#rowCard[resolved="true"] #rowNumber, #rowCard[resolved="true"] #commandView,
#rowCard[resolved="true"] #description, #rowCard[resolved="true"] #patternKeys,
#rowCard[resolved="true"] #rowNotes {
    color: palette(placeholder-text);
}
#rowNumber { font-weight: 600; }
#stateLabel[tone="waiting"] { color: palette(highlight); font-weight: 600; }
#stateLabel[tone="blocked"] { color: #8a4b00; }
#stateLabel[tone="busy"] { color: palette(placeholder-text); font-style: italic; }
#stateLabel[tone="good"] { color: #1b7a36; font-weight: 600; }
#stateLabel[tone="bad"] { color: #b3261e; font-weight: 600; }
#stateLabel[tone="ended"] { color: palette(placeholder-text); }
#stateLabel[tone="warn"] { color: #8a4b00; font-weight: 600; }
#countdownLabel { color: palette(placeholder-text); }
#countdownLabel[urgent="true"] { color: #b3261e; font-weight: 600; }
#commandView { background: palette(base); border: 1px solid palette(midlight); border-radius: 4px; }
#hiddenWarning {
    color: #b3261e; font-weight: 600; background: #fdecea; border-radius: 4px; padding: 3px 6px;
}
#rowNotes { color: #8a4b00; }
#description, #patternKeys { color: palette(text); }
#choice_deny:enabled { color: #b3261e; }
#keyHints { color: palette(placeholder-text); padding: 4px 2px 0 2px; }
#emptyLabel { color: palette(placeholder-text); padding: 40px; }
#riskBadge { border-radius: 8px; padding: 1px 8px; font-weight: 600; }
#riskBadge[level="high"] { background: #b3261e; color: white; }
#riskBadge[level="medium"] { background: #8a4b00; color: white; }
#riskBadge[level="low"] { background: palette(midlight); color: palette(text); font-weight: 400; }
#rowCard[resolved="true"] #riskBadge { background: palette(mid); color: palette(window); }
#rowCard[resolved="true"] #riskSummary { color: palette(placeholder-text); }
#riskSummary[level="high"] { color: #b3261e; font-weight: 600; }
#riskSummary[level="medium"] { color: #8a4b00; font-weight: 600; }
#riskSummary[level="low"] { color: palette(placeholder-text); }
#contextLine, #agentMessage { color: palette(placeholder-text); }
#agentToggle { padding: 0 4px; }
#resultLine[tone="good"] { color: #1b7a36; font-weight: 600; }
#resultLine[tone="bad"] { color: #b3261e; font-weight: 600; }
#resultLine[tone="ended"] { color: palette(placeholder-text); font-weight: 600; }
#resultOutput {
    background: palette(window); border: 1px solid palette(midlight); border-radius: 4px;
    padding: 3px 6px;
}
"""
