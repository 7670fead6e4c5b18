#!/usr/bin/env bash
# Notice, open, answer and quit on sway + waybar + mako (Wayland), with the real app's demo.
#
# Not part of the CI tier (sway refuses to run as root, which CI is, so it needs a second
# user): a person runs it, on a machine with
#   apt-get install sway waybar mako-notifier grim wayvnc dbus-daemon
# It starts a headless sway (WLR_BACKENDS=headless) with waybar as the tray host and mako as
# the notification server on a private session bus, then runs tests/desktop/sway_scene.py,
# which drives the demo with a pointer and keyboard through wayvnc on 127.0.0.1 (headless sway
# has no input devices) and prints one line per check. Screenshots go to
# SCREENSHOT_DIR (default artifacts/screenshots).
#
# Usage:  bash tests/desktop/try_sway.sh            (as yourself)
#         SWAY_USER=name bash tests/desktop/try_sway.sh   (as root: sway, waybar and mako run
#                                                     as that user, the app as root)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PY:-$ROOT/.venv/bin/python}
# shellcheck source=tests/desktop/private_bus.sh
source "$HERE/private_bus.sh"
for tool in sway waybar mako makoctl grim wayvnc swaymsg dbus-daemon; do
    command -v "$tool" >/dev/null || { echo "try_sway.sh: $tool is missing" >&2; exit 2; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hermes-tray-sway.XXXXXX")
chmod 755 "$WORK"
mkdir -p "$WORK/rt" "$WORK/app-rt" "$WORK/home" "$WORK/waybar" "$WORK/bus"
chmod 700 "$WORK/rt" "$WORK/app-rt"
as_user=()
if [[ $(id -u) == 0 ]]; then
    [[ -n "${SWAY_USER:-}" ]] || { echo "try_sway.sh: sway refuses root: set SWAY_USER" >&2; exit 2; }
    chown "$SWAY_USER" "$WORK/rt" "$WORK/waybar" "$WORK/bus"
    as_user=(runuser -u "$SWAY_USER" --)
fi
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

cat >"$WORK/sway.conf" <<EOF
output HEADLESS-1 resolution 1280x800 background #4e6a88 solid_color
focus_on_window_activation focus
EOF
cat >"$WORK/waybar/config" <<'EOF'
{ "layer": "top", "position": "top", "height": 30,
  "modules-left": ["sway/workspaces"], "modules-right": ["tray", "clock"],
  "tray": { "icon-size": 22, "spacing": 6 }, "clock": { "format": "{:%H:%M}" } }
EOF
printf '* { font-size: 13px; } window#waybar { background: #f4f4f4; color: #222; }\n' \
    >"$WORK/waybar/style.css"

# A session bus that both users may use: the compositor's side and the app.
bus_config session "$WORK/bus/socket" >"$WORK/bus.conf"
"${as_user[@]}" dbus-daemon --config-file="$WORK/bus.conf" --nofork >"$WORK/bus.log" 2>&1 &
PIDS+=($!)
export DBUS_SESSION_BUS_ADDRESS="unix:path=$WORK/bus/socket"
for _ in $(seq 50); do [[ -S "$WORK/bus/socket" ]] && break; sleep 0.1; done

"${as_user[@]}" env XDG_RUNTIME_DIR="$WORK/rt" WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 \
    WLR_RENDERER=pixman DBUS_SESSION_BUS_ADDRESS="$DBUS_SESSION_BUS_ADDRESS" \
    sway -c "$WORK/sway.conf" >"$WORK/sway.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do ls "$WORK"/rt/wayland-? >/dev/null 2>&1 && break; sleep 0.1; done
export WAYLAND_DISPLAY
WAYLAND_DISPLAY=$(ls "$WORK"/rt/wayland-? | head -1)  # a path: the app may run as another user
export SWAYSOCK
SWAYSOCK=$(ls "$WORK"/rt/sway-ipc.*.sock | head -1)
compositor=("${as_user[@]}" env XDG_RUNTIME_DIR="$WORK/rt" WAYLAND_DISPLAY="$WAYLAND_DISPLAY"
    DBUS_SESSION_BUS_ADDRESS="$DBUS_SESSION_BUS_ADDRESS" SWAYSOCK="$SWAYSOCK")
export HERMES_TRAY_WAYBAR="waybar -c $WORK/waybar/config -s $WORK/waybar/style.css"
if [[ -z "${HERMES_TRAY_NO_BAR:-}" ]]; then
    "${compositor[@]}" $HERMES_TRAY_WAYBAR >"$WORK/waybar.log" 2>&1 &
    PIDS+=($!)
fi
"${compositor[@]}" mako >"$WORK/mako.log" 2>&1 &
PIDS+=($!)
export HERMES_TRAY_VNC_PORT
HERMES_TRAY_VNC_PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${compositor[@]}" wayvnc 127.0.0.1 "$HERMES_TRAY_VNC_PORT" >"$WORK/wayvnc.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$HERMES_TRAY_VNC_PORT") 2>/dev/null && break; sleep 0.1; done

if [[ "${HERMES_TRAY_APP_PLATFORM:-wayland}" == xcb ]]; then  # the app under Xwayland
    "${compositor[@]}" swaymsg exec "echo \$DISPLAY > $WORK/bus/display" >/dev/null
    for _ in $(seq 50); do [[ -s "$WORK/bus/display" ]] && break; sleep 0.1; done
    export DISPLAY
    DISPLAY=$(cat "$WORK/bus/display")
    [[ -n "$DISPLAY" ]] || { echo "try_sway.sh: sway runs no Xwayland" >&2; exit 2; }
    # Xwayland admits only its own user: let this one in (the app may run as another user).
    "${compositor[@]}" env DISPLAY="$DISPLAY" xhost "+SI:localuser:$(id -un)" >/dev/null
fi
export XDG_RUNTIME_DIR="$WORK/app-rt" HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config"
export XDG_DATA_HOME="$WORK/home/.local/share" XDG_STATE_HOME="$WORK/home/.local/state"
export QT_QPA_PLATFORM=wayland NO_AT_BRIDGE=1
export SCREENSHOT_DIR="${SCREENSHOT_DIR:-$ROOT/artifacts/screenshots}"
cd "$ROOT"
status=0
timeout -k 10 180 env PYTHONPATH="$ROOT" "$PY" "$HERE/sway_scene.py" || status=$?
[[ $status == 0 ]] || tail -n 20 "$WORK/sway.log" "$WORK/waybar.log" "$WORK/mako.log" "$WORK/wayvnc.log" >&2
exit "$status"
