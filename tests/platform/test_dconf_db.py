"""Booleans read from real dconf databases (tests/fixtures/dconf), and damaged ones never raise."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from desktop.platform.dconf_db import read_bool, user_database

DCONF = Path(__file__).parents[1] / "fixtures" / "dconf"
BANNERS = "/org/gnome/desktop/notifications/show-banners"
APP_BANNERS = (
    "/org/gnome/desktop/notifications/application/io-github-hermes-tray-hermestray/show-banners"
)


@pytest.mark.parametrize(("database", "banners"), [("banners-off", False), ("banners-on", True)])
def test_the_value_dconf_wrote_is_read(database, banners):
    path = DCONF / database
    assert read_bool(BANNERS, path) is banners
    assert read_bool(APP_BANNERS, path) is True  # the same name under another folder
    assert read_bool("/org/gnome/desktop/interface/clock-format", path) is None  # a string
    assert read_bool("/org/gnome/desktop/notifications/", path) is None  # a folder
    assert read_bool("/org/gnome/desktop/notifications/show-banner", path) is None


def test_no_database_is_not_set(tmp_path):
    assert read_bool(BANNERS, tmp_path / "missing") is None
    assert user_database().parts[-2:] == ("dconf", "user")
    assert read_bool(BANNERS) is None  # the test's own XDG_CONFIG_HOME has none


def test_damaged_databases_give_none_or_a_boolean_never_an_error(tmp_path):
    data = (DCONF / "banners-off").read_bytes()
    target = tmp_path / "user"
    rng = random.Random(31)
    damaged = [data[:cut] for cut in range(len(data))]
    for _ in range(400):
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            flipped[rng.randrange(len(data))] = rng.randrange(256)
        damaged.append(bytes(flipped))
    damaged.append(data.replace(b"GVariant", b"raVGtnai", 1))  # written big-endian
    answers = set()
    for version in damaged:
        target.write_bytes(version)
        answers.add(read_bool(BANNERS, target))
    assert answers <= {None, False, True}
    assert None in answers  # most damage hides the key


def test_a_loop_of_parents_is_not_followed_forever(tmp_path):
    data = bytearray((DCONF / "banners-off").read_bytes())
    first_item = 0x18 + 8 + 4 * 13  # after the root table's two words and 13 buckets
    data[first_item + 4 : first_item + 8] = (0).to_bytes(4, "little")  # "/" is its own parent
    target = tmp_path / "user"
    target.write_bytes(bytes(data))
    assert read_bool(BANNERS, target) is None
