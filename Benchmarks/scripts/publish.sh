#!/usr/bin/env bash
# Runs the full benchmark in release mode and publishes it: results/latest.json, latest.svg,
# latest.md, and the table in README.md between the results markers.
#   Benchmarks/scripts/publish.sh [--instructions]
# --instructions also runs scripts/instructions.sh and puts its table in the README.
set -euo pipefail

cd "$(dirname "$0")/.."
swift build -c release --product knapsack-bench
bin="$(swift build -c release --show-bin-path)/knapsack-bench"
"$bin" --json results/latest.json --svg results/latest.svg --markdown results/latest.md | tee results/latest.txt
if [[ "${1:-}" == "--instructions" ]]; then
  SKIP_BUILD=1 scripts/instructions.sh | tee results/instructions.txt
fi

python3 scripts/update_readme.py
