#!/usr/bin/env bash
# Regenerates everything derived from results/latest.json (results/latest.md, results/latest.svg,
# the results section of Benchmarks/README.md and the benchmark summary of README.md), or with
# --check fails when any committed copy differs from what the JSON gives. ci.sh runs the check.
#
#   bash Benchmarks/scripts/tables.sh            # after a run: publish.sh calls this
#   bash Benchmarks/scripts/tables.sh --check
# Environment: SKIP_BUILD=1 uses the existing release build.
set -euo pipefail

cd "$(dirname "$0")/.."
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  swift build -c release --product knapsack-bench >&2
fi
bin="$(swift build -c release --show-bin-path)/knapsack-bench"
# The run's date and machine, as the run printed them (second line of results/latest.txt).
line=$(sed -n 2p results/latest.txt)
date="${line%%, *}"
machine="${line#*, }"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$bin" render --json results/latest.json --svg "$out/latest.svg" --markdown "$out/latest.md" \
  --date "$date" --machine "$machine" >/dev/null
python3 scripts/tables.py "$out" ${1:-}
