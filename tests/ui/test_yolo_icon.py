"""The time-boxed YOLO icon: chosen by the pure tray_status only when every YOLO session has a
time-box, named in the tooltip with its remaining time, and a different *shape* from plain YOLO
(it must read on monochrome panels and for colour-blind people, not by colour alone)."""

from __future__ import annotations

from desktop.model.tray_status import tray_status
from desktop.ui import icons
from tests.model.builders import ICON_NAMES, YOLO_SESSION, approval, gateway, session, snap

TIMED = session("s1", "Fix the build", yolo=YOLO_SESSION)
OTHER = session("s2", "Docs", yolo=YOLO_SESSION)
BOXES = {("g1", "s1"): "YOLO on · 12 min left"}


def test_every_yolo_session_time_boxed_shows_the_clock_icon_and_its_time():
    status = tray_status(snap(gateway(sessions=(TIMED,))), BOXES)
    assert status.icon_name == "yolo-timed"
    assert "yolo-timed" in ICON_NAMES
    first, *rest = status.tooltip.splitlines()
    assert first == "Hermes Tray — YOLO on in 1 session, time-boxed"
    assert "Fix the build: YOLO on · 12 min left" in rest


def test_one_untimed_yolo_session_keeps_the_plain_yolo_icon():
    status = tray_status(snap(gateway(sessions=(TIMED, OTHER))), BOXES)
    assert status.icon_name == "yolo"
    assert "Fix the build: YOLO on · 12 min left" in status.tooltip


def test_a_box_whose_yolo_is_not_on_yet_changes_nothing():
    arming = session("s1", "Fix the build")
    assert tray_status(snap(gateway(sessions=(arming,))), BOXES).icon_name == "idle"


def test_waiting_approvals_still_win():
    status = tray_status(snap(gateway(sessions=(TIMED,), approvals=(approval(),))), BOXES)
    # the bubble carries YOLO's mark: it asks although YOLO is on
    assert (status.icon_name, status.count) == ("waiting-yolo", 1)
    assert "Fix the build: YOLO on · 12 min left" in status.tooltip


def _mask(name: str, size: int = 32) -> set[tuple[int, int]]:
    image = icons.render_pixmap(name, size).toImage()
    return {
        (x, y) for x in range(size) for y in range(size) if image.pixelColor(x, y).alpha() > 128
    }


def test_the_time_boxed_icon_differs_from_plain_yolo_in_shape(qapp):
    plain, timed = _mask("yolo"), _mask("yolo-timed")
    assert plain
    assert timed
    differing = len(plain ^ timed) / len(plain | timed)
    assert differing > 0.25  # silhouettes, not just colours, tell them apart
