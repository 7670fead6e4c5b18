"""window_place: the dialog opens next to the tray, out of the bubbles' column at the right."""

from __future__ import annotations

from desktop.model.window_place import BUBBLE_COLUMN, EDGE, Box, dialog_origin, menu_origin

SCREEN = Box(0, 28, 1280, 772)  # 1280x800 with a 28 px panel at the top
W, H = 780, 640


def test_without_a_tray_anchor_it_opens_on_the_left_vertically_centred():
    x, y = dialog_origin(SCREEN, W, H)
    assert x == EDGE
    assert y == 28 + (772 - H) // 2
    assert x + W <= SCREEN.right - BUBBLE_COLUMN


def test_under_a_tray_icon_at_the_top_right_it_stays_left_of_the_bubbles():
    tray = Box(1240, 2, 24, 24)
    x, y = dialog_origin(SCREEN, W, H, tray)
    assert y == SCREEN.y + EDGE  # just under the panel that holds the icon
    assert x + W == SCREEN.right - BUBBLE_COLUMN


def test_next_to_a_tray_icon_at_the_bottom_left_it_opens_above_it():
    screen = Box(0, 0, 1280, 776)  # a 24 px panel at the bottom
    tray = Box(40, 776, 24, 24)
    x, y = dialog_origin(screen, W, H, tray)
    assert (x, y) == (EDGE, tray.y - H - EDGE)


def test_an_empty_tray_geometry_is_no_anchor():
    assert dialog_origin(SCREEN, W, H, Box(0, 0, 0, 0)) == dialog_origin(SCREEN, W, H)


def test_a_screen_too_narrow_for_both_gets_it_at_the_left_edge():
    small = Box(0, 0, 1024, 768)
    x, y = dialog_origin(small, W, H)
    assert x == EDGE
    assert 0 <= y <= 768 - H


def test_the_menu_opens_above_a_bottom_panel_and_never_over_the_icon():
    area = Box(0, 0, 1280, 750)  # Plasma's 50 px panel at the bottom
    icon = (1057, 775)  # the pointer, on the tray icon in the panel
    x, y = menu_origin(area, 478, 254, icon)
    assert (x, y) == (1280 - 478, 750 - 254)  # right above the panel, inside the screen
    assert not (x <= icon[0] < x + 478 and y <= icon[1] < y + 254)


def test_the_menu_opens_below_a_top_panel():
    x, y = menu_origin(SCREEN, 300, 400, (1250, 14))
    assert (x, y) == (SCREEN.right - 300, SCREEN.y)
