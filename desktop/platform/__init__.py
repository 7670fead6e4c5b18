"""Qt-free operating-system glue; only the D-Bus clients import asyncio."""
