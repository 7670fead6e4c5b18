"""The words for a question an agent waits on (clarify, sudo, secret), alike on every surface.

Results hold gateway words as plain text; each surface applies its own ``plain_text`` helper.
"""

from __future__ import annotations

from desktop.core import prompt_book
from desktop.core.model import Prompt, PromptKind

WINDOW = "the Hermes window that runs this session"


def only_in_hermes(prompt: Prompt) -> bool:
    """A clarify question the tray can never answer (too long, several, no text): say so once."""
    return prompt.kind is PromptKind.CLARIFY and prompt.blocked_reason in _ONLY_IN_HERMES


_ONLY_IN_HERMES = frozenset({prompt_book.CUT, prompt_book.SEVERAL, prompt_book.NO_TEXT})


def blocked_on(prompt: Prompt) -> str:
    if prompt.kind is PromptKind.CLARIFY:
        return f"waiting for your answer: {prompt.question or '(no question text)'}"
    if prompt.kind is PromptKind.SUDO:
        return "waiting for a password in " + WINDOW
    what = f"a secret ({prompt.env_var})" if prompt.env_var else "a secret"
    return f"waiting for {what} in {WINDOW}"


def answer_there(prompt: Prompt) -> str:
    """The read-only line of a sudo or secret prompt: where to answer, and what asked."""
    if prompt.kind is PromptKind.SUDO:
        line = "Type the password in " + WINDOW
        return f"{line} (for: {prompt.command})" if prompt.command else line
    line = "Type the secret in " + WINDOW
    return f"{line} ({prompt.question})" if prompt.question else line


def ended_text(reason: str) -> str:
    """What the clarify dialog says once its prompt is no longer open."""
    if reason == prompt_book.ANSWERED:
        return "Answer sent."
    if reason == prompt_book.ANSWERED_ELSEWHERE:
        return "Expired — it was answered elsewhere."
    return "Expired — Hermes no longer waits for this answer."
