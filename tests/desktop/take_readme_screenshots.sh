#!/usr/bin/env bash
# Retake the README's screenshots from the built-in demo on a throw-away desktop.
#
# Runs tests/desktop/test_demo_screenshot.py through run_desktop_tests.sh (Xvfb, private session
# bus, xfce4-panel as the tray host, xfce4-notifyd): the real `hermes-tray --demo` process, its
# panel-drawn tray menu opened on the webshop session (usage, plan, YOLO), and the grouped
# approval dialog with the three-command batch. Nothing in the demo runs a command.
#
# Usage:  bash tests/desktop/take_readme_screenshots.sh
# Writes: docs/screenshots/tray-menu.png and docs/screenshots/approval-dialog.png
#         (README_SCREENSHOT_DIR overrides the folder; full-screen captures go to a temp dir
#         unless SCREENSHOT_DIR is set). Needs the packages listed in run_desktop_tests.sh.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${README_SCREENSHOT_DIR:-$ROOT/docs/screenshots}
mkdir -p "$OUT"
CAPTURES=${SCREENSHOT_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/hermes-tray-captures.XXXXXX")}
STAMP=$(mktemp)
trap 'rm -f "$STAMP"' EXIT

SCREENSHOT_DIR="$CAPTURES" README_SCREENSHOT_DIR="$OUT" \
    bash "$HERE/run_desktop_tests.sh" -q -rs -k test_readme_screenshots_from_the_demo

# A skipped test exits 0 too: insist on fresh files.
for name in tray-menu.png approval-dialog.png; do
    if [[ ! "$OUT/$name" -nt "$STAMP" ]]; then
        echo "take_readme_screenshots.sh: $OUT/$name was not written (test skipped?)" >&2
        exit 1
    fi
done
echo "wrote $OUT/tray-menu.png and $OUT/approval-dialog.png (full captures in $CAPTURES)"
