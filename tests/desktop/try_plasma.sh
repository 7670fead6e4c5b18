#!/usr/bin/env bash
# Notice, open, answer and quit on KDE Plasma 5.27 (X11), with the real app's demo.
#
# Not part of the CI tier (a whole Plasma session: about 2 minutes, most of it the demo's
# pace): a person runs it, on a machine with
#   apt-get install plasma-workspace plasma-desktop kwin-x11 xvfb xdotool x11-utils \
#       x11-apps imagemagick dbus-daemon
# It starts Xvfb, a private session bus, kwin_x11 and plasmashell (its system tray is the tray
# host, its notification server shows the bubbles), then runs tests/desktop/plasma_scene.py,
# which drives the app as a person would and prints one line per check. Everything Plasma and
# the app write goes to a temporary HOME, removed after; screenshots go to SCREENSHOT_DIR
# (default artifacts/screenshots). Runs as root too (Plasma 5.27 on X11 does not refuse it).
#
# Usage:  bash tests/desktop/try_plasma.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PY:-$ROOT/.venv/bin/python}
for tool in xvfb-run dbus-run-session kwin_x11 plasmashell gdbus xdotool xprop xmessage import; do
    command -v "$tool" >/dev/null || { echo "try_plasma.sh: $tool is missing" >&2; exit 2; }
done

if [[ -z "${HERMES_TRAY_PLASMA_WORK:-}" ]]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/hermes-tray-plasma.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    mkdir -p "$WORK/services" "$WORK/plasma/rt" "$WORK/app/rt"
    chmod 700 "$WORK/plasma/rt" "$WORK/app/rt"
    # The bus may start Plasma's services, but no other notification server: one started
    # first (dunst, mako, xfce4-notifyd, when installed) would keep Plasma's from the name.
    for service in /usr/share/dbus-1/services/*.service; do
        case $(basename "$service") in
            org.kde.plasma.Notifications.service) ;;
            org.bluez.obex.service) continue ;; # no Bluetooth here: kded5 would ask in a loop
            *) grep -qx "Name=org.freedesktop.Notifications" "$service" && continue ;;
        esac
        ln -s "$service" "$WORK/services/"
    done
    cat >"$WORK/bus.conf" <<EOF
<busconfig>
  <type>session</type>
  <listen>unix:dir=$WORK</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$WORK/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
  </policy>
</busconfig>
EOF
    # The bus starts Plasma's services with its own environment: this HOME, never the real one.
    P=$WORK/plasma
    status=0
    env HERMES_TRAY_PLASMA_WORK="$WORK" HOME="$P" XDG_CONFIG_HOME="$P/.config" \
        XDG_DATA_HOME="$P/.local/share" XDG_CACHE_HOME="$P/.cache" \
        XDG_STATE_HOME="$P/.local/state" XDG_RUNTIME_DIR="$P/rt" XDG_CURRENT_DESKTOP=KDE \
        KDE_FULL_SESSION=true KDE_SESSION_VERSION=5 XDG_SESSION_TYPE=x11 \
        DESKTOP_SESSION=plasma QT_QUICK_BACKEND=software KWIN_COMPOSE=N \
        timeout -k 10 300 xvfb-run -a -s "-screen 0 1280x800x24" \
        dbus-run-session --config-file="$WORK/bus.conf" -- bash "${BASH_SOURCE[0]}" 3>&2 \
        2>"$WORK/bus.log" || status=$?
    exit "$status"
fi

# Inside Xvfb and the private bus (whose own chatter, and its services', went to bus.log).
exec 2>&3 3>&-
WORK=$HERMES_TRAY_PLASMA_WORK
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT
kwin_x11 >"$WORK/kwin.log" 2>&1 &
PIDS+=($!)
plasmashell >"$WORK/plasmashell.log" 2>&1 &
PIDS+=($!)
# The StatusNotifierWatcher is a kded5 module that a login's startplasma loads.
for _ in $(seq 100); do
    gdbus call --session -d org.kde.kded5 -o /kded -m org.kde.kded5.loadModule \
        statusnotifierwatcher >/dev/null 2>&1 && break
    sleep 0.2
done
hosted() {
    gdbus call --session -d org.kde.StatusNotifierWatcher -o /StatusNotifierWatcher \
        -m org.freedesktop.DBus.Properties.Get org.kde.StatusNotifierWatcher \
        IsStatusNotifierHostRegistered 2>/dev/null | grep -q true
}
for _ in $(seq 300); do hosted && break; sleep 0.2; done
hosted || { echo "try_plasma.sh: Plasma's system tray did not come up" >&2; exit 1; }

A=$WORK/app
export HOME=$A XDG_CONFIG_HOME=$A/.config XDG_DATA_HOME=$A/.local/share XDG_CACHE_HOME=$A/.cache
export XDG_STATE_HOME=$A/.local/state XDG_RUNTIME_DIR=$A/rt QT_QPA_PLATFORM=xcb NO_AT_BRIDGE=1
export SCREENSHOT_DIR="${SCREENSHOT_DIR:-$ROOT/artifacts/screenshots}"
cd "$ROOT"
status=0
timeout -k 10 240 env PYTHONPATH="$ROOT" nice "$PY" "$HERE/plasma_scene.py" || status=$?
[[ $status == 0 ]] || tail -n 20 "$WORK/kwin.log" "$WORK/plasmashell.log" >&2
exit "$status"
