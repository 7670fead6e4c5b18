"""Child-process entry points: the gateway peer, the app under test, the bare reference.

Why separate processes: the app's latency, memory and wake-ups must not include the gateway's
work, and memory and cold start can only be compared between whole processes started the
same way (``bench.env``).
"""
