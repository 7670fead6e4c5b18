"""Is there a tray host, and what the app shows instead when there is none. Qt-free.

With no tray host (GNOME without AppIndicator, sway without a bar) the icon, the menu, Settings
and Quit are out of reach, so the app shows its own window. Measured with PySide6 6.11: on xcb
an icon built while no StatusNotifierWatcher ran uses XEmbed for good; on Wayland it registers
whenever a watcher comes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from desktop.model.bridge_events import Notice

WATCHER = "org.kde.StatusNotifierWatcher"
NO_TRAY_WHAT = "No system tray found"
NO_TRAY_WHERE = "Hermes Tray shows its own window"
LATE_HOST_WHAT = "The tray cannot show Hermes Tray's icon"
LATE_HOST_ADVICE = (
    "The tray started after Hermes Tray, whose icon cannot move there: quit Hermes Tray and "
    "start it again."
)
# Platforms with no tray and no windows a person sees: never a fallback window there.
HEADLESS_PLATFORMS = ("offscreen", "minimal", "minimalegl", "vnc")


class HostKind(Enum):
    STATUS_NOTIFIER = "status-notifier"  # a StatusNotifierWatcher with a host
    XEMBED = "xembed"  # only an XEmbed system tray (X11)
    NONE = "none"
    UNKNOWN = "unknown"  # not asked (headless platform) or could not be asked


@dataclass(frozen=True, slots=True)
class TrayProbe:
    """What the platform probe saw. ``None`` means "not asked" or "could not tell"."""

    platform: str = ""  # Qt's platform name ("xcb", "wayland", ...); "" outside the app
    watcher_owner: str = ""  # who owns org.kde.StatusNotifierWatcher ("" when nobody does)
    host_registered: bool | None = None  # the watcher's IsStatusNotifierHostRegistered
    xembed: bool | None = None  # the _NET_SYSTEM_TRAY_S<screen> selection has an owner
    qt_available: bool | None = None  # QSystemTrayIcon.isSystemTrayAvailable()
    icon_is_status_notifier: bool = False  # the app's icon was built as a StatusNotifierItem
    desktop: str = ""  # $XDG_CURRENT_DESKTOP
    unknown: str = ""  # why the probe could not ask (no session bus, ...)


@dataclass(frozen=True, slots=True)
class TrayHost:
    kind: HostKind
    own_window: bool  # the icon cannot show: show the tray's own window instead
    summary: str  # one line for doctor and the log
    advice: str  # what to install or run for a tray ("" when one is there)


def tray_host(probe: TrayProbe) -> TrayHost:
    """The one rule: which host is there, whether the icon shows, whether to show a window."""
    if probe.platform in HEADLESS_PLATFORMS:
        return TrayHost(HostKind.UNKNOWN, False, "not asked on a headless platform", "")
    if probe.unknown:
        return TrayHost(HostKind.UNKNOWN, False, f"not known: {probe.unknown}", "")
    if probe.watcher_owner and probe.host_registered is not False:
        kind = HostKind.STATUS_NOTIFIER
    elif probe.xembed:
        kind = HostKind.XEMBED
    elif probe.qt_available:  # Qt found a host the probe did not ask about
        kind = HostKind.XEMBED if probe.platform == "xcb" else HostKind.STATUS_NOTIFIER
    else:
        kind = HostKind.NONE
    if probe.qt_available is None:  # doctor: no Qt, the hosts alone decide
        shows = kind is not HostKind.NONE
    elif probe.icon_is_status_notifier:
        shows = probe.qt_available
    else:  # built on xcb while no watcher ran: only an XEmbed tray shows it (module docstring)
        shows = probe.platform == "xcb" and (
            probe.xembed if probe.xembed is not None else probe.qt_available
        )
    if shows:
        advice = ""
    elif kind is HostKind.NONE:
        advice = install_advice(probe.desktop, probe.platform)
    else:
        advice = LATE_HOST_ADVICE
    return TrayHost(kind, not shows, _summary(kind, probe, shows), advice)


def _summary(kind: HostKind, probe: TrayProbe, shows: bool) -> str:
    owner = probe.watcher_owner
    if kind is HostKind.STATUS_NOTIFIER:
        line = f"StatusNotifierWatcher owned by {owner}" if owner else "a StatusNotifier host"
        if probe.xembed:
            line += ", and an XEmbed system tray"
    elif kind is HostKind.XEMBED:
        line = "an XEmbed system tray"
        if owner:
            line += f" (StatusNotifierWatcher {owner} has no host)"
    elif owner:
        line = f"none: StatusNotifierWatcher {owner} has no host registered"
    else:
        line = "none: no StatusNotifierWatcher on the session bus"
        if probe.xembed is False:
            line += " and no XEmbed system tray"
    if not shows and kind is not HostKind.NONE:
        line += "; the icon cannot show there (it was set up before the host came)"
    return line


def install_advice(desktop: str, platform: str = "") -> str:
    """What gives this desktop a tray host (plain words, no commands that may not exist)."""
    names = {part.strip().lower() for part in desktop.split(":") if part.strip()}
    if names & {"gnome", "ubuntu", "gnome-classic", "unity"}:
        return (
            "On GNOME, install and enable the AppIndicator extension "
            "(gnome-shell-extension-appindicator), then log in again."
        )
    if names & {"sway", "hyprland", "river", "niri", "wlroots"}:
        return "Add a bar with a tray, such as waybar with its tray module."
    if names & {"xfce"}:
        return "Add the Status Tray plugin to an Xfce panel."
    if names & {"kde"}:
        return "Add the System Tray widget to a Plasma panel."
    if platform == "wayland":
        return "Run a panel or bar with a StatusNotifierItem tray (such as waybar)."
    return "Run a panel with a system tray (StatusNotifierItem or XEmbed), such as trayer."


@dataclass(slots=True)
class TrayFallback:
    """Shows the window once per loss of the tray, and the notice once per run."""

    window: bool = False
    notified: bool = False

    def update(self, host: TrayHost) -> FallbackStep:
        show = host.own_window and not self.window
        hide = self.window and not host.own_window
        notify = show and not self.notified
        self.window = host.own_window
        self.notified = self.notified or notify
        return FallbackStep(show_window=show, step_back=hide, notify=notify)


@dataclass(frozen=True, slots=True)
class FallbackStep:
    show_window: bool
    step_back: bool  # a host appeared: the window may go, the icon is back
    notify: bool


def no_tray_notice(host: TrayHost) -> Notice:
    return Notice("warning", NO_TRAY_WHAT, NO_TRAY_WHERE, host.advice)


def window_note(host: TrayHost) -> str:
    """The line at the top of the tray's own window: why it is there, how to get it back."""
    what = NO_TRAY_WHAT if host.kind is HostKind.NONE else LATE_HOST_WHAT
    return (
        f"{what}: this window stands in for the tray icon. {host.advice} "
        "Closing it minimizes it; Quit ends Hermes Tray. Launching Hermes Tray again brings "
        "it back."
    ).replace("  ", " ")
