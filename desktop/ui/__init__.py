"""The Qt side of Hermes Tray: the one bridge to asyncio, the tray, menus, dialogs, notifications.

Only this package imports PySide6/qasync. Pure helpers here (``tray_status``, ``notify_policy``,
``snapshot``, ``menu_text``, ``plain_text``) stay Qt-free so they can be tested with plain calls.
"""
