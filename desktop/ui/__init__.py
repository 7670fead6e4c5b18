"""The Qt side of Hermes Tray: the one bridge to asyncio, the tray, menus, dialogs, notifications.

Only this package imports PySide6/qasync. What the widgets show and the rules they follow live
Qt-free in :mod:`desktop.model`, so they can be tested with plain calls.
"""

from desktop.ui.pyside_sources import stop_source_caching

# When Qt is already loaded (tests, the benchmarks' probes), stop its import hook from keeping
# the sources of everything imported from here on; the app itself does it right after Qt loads.
stop_source_caching()
