"""The Qt side of Hermes Tray: only this package imports PySide6/qasync (rules: desktop.model)."""

from desktop.ui.pyside_sources import stop_source_caching

# Qt may be loaded already (tests, probes); the app itself does it right after Qt loads.
stop_source_caching()
