"""Qt-free operating-system glue: files, start-at-login, the desktop's do-not-disturb switch.

Nothing here imports Qt or websockets, and only ``do_not_disturb`` (a D-Bus reader on the
running loop) imports asyncio, so the settings, the journal and the packaging tests can use the
rest without a display or a loop.
"""
