"""asyncio side of a gateway connection: discovery, transport, reconnect, doctor.

Nothing here imports Qt: it runs on whatever asyncio loop is current (qasync in the app, a plain
loop in tests). The protocol itself lives in the sans-I/O ``desktop.core``.
"""
