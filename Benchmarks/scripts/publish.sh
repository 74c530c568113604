#!/usr/bin/env bash
# Runs the full benchmark in release mode (plus the debug-built stack-per-level, whose figure goes
# on the S8 row) and publishes it: results/latest.json and latest.txt,
# then scripts/tables.sh derives latest.svg, latest.md and the README tables from the JSON.
#   Benchmarks/scripts/publish.sh [--instructions]
# --instructions also runs scripts/instructions.sh and puts its table in the README.
set -euo pipefail

cd "$(dirname "$0")/.."
swift build -c release --product knapsack-bench
bin="$(swift build -c release --show-bin-path)/knapsack-bench"
# The debug build's stack per level comes from a small debug-built executable.
swift build --product stack-per-level
debug_stack=$("$(swift build --show-bin-path)/stack-per-level" | sed -n 's/.*(debug): \([0-9]*\) bytes$/\1/p')
"$bin" --json results/latest.json --debug-stack-bytes "$debug_stack" | tee results/latest.txt
if [[ "${1:-}" == "--instructions" ]]; then
  SKIP_BUILD=1 scripts/instructions.sh | tee results/instructions.txt
fi

SKIP_BUILD=1 bash scripts/tables.sh
