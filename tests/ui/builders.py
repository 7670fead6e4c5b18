"""Stand-ins for the UI tests: a DecisionRequest's shape and menu commands that record calls."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
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
    """Menu commands that record each call as ``(name, *args)``."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def commands(self) -> MenuCommands:
        def rec(name: str) -> Any:
            return lambda *args: self.calls.append((name, *args))

        return MenuCommands(**{f.name: rec(f.name) for f in fields(MenuCommands)})
