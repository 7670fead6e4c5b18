"""Qt-free operating-system glue: where files live, atomic writes, start-at-login.

Nothing here imports Qt, asyncio or websockets, so the settings, the journal and the packaging
tests can use it without a display.
"""
