r"""Turn untrusted gateway strings into text that every Qt and desktop surface shows literally.

Each surface misreads different characters: menus take ``&`` as a mnemonic and ``\t`` as the
shortcut column; tooltips and notification bodies may parse ``<``/``&`` (look-alikes replace
them). Everywhere hidden characters are revealed, length is bounded and the tray's own secrets
are masked (only those exact strings: a ``token=…`` shape may be what the command really does).
"""

from __future__ import annotations

from desktop.core.text_safety import bound_text, reveal
from desktop.logsetup import mask_own_secrets

_LINE_BREAKS = str.maketrans({"\r": " ⏎ ", "\n": " ⏎ ", "\t": " ", "\v": " ", "\f": " "})
# look-alikes: U+2039 and U+203A (single angle quotation marks), U+FF06 (fullwidth ampersand)
_MARKUP = str.maketrans({"<": "\u2039", ">": "\u203a", "&": "\uff06"})


def shown(text: str, limit: int = 200) -> str:
    """One visible line: line breaks marked, hidden characters revealed, length bounded."""
    one_line = mask_own_secrets(text).replace("\r\n", "\n").translate(_LINE_BREAKS)
    text_out, _cut = bound_text(reveal(one_line), limit)
    return text_out


def menu_label(text: str, limit: int = 80) -> str:
    """Text for a QAction/QMenu title drawn by Qt: literal, ``&`` doubled (mnemonic escape)."""
    return shown(text, limit).replace("&", "&&")


def exported_label(label: str) -> str:
    """A (literal, already bounded) label for a menu a StatusNotifierItem host draws.

    Qt 6.12's dbusmenu export makes only the *first* ``&`` a mnemonic ``_`` and passes every
    ``_`` through, which hosts read as mnemonics: so the first ``&`` is doubled, ``_`` -> U+02CD.
    """
    label = label.replace("_", "\u02cd")
    first = label.find("&")
    return label if first < 0 else label[:first] + "&" + label[first:]


def markup_safe(text: str, limit: int = 120) -> str:
    """An untrusted piece of a tooltip or a notification (either may be read as rich text)."""
    return shown(text, limit).translate(_MARKUP)
