"""The built-in demo: a small gateway on 127.0.0.1 (:mod:`.gateway`) and the story it plays.

Started by :mod:`desktop.demo_mode` when nothing is configured, or with ``--demo``.
"""
