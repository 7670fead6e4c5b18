"""TrayController offscreen: icon and tooltip from the snapshot, lazy menu rebuilds, activation,
and confirmations before global or risky changes. (``show()`` is not called: the offscreen
platform has no tray and Qt would warn.)"""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QAction, QCursor, QGuiApplication
from PySide6.QtWidgets import QMessageBox, QSystemTrayIcon

from desktop.core.events import ApprovalRequested, SessionChanged
from desktop.core.model import SessionStatus
from desktop.platform.activation import TOKEN_ENV, event_token
from desktop.ui import icons
from desktop.ui import tray as tray_module
from desktop.ui.bridge import GatewayBridge
from desktop.ui.tray import REBUILD_DELAY_MS, TrayController
from desktop.ui.window_activation import take_env_token
from tests.model.builders import ICON_NAMES, YOLO_SESSION, approval, session
from tests.ui.standins import Endpoint, make_factory
from tests.ui.wired_app import confirm_box
from tests.waiting import poll_until

# The offscreen platform cannot raise windows, grab the keyboard for a popup menu or
# propagate size hints (confirmation boxes); it says so as a warning each time.
OFFSCREEN_POPUP = pytest.mark.qt_log_ignore(
    "This plugin does not support raise", "This plugin does not support grabbing"
)
OFFSCREEN_WINDOW = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def setup(qloop, arun, qtbot):
    yield from _running_tray(qloop, arun, exported=None)


@pytest.fixture
def panel_drawn(qloop, arun, qtbot):
    """The tray as under a StatusNotifierItem host: the menu is drawn from the D-Bus export."""
    yield from _running_tray(qloop, arun, exported=True)


def _running_tray(qloop, arun, *, exported: bool | None):
    clients: dict = {}
    bridge = GatewayBridge(make_factory(clients))
    bridge.add_gateway(Endpoint("g1", "Local"))
    tray = TrayController(bridge, exported=exported)
    bridge.start(qloop)
    arun(poll_until(lambda: tray.status.icon_name == "idle"))
    yield bridge, tray, clients["g1"]
    tray.menu.close()
    tray.dispose()
    arun(bridge.aclose())
    tray.deleteLater()
    bridge.deleteLater()


def action(tray: TrayController, name: str) -> QAction:
    for candidate in tray.menu.findChildren(QAction):
        if candidate.objectName() == name:
            return candidate
    raise AssertionError(name)


def test_icon_and_tooltip_follow_the_snapshot(setup):
    _bridge, tray, client = setup
    assert tray.tray.toolTip() == "Hermes Tray — idle"
    client.emit(SessionChanged(session(title="<b>Build</b>")))
    client.emit(ApprovalRequested(approval()))
    assert (tray.status.icon_name, tray.status.count) == ("waiting", 1)
    # the waiting session is named, its markup neutralised
    assert (
        tray.tray.toolTip()
        == "Hermes Tray — 1 approval waiting\nWaiting: \u2039b\u203aBuild\u2039/b\u203a (1)"
    )
    assert not tray.tray.icon().isNull()


def test_a_qt_drawn_menu_is_built_when_it_opens_not_per_change(setup, qtbot):
    _bridge, tray, client = setup
    header = action(tray, "gateway:g1")
    with qtbot.waitSignal(tray._rebuild_timer.timeout):  # the events paused
        client.emit(SessionChanged(session()))
    assert action(tray, "gateway:g1") is header  # not rebuilt yet: nobody looks at it
    tray.menu.aboutToShow.emit()  # what Qt does as it opens the menu
    assert tray.menu.findChild(type(tray.menu), "session:g1:s1") is not None


def test_a_closed_session_that_worked_between_openings_comes_back(setup, qtbot):
    """The menu is built only as it opens, but its shelf still sees every pause in between."""
    _bridge, tray, client = setup
    with qtbot.waitSignal(tray._rebuild_timer.timeout):
        client.emit(SessionChanged(session()))
    tray._close_session("g1", "s1")
    tray.menu.aboutToShow.emit()
    assert _session_title(tray) is None
    with qtbot.waitSignal(tray._rebuild_timer.timeout):
        client.emit(SessionChanged(session(status=SessionStatus.WORKING)))
    with qtbot.waitSignal(tray._rebuild_timer.timeout):
        client.emit(SessionChanged(session()))  # idle again before the next opening
    tray.menu.aboutToShow.emit()
    assert _session_title(tray) == "Fix the build — idle"


@OFFSCREEN_POPUP
def test_menu_is_not_rebuilt_under_the_pointer(setup, qtbot):
    _bridge, tray, client = setup
    tray.menu.popup(tray.menu.pos())
    qtbot.waitUntil(tray.menu.isVisible)
    header = action(tray, "gateway:g1")
    client.emit(SessionChanged(session()))
    qtbot.wait(REBUILD_DELAY_MS * 3)
    assert action(tray, "gateway:g1") is header  # untouched while open
    tray.menu.close()
    with qtbot.waitSignal(tray.menu.aboutToShow):
        tray.menu.popup(tray.menu.pos())
    assert tray.menu.findChild(type(tray.menu), "session:g1:s1") is not None


def _session_title(tray):
    """The title of the listed submenu (replaced ones linger as children until deleted)."""
    subs = [a.menu() for a in tray.menu.actions() if a.menu() is not None]
    return next((m.title() for m in subs if m.objectName() == "session:g1:s1"), None)


def _one_idle_session(tray, client, qtbot):
    with qtbot.waitSignal(tray._rebuild_timer.timeout):
        client.emit(SessionChanged(session()))
    assert _session_title(tray) == "Fix the build — idle"


def test_a_panel_drawn_menu_keeps_its_words_while_the_host_may_show_it(panel_drawn, qtbot):
    """A rebuild renumbers the D-Bus items, so the panel's click would go to a dead id: after
    the host's aboutToShow a change of words waits until aboutToHide (or the hold runs out)."""
    _bridge, tray, client = panel_drawn
    _one_idle_session(tray, client, qtbot)
    tray.menu.aboutToShow.emit()  # what Qt does when the host calls AboutToShow(0)
    quit_item = action(tray, "quit")
    with qtbot.waitSignal(tray._rebuild_timer.timeout):
        client.emit(SessionChanged(session(status=SessionStatus.WORKING)))
    assert action(tray, "quit") is quit_item  # held: the panel's ids stay valid
    assert _session_title(tray) == "Fix the build — idle"
    with qtbot.waitSignal(tray._rebuild_timer.timeout):
        tray.menu.aboutToHide.emit()
    assert _session_title(tray) == "Fix the build — working"


def test_a_panel_drawn_menu_is_rebuilt_when_the_hold_runs_out(panel_drawn, qtbot):
    """Hosts never say the menu closed (xfce4-panel): the hold must end on its own."""
    _bridge, tray, client = panel_drawn
    _one_idle_session(tray, client, qtbot)
    tray._host_menu_open.setInterval(REBUILD_DELAY_MS * 2)
    tray.menu.aboutToShow.emit()
    with qtbot.waitSignal(tray._rebuild_timer.timeout):
        client.emit(SessionChanged(session(status=SessionStatus.WORKING)))
    assert _session_title(tray) == "Fix the build — idle"
    with qtbot.waitSignal(tray._host_menu_open.timeout):
        pass
    assert _session_title(tray) == "Fix the build — working"


def test_a_new_session_reshapes_a_panel_drawn_menu_after_a_short_grace(
    panel_drawn, qtbot, monkeypatch
):
    """Held until the next opening, the grown layout came up clipped with a scroll arrow in
    xfce4-panel. Within the grace a click still reaches the item the panel shows."""
    _bridge, tray, client = panel_drawn
    monkeypatch.setattr(tray_module, "HOST_SHAPE_GRACE_MS", 1500)  # well past the debounce
    tray.menu.aboutToShow.emit()
    quit_item = action(tray, "quit")
    with qtbot.waitSignal(tray._rebuild_timer.timeout):
        client.emit(SessionChanged(session()))
    assert action(tray, "quit") is quit_item  # within the grace: ids unchanged
    with qtbot.waitSignal(tray._shape_timer.timeout):
        pass
    assert tray._host_menu_open.isActive()  # still within the hold, yet reshaped
    assert _session_title(tray) == "Fix the build — idle"


def test_click_opens_review_when_something_waits(setup, qtbot):
    _bridge, tray, client = setup
    client.emit(ApprovalRequested(approval()))
    with qtbot.waitSignal(tray.review_requested):
        tray.tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)


@OFFSCREEN_POPUP
def test_click_opens_the_menu_when_nothing_waits(setup, qtbot):
    _bridge, tray, _client = setup
    with qtbot.assertNotEmitted(tray.review_requested):
        tray.tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    qtbot.waitUntil(tray.menu.isVisible)


@OFFSCREEN_POPUP
def test_a_left_click_on_a_status_notifier_host_pops_a_qt_drawn_menu(panel_drawn, qtbot):
    _bridge, tray, client = panel_drawn
    client.emit(SessionChanged(session(title="a_b & c")))
    tray.tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)  # xfce4-panel: Activate
    qtbot.waitUntil(lambda: tray.click_menu is not None and tray.click_menu.isVisible())
    sub = tray.click_menu.findChild(type(tray.menu), "session:g1:s1")
    assert sub is not None
    assert sub.title().startswith("a_b && c")  # Qt's own escaping, not the export's
    assert not tray.menu.isVisible()  # the exported menu is the host's to draw


@OFFSCREEN_POPUP
def test_the_menu_a_left_click_pops_never_covers_the_icon_at_the_screen_edge(panel_drawn, qtbot):
    """The click went to the panel, not to Qt: Qt pushed the menu over the icon (on Plasma its
    Quit entry sat where the icon was)."""
    _bridge, tray, _client = panel_drawn
    screen = QGuiApplication.primaryScreen().availableGeometry()
    icon = QPoint(screen.right() - 20, screen.bottom() - 5)
    QCursor.setPos(icon)
    assert QCursor.pos() == icon
    tray.tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    qtbot.waitUntil(lambda: tray.click_menu is not None and tray.click_menu.isVisible())
    assert not tray.click_menu.geometry().contains(icon)
    assert screen.contains(tray.click_menu.geometry())
    assert tray.click_menu.geometry().bottom() < icon.y()  # above the pointer: the lower half


def test_a_left_click_on_a_status_notifier_host_reviews_what_waits(panel_drawn, qtbot):
    _bridge, tray, client = panel_drawn
    client.emit(ApprovalRequested(approval()))
    with qtbot.waitSignal(tray.review_requested):
        tray.tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    assert tray.click_menu is None


def test_the_token_a_host_provided_goes_with_the_click_it_came_for(panel_drawn, qtbot):
    _bridge, tray, client = panel_drawn
    client.emit(ApprovalRequested(approval()))
    taken = []
    tray.review_requested.connect(lambda: taken.append(event_token.take()))
    os.putenv(TOKEN_ENV, "plasma-token")  # Qt's ProvideXdgActivationToken, just before Activate
    with qtbot.waitSignal(tray.review_requested):
        tray.tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    assert taken == ["plasma-token"]
    assert take_env_token() == ""  # spent: never left for a later window
    os.putenv(TOKEN_ENV, "for-a-middle-click")
    tray.tray.activated.emit(QSystemTrayIcon.ActivationReason.MiddleClick)
    assert take_env_token() == ""


def _answer(qtbot, tray, accept: bool):
    qtbot.waitUntil(lambda: confirm_box() is not None)
    box = confirm_box()
    button = next(
        b
        for b in box.buttons()
        if (box.buttonRole(b) is QMessageBox.ButtonRole.AcceptRole) is accept
    )
    button.click()


@OFFSCREEN_WINDOW
@pytest.mark.parametrize("accept", [True, False])
def test_approval_mode_asks_first(setup, qtbot, arun, accept):
    _bridge, tray, client = setup
    client.emit(SessionChanged(session(mode="manual")))
    tray.rebuild_menu()
    action(tray, "mode:g1:s1:off").trigger()
    text = confirm_box().text()
    assert "global" in text
    assert "NO command will ask for approval" in text
    _answer(qtbot, tray, accept)
    if accept:
        arun(poll_until(lambda: ("set_approval_mode", "off") in client.calls))
    else:
        qtbot.wait(50)
        assert client.calls == []


@OFFSCREEN_WINDOW
def test_yolo_on_asks_first_and_off_does_not(setup, qtbot, arun):
    _bridge, tray, client = setup
    client.emit(SessionChanged(session(title="R&D <x>")))
    tray.rebuild_menu()
    action(tray, "yolo:g1:s1").trigger()
    assert "“R&D <x>”" in confirm_box().text()  # a plain-text box: shown literally
    _answer(qtbot, tray, True)
    arun(poll_until(lambda: ("set_yolo", "s1", True) in client.calls))
    client.emit(SessionChanged(session(yolo=YOLO_SESSION, status=SessionStatus.WORKING)))
    tray.rebuild_menu()
    action(tray, "yolo:g1:s1").trigger()
    arun(poll_until(lambda: ("set_yolo", "s1", False) in client.calls))
    assert confirm_box() is None


def test_every_state_icon_renders_and_the_count_changes_the_pixels(qapp):
    for name in ICON_NAMES:
        assert not icons.render_pixmap(name, 22).isNull()
    plain = icons.render_pixmap("waiting", 22).toImage()
    counted = icons.render_pixmap("waiting", 22, 3).toImage()
    assert plain != counted
    assert icons.badge_text(12) == "9+"


@pytest.mark.parametrize(("size", "share"), [(16, 0.6), (22, 0.7), (48, 0.5)])
def test_the_count_badge_fills_a_panel_sized_icon(qapp, size: int, share: float) -> None:
    """GNOME draws tray icons at 16 px: a corner badge's digit was about 7 px there."""
    from PySide6.QtGui import QColor

    image = icons.render_pixmap("waiting", size, 3).toImage()
    fill = QColor(icons.BADGE_FILL)

    def badge(c: QColor) -> bool:  # the fill, give or take antialiasing
        return abs(c.red() - fill.red()) + abs(c.green() - fill.green()) < 60 and c.alpha() > 200

    rows = [y for y in range(size) for x in range(size) if badge(image.pixelColor(x, y))]
    assert (max(rows) - min(rows) + 1) / size >= share


@pytest.mark.parametrize(("platform", "exported"), [("wayland", True), ("offscreen", False)])
def test_off_x11_the_icon_is_always_a_status_notifier_item(
    qapp, monkeypatch: pytest.MonkeyPatch, platform: str, exported: bool
) -> None:
    """Qt has no other tray off xcb; the item registers when a bar starts after the app."""
    from desktop.ui import tray as tray_module

    monkeypatch.setattr(tray_module.QGuiApplication, "platformName", staticmethod(lambda: platform))
    assert tray_module.status_notifier_host_present() is exported


@pytest.mark.qt_log_ignore("No such signal QPlatformNativeInterface")  # show(), offscreen
def test_the_start_up_icon_is_taken_over_with_its_menu(qtbot) -> None:
    first = icons.show_first_icon()
    menu = first.contextMenu()  # a host read its D-Bus path when the icon registered
    bridge = GatewayBridge(make_factory({}))
    tray = TrayController(bridge, exported=False, first=first)
    assert tray.tray is first
    assert tray.menu is menu
    assert tray.menu.objectName() == "tray-menu"
    assert tray.tray.toolTip() != "Hermes Tray: starting"  # the snapshot's status replaced it
    tray.dispose()
    tray.deleteLater()
    bridge.deleteLater()
