"""The built-in demo: a gateway on 127.0.0.1 and its story (nothing configured, or ``--demo``)."""
