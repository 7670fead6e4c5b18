"""What a person does with the tray, done through the same widgets, keys and actions they use.

Why this layer: the e2e claim is that a *click* decides what the real agent runs. So decisions
leave through the dialog's key handling and buttons (QTest key/mouse events on the real
widgets), menu commands through the real QActions of the tray menu (rebuilt the way an opening
menu rebuilds it), and confirmations through the real message boxes' buttons. Nothing here
calls the bridge directly.

QTest sends the events synchronously to the widget; it does not spin a nested event loop, so it
is safe inside the test's coroutine.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMenu, QMessageBox, QSystemTrayIcon

from desktop.core.model import Choice
from desktop.model.approvals.rules import BATCH_DWELL_S, KEY_DWELL_S
from desktop.ui.approvals.cards import BatchCard, RowCard
from tests.e2e.tray_app import GATEWAY_ID, TrayApp
from tests.ui.approvals.factory import catch_up, row_card
from tests.ui.wired_app import confirm_box

Key = Qt.Key
NO_MODIFIER = Qt.KeyboardModifier.NoModifier
LEFT = Qt.MouseButton.LeftButton
TALL = 1000  # px: the dialog's height on the person's screen


def click_tray_icon(app: TrayApp) -> None:
    """A left click on the tray icon: opens the dialog when something waits, else the menu.

    The person's screen is tall enough for a batch of three: with a taller font (Noto Sans, the
    default once GNOME or Plasma is installed) the third card's head was below the dialog's
    default 640 px, so "Approve all" rightly left it out.
    """
    app.shell.tray.tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    if app.dialog.height() < TALL:
        app.dialog.resize(app.dialog.width(), TALL)


def card(app: TrayApp, key: str) -> RowCard:
    found = row_card(app.dialog, GATEWAY_ID, key)
    assert found is not None, f"the dialog shows no row for {key}"
    return found


def reads(app: TrayApp, seconds: float) -> None:
    """The person reads what the dialog shows for ``seconds`` (on the shell's clock).

    The dialog answers only rows that were on screen (and, for keys, selected) that long.
    """
    app.dialog.list_view.flush(overscan=True)
    app.person_clock.advance(seconds)
    catch_up(app.dialog)  # no real timer knows the clock moved: the dialog looks again


def select(app: TrayApp, key: str) -> None:
    """Click on the row's card (on its state line, not a button): the keyboard now acts on it."""
    QTest.mouseClick(card(app, key).state, LEFT)
    selected = app.dialog.selected_row()
    assert selected is not None, "the click selected nothing"
    assert selected.approval.key == key, "the click selected another row"
    reads(app, KEY_DWELL_S)


def press(app: TrayApp, key: Key, modifier: Qt.KeyboardModifier = NO_MODIFIER) -> None:
    """Type a key into the dialog (A approve once, D deny, S session, Shift+A always …)."""
    QTest.keyClick(app.dialog.list_view, key, modifier)


def decide_by_key(app: TrayApp, approval_key: str, key: Key) -> None:
    """Select the row with the mouse, then answer it with a key, as a person would."""
    select(app, approval_key)
    press(app, key)


def click_choice(app: TrayApp, approval_key: str, choice: Choice) -> None:
    """Click the row's button for ``choice`` (a disabled button ignores the click, as on screen)."""
    QTest.mouseClick(card(app, approval_key).buttons[choice], LEFT)


def click_batch_button(app: TrayApp, batch_id: str, choice: Choice) -> None:
    """Click "Approve all (once)" or "Deny all" on the batch's card."""
    [batch] = [b for b in app.dialog.findChildren(BatchCard) if b.group.batch_id == batch_id]
    button = batch.approve_all if choice is Choice.ONCE else batch.deny_all
    assert button.isVisible(), "the batch offers no such button"
    reads(app, BATCH_DWELL_S)  # Approve all is offered only for rows on screen that long
    assert button.isEnabled(), "the batch button is disabled"
    QTest.mouseClick(button, LEFT)


def click_reconfirm(app: TrayApp, approval_key: str) -> None:
    button = card(app, approval_key).reconfirm
    assert button.isVisible(), "the stale row offers no Re-confirm button"
    QTest.mouseClick(button, LEFT)


def menu_action(app: TrayApp, name: str) -> QAction | None:
    """Open the tray menu (it rebuilds from the latest snapshot) and find an action by name.

    Only actions reachable from the menu count: a rebuild leaves the old submenus alive until
    Qt's deferred deletion runs, and their stale actions must not be clicked.
    """
    menu = app.shell.tray.menu
    menu.aboutToShow.emit()  # what Qt (or the panel, over D-Bus) does as the menu opens
    return next((a for a in _shown_actions(menu) if a.objectName() == name), None)


def _shown_actions(menu: QMenu) -> Iterator[QAction]:
    for action in menu.actions():
        yield action
        submenu = action.menu()
        if isinstance(submenu, QMenu):
            yield from _shown_actions(submenu)


async def trigger_menu(app: TrayApp, name: str) -> None:
    """Click the menu item ``name`` once it is there and enabled (it may need a snapshot)."""
    action = await app.wait(
        lambda: (a := menu_action(app, name)) is not None and a.isEnabled() and a,
        f"menu item {name!r} to be available",
        timeout=15,
    )
    action.trigger()


def menu_text(app: TrayApp, name: str) -> str:
    action = menu_action(app, name)
    return action.text() if action is not None else ""


def accept(box: QMessageBox) -> None:
    """Click the box's accepting button ("Turn YOLO on", "Set to …", "Always allow")."""
    [button] = [b for b in box.buttons() if box.buttonRole(b) is QMessageBox.ButtonRole.AcceptRole]
    QTest.mouseClick(button, LEFT)


async def accept_tray_confirmation(app: TrayApp) -> None:
    box = await app.wait(confirm_box, "the tray's confirmation box", 10)
    accept(box)


async def start_task(app: TrayApp, directory: str, prompt: str) -> None:
    """Tray menu → New task… → type the folder and the prompt → click Start task."""
    await trigger_menu(app, "new-task")
    dialog = app.shell.new_task
    await app.wait(dialog.isVisible, "the New task dialog to open", 10)
    dialog.directory.clear()
    QTest.keyClicks(dialog.directory, directory)
    QTest.keyClicks(dialog.prompt, prompt)
    assert dialog.start_button.isEnabled()
    QTest.mouseClick(dialog.start_button, LEFT)
    assert not dialog.isVisible(), "Start task did not close the dialog"
