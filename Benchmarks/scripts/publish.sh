#!/usr/bin/env bash
# Runs the full benchmark in release mode and publishes it: results/latest.json and latest.txt,
# then scripts/tables.sh derives latest.svg, latest.md and the README tables from the JSON.
#   Benchmarks/scripts/publish.sh [--instructions]
# --instructions also runs scripts/instructions.sh and puts its table in the README.
set -euo pipefail

cd "$(dirname "$0")/.."
swift build -c release --product knapsack-bench
bin="$(swift build -c release --show-bin-path)/knapsack-bench"
"$bin" --json results/latest.json | tee results/latest.txt
if [[ "${1:-}" == "--instructions" ]]; then
  SKIP_BUILD=1 scripts/instructions.sh | tee results/instructions.txt
fi

SKIP_BUILD=1 bash scripts/tables.sh
