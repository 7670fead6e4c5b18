#!/usr/bin/env bash
# Run the e2e scenario that uses real X input (pytest marker "desktop") on a throw-away Xvfb
# with the xcb platform. Needs: xvfb xauth libxcb-icccm4 libxcb-keysyms1 xdotool, and the real
# Hermes venvs (python -m tests.peers.hermes_venv --all, or scripts/test.sh phase 2).
#
# Usage:  bash tests/e2e/run_xvfb.sh [extra pytest args]
# Only tests/e2e is collected, so no other tier's desktop requirements apply here.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PY:-$ROOT/.venv/bin/python}
for tool in xvfb-run xdotool; do
    command -v "$tool" >/dev/null || { echo "run_xvfb.sh: $tool is missing" >&2; exit 2; }
done
RUNTIME=$(mktemp -d "${TMPDIR:-/tmp}/hermes-tray-e2e-xvfb.XXXXXX")
trap 'rm -rf "$RUNTIME"' EXIT
chmod 700 "$RUNTIME"
cd "$ROOT"
timeout -k 10 600 xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
    env QT_QPA_PLATFORM=xcb XDG_RUNTIME_DIR="$RUNTIME" NO_AT_BRIDGE=1 \
    "$PY" -m pytest -p no:cacheprovider -m "desktop and realhermes" tests/e2e "$@"
