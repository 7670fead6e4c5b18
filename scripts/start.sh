#!/usr/bin/env bash
# Install Hermes Tray into .venv and start it.
#
#   bash scripts/start.sh [hermes-tray options]     e.g.  --demo   or   --gateway ws://...
#
# Installs the system libraries Qt needs (only the missing ones; as root, or through sudo,
# otherwise it prints the exact apt-get command), creates .venv, runs `pip install -e .`
# (skipped while pyproject.toml is unchanged), then starts `hermes-tray` with your arguments.
# With no gateway configured the tray starts its built-in demo gateway.
#
# Exit status: that of hermes-tray once it started; 1 when installing failed; 3 when it is
# installed but there is no graphical session (DISPLAY and WAYLAND_DISPLAY unset) to show it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

install_runtime_venv() {
    pip_in "$1" pip-runtime -e .
}

say "==> Installing Hermes Tray"
ensure_apt "${APT_QT_OFFSCREEN[@]}" "${APT_QT_XCB[@]}"
PYTHON_BIN=$(find_python) || exit 1
ensure_venv "$ROOT/.venv" "runtime" install_runtime_venv

NO_DISPLAY_EXIT=3
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}${QT_QPA_PLATFORM:-}" ]; then
    {
        say "Hermes Tray is installed, but there is no graphical session here (DISPLAY and"
        say "WAYLAND_DISPLAY are unset), so the tray has nowhere to appear. From a desktop"
        say "session run:"
        say "    .venv/bin/hermes-tray   (plus the options you gave here)"
        say "To check the installation headless instead:"
        say "    QT_QPA_PLATFORM=offscreen bash scripts/start.sh --smoke"
        say "Not started (exit status $NO_DISPLAY_EXIT: installed, no display)."
    } >&2
    exit "$NO_DISPLAY_EXIT"
fi

say "==> Starting hermes-tray"  # not echoing the arguments: a --gateway URL may hold a token
exec "$ROOT/.venv/bin/hermes-tray" "$@"
