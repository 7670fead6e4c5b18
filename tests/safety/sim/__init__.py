"""A sans-I/O interleaver over reference servers of the three Hermes gateways.

The gateway model (``tests.gatewaymodel``) is a real peer on asyncio and real time, so it cannot
interleave thousands of races per second; the reference servers here keep their own sessions,
agent and timers without I/O, but every approval wire rule (what is offered, how it is encoded,
which open request an answer resolves, what an ending announces) comes from the model's
``tests.gatewaymodel.approval_rules``, so a protocol change is one edit. What is judged here is the
campaign's: the interleaving, the person, the verdict. Neither side imports the core's parsers,
so a misreading in the core cannot hide in a parser both sides share.
"""
