#!/usr/bin/env bash
# Keeps the benchmarks compiling and running: builds knapsack-bench in release mode and runs every
# scenario once with short samples. Prints the table; asserts nothing about timing.
set -euo pipefail

cd "$(dirname "$0")/.."
swift build -c release --product knapsack-bench
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$(swift build -c release --show-bin-path)/knapsack-bench" --quick --json "$out/results.json" --svg "$out/results.svg"
# The outputs must exist and parse; their numbers are not checked.
python3 -c 'import json, sys; assert isinstance(json.load(open(sys.argv[1])), list)' "$out/results.json"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$out/results.svg"
echo "benchmarks: quick run OK"
"$(swift build -c release --show-bin-path)/knapsack-bench" deep-chain
SKIP_BUILD=1 bash scripts/tables.sh --check
SKIP_BUILD=1 bash scripts/gate.sh
