r"""Turn untrusted gateway strings into text that every Qt and desktop surface shows literally.

Why: titles, commands and notices come from the gateway (ultimately from a model) and may hold
markup, mnemonics, bidi overrides or line breaks. Each surface misreads a different character:

* QLabel/QMenu: labels are set to ``Qt.PlainText`` elsewhere; menu texts still treat ``&`` as a
  mnemonic marker and ``\t`` as the shortcut column, so ``&`` becomes ``&&`` and tabs go.
* Tooltips (Qt's ``mightBeRichText``) and notification bodies (xfce4-notifyd advertises
  ``body-markup``) may interpret ``<``/``&``. Entity-escaping only works where markup *is*
  interpreted and shows ``&lt;`` where it is not, so we replace the three markup characters
  with look-alikes (U+2039, U+203A, U+FF06) that read the same everywhere.
* Everywhere: hidden and direction-changing characters are revealed (``desktop.core.text_safety``)
  and length is bounded so one long command cannot blow up a menu or a bubble.

Qt-free, so the pure tray status and notification policy can use it.
"""

from __future__ import annotations

from desktop.core.text_safety import bound_text, reveal

_LINE_BREAKS = str.maketrans({"\r": " ⏎ ", "\n": " ⏎ ", "\t": " ", "\v": " ", "\f": " "})
# look-alikes: U+2039 and U+203A (single angle quotation marks), U+FF06 (fullwidth ampersand)
_MARKUP = str.maketrans({"<": "\u2039", ">": "\u203a", "&": "\uff06"})


def shown(text: str, limit: int = 200) -> str:
    """One visible line: line breaks marked, hidden characters revealed, length bounded."""
    one_line = text.replace("\r\n", "\n").translate(_LINE_BREAKS)
    text_out, _cut = bound_text(reveal(one_line), limit)
    return text_out


def neutralize_markup(text: str) -> str:
    """Replace ``< > &`` with look-alikes so no markup parser can act on them."""
    return text.translate(_MARKUP)


def menu_label(text: str, limit: int = 80) -> str:
    """Text for a QAction/QMenu title: literal, with ``&`` doubled (Qt mnemonic escape)."""
    return shown(text, limit).replace("&", "&&")


def tooltip_fragment(text: str, limit: int = 120) -> str:
    """An untrusted piece of a tooltip (tooltips may be read as rich text)."""
    return neutralize_markup(shown(text, limit))


def notification_text(text: str, limit: int = 300) -> str:
    """An untrusted piece of a notification title or body (servers may parse body markup)."""
    return neutralize_markup(shown(text, limit))
