#!/usr/bin/env bash
# Notice, open, answer and quit on GNOME Shell, with and without the AppIndicator extension, on
# X11 (Xvfb) and headless Wayland, with the real app's demo.
#
# Not part of the CI tier (a whole GNOME Shell per run; about a minute each): a person runs it,
# on a machine with (Debian 12: GNOME Shell 43.9)
#   apt-get install gnome-shell gnome-shell-extension-appindicator gjs xvfb dbus-daemon
# Each run gets its own HOME (so its own dconf), a private session bus and an empty private
# system bus, so nothing of the machine's is touched. gnome-shell runs with one test extension of
# ours besides AppIndicator: it switches on the shell's unsafe mode so that
# tests/desktop/gnome_scene.py may ask the shell where things are (org.gnome.Shell.Eval), take
# screenshots (org.gnome.Shell.Screenshot) and move a virtual pointer and keyboard (Clutter's
# virtual input devices: real input to the shell and every client, also on headless Wayland,
# which has no input devices). The scene prints one line per check; screenshots go to
# SCREENSHOT_DIR (default artifacts/screenshots).
#
# Usage:  bash tests/desktop/try_gnome.sh [x11|wayland] [appindicator|plain]
#         (no arguments: all four; "plain" is GNOME without the AppIndicator extension)
# Everything runs as you, as in a real session: the Settings portal (do-not-disturb) serves only
# callers of its own user. As root, GNOME shows one banner at start saying it should not be.
# HERMES_TRAY_GNOME_HOLD=/some/file holds each session before the scene, for a look by hand.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PY:-$ROOT/.venv/bin/python}
# shellcheck source=tests/desktop/private_bus.sh
source "$HERE/private_bus.sh"
APPINDICATOR=ubuntu-appindicators@ubuntu.com
TEST_EXTENSION=hermes-tray-test@localhost
for tool in gnome-shell gjs Xvfb dbus-daemon gsettings; do
    command -v "$tool" >/dev/null || { echo "try_gnome.sh: $tool is missing" >&2; exit 2; }
done
extension_dir=""
for dir in /usr/share/gnome-shell/extensions/{"$APPINDICATOR",appindicatorsupport@rgcjonas.gmail.com}; do
    [[ -d "$dir" ]] && { extension_dir=$dir; break; }
done
[[ -n "$extension_dir" ]] || { echo "try_gnome.sh: the AppIndicator extension is missing" >&2; exit 2; }
APPINDICATOR=$(basename "$extension_dir")

displays=() trays=()
for arg in "$@"; do
    case "$arg" in
        x11 | wayland) displays+=("$arg") ;;
        appindicator | plain) trays+=("$arg") ;;
        *) echo "usage: try_gnome.sh [x11|wayland] [appindicator|plain]" >&2; exit 2 ;;
    esac
done
[[ ${#displays[@]} -gt 0 ]] || displays=(x11 wayland)
[[ ${#trays[@]} -gt 0 ]] || trays=(appindicator plain)

WORK="" PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    PIDS=()
    [[ -n "$WORK" ]] && rm -rf "$WORK"
    WORK=""
}
trap cleanup EXIT

one_run() {  # $1 x11|wayland, $2 appindicator|plain
    local display=$1 tray=$2 status=0
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/hermes-tray-gnome.XXXXXX")
    chmod 755 "$WORK"
    local home=$WORK/home
    local extension=$WORK/share/gnome-shell/extensions/$TEST_EXTENSION
    mkdir -p "$WORK/rt" "$WORK/bus" "$WORK/shots" "$home" "$extension"
    chmod 700 "$WORK/rt"
    # The test extension: unsafe mode on (Eval, Screenshot), its own "unsafe mode" banner gone.
    # A system one (in XDG_DATA_DIRS): the shell asks extensions.gnome.org about user ones.
    cat >"$extension/metadata.json" <<EOF
{ "uuid": "$TEST_EXTENSION", "name": "Hermes Tray test access",
  "description": "Unsafe mode for tests/desktop/gnome_scene.py", "shell-version": ["43"] }
EOF
    cat >"$extension/extension.js" <<'EOF'
const Main = imports.ui.main;
function init() {}
function enable() {
    const before = new Set(Main.messageTray.getSources());
    global.context.unsafe_mode = true;
    for (const source of Main.messageTray.getSources())
        if (!before.has(source))
            source.destroy();
}
function disable() { global.context.unsafe_mode = false; }
EOF

    export HOME=$home XDG_CONFIG_HOME=$home/.config XDG_DATA_HOME=$home/.local/share
    export XDG_CACHE_HOME=$home/.cache XDG_STATE_HOME=$home/.local/state XDG_RUNTIME_DIR=$WORK/rt
    export XDG_DATA_DIRS=$WORK/share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}
    export XDG_CURRENT_DESKTOP=GNOME XDG_SESSION_DESKTOP=gnome XDG_SESSION_TYPE=$display
    export DBUS_SESSION_BUS_ADDRESS=unix:path=$WORK/bus/session
    export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$WORK/bus/system
    unset DISPLAY WAYLAND_DISPLAY
    local shell_args=(--replace)
    if [[ $display == x11 ]]; then
        local n=$((60 + RANDOM % 200))
        while [[ -e /tmp/.X11-unix/X$n ]]; do n=$((n + 1)); done
        export DISPLAY=:$n
        nice Xvfb "$DISPLAY" -screen 0 1280x800x24 +extension GLX -nolisten tcp \
            >"$WORK/xvfb.log" 2>&1 &
        PIDS+=($!)
        for _ in $(seq 50); do [[ -e /tmp/.X11-unix/X$n ]] && break; sleep 0.1; done
        shell_args+=(--x11)
    else
        export WAYLAND_DISPLAY=wayland-hermes
        shell_args+=(--wayland --headless --no-x11 --virtual-monitor 1280x800
            --wayland-display wayland-hermes)
    fi
    # Exported before the buses start: what they activate (dconf, the portals) inherits this.
    bus_config system "$WORK/bus/system" >"$WORK/system.conf"
    bus_config session "$WORK/bus/session" activate >"$WORK/session.conf"
    dbus-daemon --config-file="$WORK/system.conf" --nofork \
        >"$WORK/system-bus.log" 2>&1 &
    PIDS+=($!)
    nice dbus-daemon --config-file="$WORK/session.conf" --nofork \
        >"$WORK/session-bus.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 50); do [[ -S $WORK/bus/session && -S $WORK/bus/system ]] && break; sleep 0.1; done

    local extensions="'$TEST_EXTENSION'"
    [[ $tray == appindicator ]] && extensions+=", '$APPINDICATOR'"
    local schema key value
    while read -r schema key value; do
        gsettings set "$schema" "$key" "$value"
    done <<EOF
org.gnome.shell disable-user-extensions false
org.gnome.shell enabled-extensions [$extensions]
org.gnome.shell welcome-dialog-last-shown-version '99'
org.gnome.desktop.session idle-delay 0
org.gnome.desktop.interface enable-animations false
EOF
    nice gnome-shell "${shell_args[@]}" >"$WORK/shell.log" 2>&1 &
    PIDS+=($!)

    export NO_AT_BRIDGE=1
    export QT_QPA_PLATFORM=$([[ $display == x11 ]] && echo xcb || echo wayland)
    export SCREENSHOT_DIR="${SCREENSHOT_DIR:-$ROOT/artifacts/screenshots}"
    export HERMES_TRAY_GNOME_RUN="$display-$tray" HERMES_TRAY_GNOME_SHOTS="$WORK/shots"
    echo "== GNOME Shell, $display, $([[ $tray == plain ]] && echo without || echo with) the AppIndicator extension"
    if [[ -n "${HERMES_TRAY_GNOME_HOLD:-}" ]]; then  # look around by hand: source the env file
        export -p >"$HERMES_TRAY_GNOME_HOLD.env"
        echo "holding; environment in $HERMES_TRAY_GNOME_HOLD.env; remove $HERMES_TRAY_GNOME_HOLD.env to end"
        while [[ -e "$HERMES_TRAY_GNOME_HOLD.env" ]]; do sleep 1; done
    fi
    (cd "$ROOT" && timeout -k 10 240 env PYTHONPATH="$ROOT" nice "$PY" "$HERE/gnome_scene.py") || status=$?
    [[ $status == 0 ]] || tail -n 30 "$WORK/shell.log" >&2
    cleanup
    return "$status"
}

failed=0
for display in "${displays[@]}"; do
    for tray in "${trays[@]}"; do
        one_run "$display" "$tray" || failed=1
    done
done
exit "$failed"
