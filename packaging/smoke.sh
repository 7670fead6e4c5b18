#!/usr/bin/env bash
# Smoke-test a built bundle: run it with --smoke under Xvfb in a private D-Bus session.
#
#   bash packaging/smoke.sh [path/to/hermes-tray]      (default: dist/hermes-tray/hermes-tray)
#
# --smoke (the app's own flag) starts the built-in demo gateway, shows the tray, waits for one
# approval and exits 0. This script only gives it a display, a session bus and throw-away
# directories, and turns "hung" into a failure. It never touches the real user config: every
# directory the app uses points into a temporary folder that is removed afterwards.
#
# Needs: xvfb (xvfb-run, xauth) and dbus-daemon (dbus-run-session); both are apt packages.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
APP=${1:-$ROOT/dist/hermes-tray/hermes-tray}
TIMEOUT=${SMOKE_TIMEOUT:-60}

if [ ! -x "$APP" ]; then
    echo "error: no executable at $APP; build it first: bash packaging/build_pyinstaller.sh" >&2
    exit 2
fi
for tool in xvfb-run dbus-run-session timeout; do
    if ! command -v "$tool" >/dev/null; then
        echo "error: $tool is missing (apt-get install xvfb xauth dbus-daemon coreutils)" >&2
        exit 2
    fi
done

scratch=$(mktemp -d -t hermes-tray-smoke.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
mkdir -m 700 "$scratch/run"

# A clean, private environment: nothing from the caller's desktop session leaks in.
env_args=(
    HOME="$scratch/home"
    XDG_CONFIG_HOME="$scratch/xdg-config"
    XDG_DATA_HOME="$scratch/xdg-data"
    XDG_STATE_HOME="$scratch/xdg-state"
    XDG_CACHE_HOME="$scratch/xdg-cache"
    XDG_RUNTIME_DIR="$scratch/run"
    HERMES_TRAY_CONFIG_DIR="$scratch/config"
    HERMES_TRAY_DATA_DIR="$scratch/data"
    HERMES_TRAY_LOG_DIR="$scratch/log"
    PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring
    QT_QPA_PLATFORM=xcb
    NO_AT_BRIDGE=1
)

echo "smoke: $APP --smoke (timeout ${TIMEOUT}s)"
start=$(date +%s)
set +e
xvfb-run -a -s "-screen 0 1280x800x24" \
    dbus-run-session -- \
    env "${env_args[@]}" \
    timeout -k 5 "$TIMEOUT" "$APP" --smoke --log-level INFO
rc=$?
set -e
end=$(date +%s)

case $rc in
    0) echo "smoke: PASS in $((end - start)) s" ;;
    124 | 137) echo "smoke: FAIL, no exit within ${TIMEOUT}s (hung?)" >&2 ;;
    *) echo "smoke: FAIL, exit status $rc after $((end - start)) s" >&2 ;;
esac
exit "$rc"
