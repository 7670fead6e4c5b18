"""Fake D-Bus desktop services for tests, on a private bus only (never the developer's)."""
