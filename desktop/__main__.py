"""``python -m desktop``: the same as the ``hermes-tray`` command (handy before installing)."""

from desktop.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
