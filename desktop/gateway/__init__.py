"""asyncio side of a gateway connection (no Qt): discovery, transport, reconnect, doctor."""
