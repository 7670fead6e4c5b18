"""Typed, versioned settings (Qt-free); import each name from the module that defines it.

The settings file is JSON (stdlib only: ``tomllib`` cannot write) in the user config dir, or in
``$HERMES_TRAY_CONFIG_DIR``: ``store.load_settings()``, ``store.save_settings()``. Tokens are
never in it; they are in the OS keyring (``tokens.TokenStore``).
"""
