# shellcheck shell=bash
# Helpers shared by scripts/start.sh and scripts/test.sh (sourced, not run).
#
# Why one file: both scripts must find Python and install system and Python packages the same
# way, quietly (full output goes to .cache/setup-logs/, and its tail is shown if a step fails),
# and fast on a second run (nothing to install means no apt and no pip at all).

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SETUP_LOGS="$ROOT/.cache/setup-logs"
STAMP_PREFIX=".hermes-tray-installed"
APT_UPDATED=0
PHASE_STARTED=$SECONDS
PHASE_NAME=""
PHASE_TIMES=()

# What Qt needs to start at all (offscreen) and to show windows on X11/XWayland (xcb).
# shared/stack.md §2 found these with ldd on every Qt library and plugin of a bare Debian 12.
# shellcheck disable=SC2034  # used by the scripts that source this file
APT_QT_OFFSCREEN=(libgl1 libegl1 libfontconfig1 libglib2.0-0 libdbus-1-3 libxkbcommon0)
# shellcheck disable=SC2034
APT_QT_XCB=(libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxkbcommon-x11-0)

say() { printf '%s\n' "$*"; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# phase NAME: start a timed phase (the previous one's time is recorded and printed).
phase() {
    end_phase
    PHASE_NAME=$1
    PHASE_STARTED=$SECONDS
    say "==> $PHASE_NAME"
}
end_phase() {
    if [ -n "$PHASE_NAME" ]; then
        PHASE_TIMES+=("$(printf '%5ss  %s' "$((SECONDS - PHASE_STARTED))" "$PHASE_NAME")")
        PHASE_NAME=""
    fi
}
print_phase_times() {
    end_phase
    say "Timings so far:"
    printf '    %s\n' "${PHASE_TIMES[@]}"
}

# run_logged NAME COMMAND...: run quietly into .cache/setup-logs/NAME.log; on failure show its
# last lines and return the command's status.
run_logged() {
    local name=$1 status=0
    shift
    mkdir -p "$SETUP_LOGS"
    "$@" >"$SETUP_LOGS/$name.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        say "!! '$*' failed ($status). Last lines of $SETUP_LOGS/$name.log:" >&2
        tail -n 30 "$SETUP_LOGS/$name.log" | sed 's/^/   /' >&2
    fi
    return "$status"
}

# missing_apt PACKAGE...: print the packages dpkg does not have installed. Debian 13 and
# Ubuntu 24.04 renamed some libraries with a "t64" suffix; either name counts as installed.
missing_apt() {
    local package
    for package in "$@"; do
        # dpkg-query fails when either name is unknown; only its output matters here.
        if ! { dpkg-query -W -f='${db:Status-Status}\n' "$package" "${package}t64" 2>/dev/null ||
            true; } | grep -qx installed; then
            printf '%s\n' "$package"
        fi
    done
}

# ensure_apt PACKAGE...: install the missing ones (as root, or through sudo), running
# `apt-get update` at most once per script run. Without root or sudo, say exactly what to run.
ensure_apt() {
    if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
        say "Not a Debian-like system: make sure the equivalents of these are installed: $*"
        return 0
    fi
    local missing
    mapfile -t missing < <(missing_apt "$@")
    if [ "${#missing[@]}" -eq 0 ]; then
        say "    system packages: all ${#@} present"
        return 0
    fi
    local -a sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
            sudo=(sudo)
        else
            say "These system packages are missing; install them, then run this script again:" >&2
            say "    sudo apt-get install --no-install-recommends ${missing[*]}" >&2
            return 1
        fi
    fi
    say "    installing ${#missing[@]} system package(s): ${missing[*]}"
    if [ "$APT_UPDATED" -eq 0 ]; then
        run_logged apt-update "${sudo[@]}" apt-get update -q || return
        APT_UPDATED=1
    fi
    run_logged apt-install "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# find_python: print a Python >= 3.11 that can make venvs, installing Debian's if need be.
find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3 python3.13 python3.12 python3.11; do
        if [ -n "$candidate" ] && command -v "$candidate" >/dev/null &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            if ! "$candidate" -c 'import ensurepip, venv' 2>/dev/null; then
                ensure_apt python3-venv >&2 || return
            fi
            printf '%s\n' "$candidate"
            return 0
        fi
    done
    ensure_apt python3 python3-venv >&2 || return
    if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        die "Hermes Tray needs Python 3.11 or newer; set PYTHON=/path/to/python3.11 and retry"
    fi
    printf 'python3\n'
}

# project_hash: changes whenever what `pip install` would do changes.
project_hash() {
    cat "$ROOT/pyproject.toml" "$ROOT/setup.py" | sha256sum | cut -c1-16
}

# inputs_hash PATH...: a hash of the names and contents of every file under the PATHs (relative
# to $ROOT; bytecode caches ignored). It changes whenever one of a build's inputs changes.
inputs_hash() {
    (
        cd "$ROOT" &&
            find "$@" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 |
            LC_ALL=C sort -z | xargs -0 -r sha256sum
    ) | sha256sum | cut -c1-16
}

# ensure_venv DIR "LABEL..." INSTALL_FUNCTION: create DIR with $PYTHON_BIN if needed and run
# INSTALL_FUNCTION DIR, unless DIR holds a stamp for the first LABEL with the current project
# hash. Afterwards every LABEL is stamped (a test venv also satisfies the plain runtime).
ensure_venv() {
    local dir=$1 install=$3 label key
    local -a labels
    read -r -a labels <<<"$2"
    key=$(project_hash)
    if "$dir/bin/python" -c pass 2>/dev/null &&
        [ "$(cat "$dir/$STAMP_PREFIX-${labels[0]}" 2>/dev/null)" = "$key" ]; then
        say "    ${dir#"$ROOT"/}: up to date (${labels[0]})"
        return 0
    fi
    if ! "$dir/bin/python" -c pass 2>/dev/null; then
        say "    creating ${dir#"$ROOT"/} with $("$PYTHON_BIN" -c 'import sys; print(sys.version.split()[0])')"
        run_logged "venv-${labels[0]}" "$PYTHON_BIN" -m venv --clear "$dir" || return
    fi
    say "    pip installing into ${dir#"$ROOT"/} (${labels[0]})"
    rm -f "$dir/$STAMP_PREFIX"-*
    "$install" "$dir" || return
    for label in "${labels[@]}"; do
        printf '%s\n' "$key" >"$dir/$STAMP_PREFIX-$label"
    done
}

# pip_in DIR NAME ARGS...: a quiet pip install into DIR's venv, logged as NAME.
pip_in() {
    local dir=$1 name=$2
    shift 2
    run_logged "$name" env PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 \
        "$dir/bin/python" -m pip install --progress-bar off "$@"
}
