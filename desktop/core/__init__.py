"""Qt-free, asyncio-free core: frames in, typed events and frames out (sans-I/O)."""
