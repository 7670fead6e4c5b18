"""Qt-free operating-system glue: files, autostart, notifications, the do-not-disturb switch.

Nothing here imports Qt or websockets, and only ``native_notify`` and ``do_not_disturb`` (D-Bus
clients on the running loop, driven by the bridge) import asyncio, so the settings, the journal
and the packaging tests can use the rest without a display or a loop.
"""
