"""Hermes Tray: approve or deny, from a tray icon, the commands a Hermes agent wants to run.

Layers (see docs/contributing.md): ``desktop.core`` is sans-I/O and Qt-free, ``desktop.gateway``
does the asyncio networking without Qt, ``desktop.ui`` is the only package that imports PySide6.
This module stays import-light (standard library only) because every layer imports it.
"""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0.dev0"


def resources_dir() -> Path:
    """The folder of the app's non-Python files (icons, desktop entry, metainfo).

    A wheel or a PyInstaller bundle ships them inside the package (``desktop/resources/``); a
    checkout or an editable install keeps them in ``resources/`` beside it. FileNotFoundError
    (naming both) means a broken install.
    """
    package = Path(__file__).resolve().parent
    packaged, checkout = package / "resources", package.parent / "resources"
    if packaged.is_dir():
        return packaged
    # Only trust the sibling folder in a checkout: in site-packages a "resources" folder beside
    # the package would belong to some other distribution.
    if checkout.is_dir() and (package.parent / "pyproject.toml").is_file():
        return checkout
    tried = f"{packaged}, {checkout}"
    raise FileNotFoundError(f"Hermes Tray resources are missing (looked in {tried}); reinstall it")
