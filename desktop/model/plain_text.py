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
* Everywhere: the tray's own secrets (every token it registered with ``desktop.logsetup``) are
  masked, whoever sent the text -- a gateway may echo the token back in a title or a command.
  Only those exact strings: a ``token=…`` shape stays visible, since it may be what the
  command really does.

Qt-free, so the pure tray status and notification policy can use it.
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


def neutralize_markup(text: str) -> str:
    """Replace ``< > &`` with look-alikes so no markup parser can act on them."""
    return text.translate(_MARKUP)


def menu_label(text: str, limit: int = 80) -> str:
    """Text for a QAction/QMenu title drawn by Qt: literal, ``&`` doubled (mnemonic escape)."""
    return shown(text, limit).replace("&", "&&")


def exported_label(label: str) -> str:
    """A (literal, already bounded) label for a menu a StatusNotifierItem host draws.

    The host draws from Qt's com.canonical.dbusmenu export. Measured with Qt 6.12: the export
    turns only the *first* ``&`` into the dbusmenu mnemonic ``_`` and passes every other ``&``
    and every ``_`` through. Hosts then read ``_`` as a mnemonic, and do not agree on ``__``
    (the spec says "a literal underscore"; xfce4-panel 4.18 drops it and underlines the next
    character). So only the first ``&`` is doubled (every ``&`` then shows, the first as the
    host's mnemonic) and ``_`` becomes the look-alike U+02CD, which every host draws as is.
    The same label drawn by Qt itself would be wrong, so the tray never pops this menu up.
    """
    label = label.replace("_", "\u02cd")
    first = label.find("&")
    return label if first < 0 else label[:first] + "&" + label[first:]


def tooltip_fragment(text: str, limit: int = 120) -> str:
    """An untrusted piece of a tooltip (tooltips may be read as rich text)."""
    return neutralize_markup(shown(text, limit))


def notification_text(text: str, limit: int = 300) -> str:
    """An untrusted piece of a notification title or body (servers may parse body markup)."""
    return neutralize_markup(shown(text, limit))
