"""Fixtures for the offscreen UI tests (the Qt ones, qloop and the leak guard, come from
tests/qt_fixtures.py)."""
