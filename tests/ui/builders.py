"""Stand-ins for the UI tests: a DecisionRequest's shape and menu commands that record calls."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from desktop.ui.tray_menu import MenuCommands


@dataclass
class Decision:
    """Stand-in with DecisionRequest's fields, for tests that only need its shape."""

    gateway_id: str
    key: str
    choice: Any
    surface: str = "dialog"
    confirm_stale: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


class MenuRecorder:
    """Menu commands that record each call as ``(name, *args)``.

    ``extras=True`` also wires the app-kept entries (time-boxed YOLO, Open journal, Start at
    login); without them the menu leaves those entries out, as ``MenuCommands`` documents.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def commands(self, *, extras: bool = False) -> MenuCommands:
        def rec(name: str) -> Any:
            return lambda *args: self.calls.append((name, *args))

        wired = {f.name: rec(f.name) for f in fields(MenuCommands) if f.default is MISSING}
        if extras:
            wired.update(
                timebox=rec("timebox"),
                open_journal=rec("open_journal"),
                set_start_at_login=rec("start_at_login"),
            )
        return MenuCommands(**wired)
