"""PyInstaller's entry script: the same as the ``hermes-tray`` console script.

Why not ``desktop/__main__.py``: PyInstaller puts the entry script's folder on the import path.
From ``desktop/`` that would make ``desktop/platform`` shadow the standard library's
``platform`` module. From here, ``packaging/`` holds nothing that shadows anything.
"""

from desktop.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
