#!/usr/bin/env bash
# The big decision-safety campaign: far more interleavings than CI runs, on every core.
#
#   scripts/safety_campaign.sh            # scale 10: 170k core runs (17M steps) + tests/safety x5
#   HERMES_TRAY_CAMPAIGN_SCALE=50 scripts/safety_campaign.sh
#   scripts/safety_campaign.sh -k e2e     # extra arguments go to pytest
#
# Step 1 runs the seeded core campaign in parallel processes (tests/safety/campaign_cli.py) and
# also measures the 0.19.0 hazards that need two pending approvals per session (reported, not
# failed on). Step 2 runs the whole tests/safety tier with every campaign in it scaled up
# (hypothesis examples, end-to-end scenarios, fuzzing), and prints the interleaving count.
# Nothing leaves 127.0.0.1. Exit status is non-zero if any invariant broke.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
SCALE="${HERMES_TRAY_CAMPAIGN_SCALE:-10}"
# The pytest tier includes real-socket scenarios; scale it at most 5x unless told otherwise.
PYTEST_SCALE="${HERMES_TRAY_PYTEST_SCALE:-$(awk -v s="$SCALE" 'BEGIN { print (s > 5) ? 5 : s }')}"

echo "== core campaign (scale ${SCALE}) =="
PYTHONPATH=. "$PY" -m tests.safety.campaign_cli --scale "$SCALE" --hazards

echo "== tests/safety (scale ${PYTEST_SCALE}) =="
HERMES_TRAY_CAMPAIGN_SCALE="$PYTEST_SCALE" "$PY" -m pytest tests/safety -q -p no:cacheprovider \
    -o timeout=3600 "$@"
