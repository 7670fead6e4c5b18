"""Hermes Tray benchmarks: latency, core throughput, memory, cold start and idle wake-ups.

Why a package of its own (and not timed tests): the figures are *measurements* on a shared,
noisy 2-core machine. They are printed and stored (``artifacts/bench.json``), never asserted
in the test suite. Every figure that can be is a RATIO to a reference measured in the same
run (plain ``json.loads``, a bare PySide6 tray app), so machine noise cancels as far as it can.

Run ``python -m bench`` (about three minutes) or ``python -m bench --quick`` (under a minute).
Everything runs with ``QT_QPA_PLATFORM=offscreen`` in child processes; see ``bench.env``.
"""
