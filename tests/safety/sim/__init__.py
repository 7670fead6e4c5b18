"""A sans-I/O interleaver over reference servers of the three Hermes gateways.

The gateway model (``desktop.demo``) is a real peer on asyncio and real time, so it cannot
interleave thousands of races per second; the reference servers here replay its rules without
I/O. What each dialect offers and what an answer means (``approval_choices``, ``approves``) is
read from the model itself, so those rules are written once; which request a decision frame
resolves is checked here per dialect (protocol.md §3). Neither side imports the core's parsers,
so a misreading in the core cannot hide in a parser both sides share.
"""
