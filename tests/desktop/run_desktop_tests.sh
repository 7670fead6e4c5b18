#!/usr/bin/env bash
# Run the real-desktop tests (pytest marker "desktop", anywhere under tests/) on a throw-away desktop:
# Xvfb (xvfb-run -a) + a private session bus (dbus-run-session) + xfconfd + xfce4-panel (the
# StatusNotifierItem tray host) + xfce4-notifyd (a notification daemon that draws buttons).
#
# Usage:  bash tests/desktop/run_desktop_tests.sh [extra pytest args]
# Needs (Debian 12): xvfb xauth libxcb-icccm4 libxcb-keysyms1 dbus-daemon libglib2.0-bin
#                    xfce4-panel xfce4-notifyd x11-utils xdotool imagemagick
# Screenshots go to artifacts/screenshots/ (override with SCREENSHOT_DIR).
# With HERMES_TRAY_NO_TRAY_HOST=1 the desktop has no tray host (no xfce4-panel), and pytest runs
# exactly the arguments given: tests/desktop/test_no_tray_host.py runs its scene that way.
# HERMES_TRAY_DESKTOP swaps one part, and pytest again runs exactly the arguments given
# (tests/desktop/test_other_desktops.py): "trayer" for the tray host (XEmbed only, no
# StatusNotifierWatcher; needs trayer), "dunst" for the notification server (needs dunst).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PY:-$ROOT/.venv/bin/python}

if [[ "${1:-}" != "--inside" ]]; then
    for tool in xvfb-run dbus-run-session xfce4-panel xdotool import xdpyinfo gdbus; do
        command -v "$tool" >/dev/null || { echo "run_desktop_tests.sh: $tool is missing" >&2; exit 2; }
    done
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/hermes-tray-desktop.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    mkdir -p "$WORK/config/xfce4/xfconf/xfce-perchannel-xml" "$WORK/runtime" "$WORK/home"
    chmod 700 "$WORK/runtime"
    cp "$HERE/xfce4-panel.xml" "$WORK/config/xfce4/xfconf/xfce-perchannel-xml/"
    # Exported *before* dbus-run-session: D-Bus-activated helpers inherit the bus's environment.
    export XDG_CONFIG_HOME="$WORK/config" XDG_RUNTIME_DIR="$WORK/runtime" HOME="$WORK/home"
    export NO_AT_BRIDGE=1 QT_QPA_PLATFORM=xcb QT_API=pyside6 HERMES_TRAY_DESKTOP_WORK="$WORK"
    export SCREENSHOT_DIR="${SCREENSHOT_DIR:-$ROOT/artifacts/screenshots}"
    status=0
    timeout -k 10 600 xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
        dbus-run-session -- bash "${BASH_SOURCE[0]}" --inside "$@" || status=$?
    exit "$status"
fi
shift

WORK=$HERMES_TRAY_DESKTOP_WORK
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

wait_for_name() {  # wait until a D-Bus name has an owner (up to 10 s)
    for _ in $(seq 100); do
        if gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \
            -m org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null | grep -q true; then
            return 0
        fi
        sleep 0.1
    done
    echo "run_desktop_tests.sh: $1 did not appear on the bus" >&2
    return 1
}

for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
# Start xfconfd ourselves so it reads our XDG_CONFIG_HOME (stack.md §3.3).
/usr/lib/x86_64-linux-gnu/xfce4/xfconf/xfconfd >"$WORK/xfconfd.log" 2>&1 & PIDS+=($!)
wait_for_name org.xfce.Xfconf
TRAY=xfce4-panel NOTIFY=xfce4-notifyd
case "${HERMES_TRAY_DESKTOP:-}" in
    trayer) TRAY=trayer ;;
    dunst) NOTIFY=dunst ;;
    "") ;;
    *) echo "run_desktop_tests.sh: unknown HERMES_TRAY_DESKTOP=$HERMES_TRAY_DESKTOP" >&2; exit 2 ;;
esac
[[ -n "${HERMES_TRAY_NO_TRAY_HOST:-}" ]] && TRAY="no tray host"
case "$TRAY" in
    xfce4-panel)
        xfce4-panel --disable-wm-check >"$WORK/panel.log" 2>&1 & PIDS+=($!)
        wait_for_name org.kde.StatusNotifierWatcher ;;
    trayer)  # a bar across the top, as tall as xfce4-panel here; tray only, no D-Bus
        trayer --edge top --align right --widthtype percent --width 100 --height 30 \
            --transparent false --tint 0xdddddd >"$WORK/trayer.log" 2>&1 & PIDS+=($!) ;;
esac
if [[ "$NOTIFY" == dunst ]]; then
    dunst >"$WORK/dunst.log" 2>&1 & PIDS+=($!)
else
    /usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd >"$WORK/notifyd.log" 2>&1 & PIDS+=($!)
fi
wait_for_name org.freedesktop.Notifications

cd "$ROOT"
if [[ -n "${HERMES_TRAY_NO_TRAY_HOST:-}${HERMES_TRAY_DESKTOP:-}" ]]; then
    echo "desktop up: DISPLAY=$DISPLAY, tray host: $TRAY, notifications: $NOTIFY"
    "$PY" -m pytest -p no:cacheprovider "$@"
    exit
fi
echo "desktop up: DISPLAY=$DISPLAY, tray host xfce4-panel, notifications xfce4-notifyd"
# Every desktop-marked test of the suite, not only this directory's: scripts/test.sh runs the
# rest with -m "not desktop", so a desktop test elsewhere (tests/e2e/test_xvfb_input.py, which
# needs the real Hermes venvs of its phase 2) runs here or nowhere.
"$PY" -m pytest -p no:cacheprovider -m desktop tests "$@"
