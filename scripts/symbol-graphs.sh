#!/usr/bin/env bash
# Builds Knapsack and KnapsackTesting in their own scratch path (.build-docs) and writes their
# public symbol graphs to DIR, for scripts/docs.sh.
#
#   bash scripts/symbol-graphs.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
mkdir -p "$out"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift build --scratch-path .build-docs --target KnapsackTesting \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$out" \
  -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public >"$log" 2>&1 || {
  cat "$log" >&2
  echo "symbol graphs: build failed" >&2
  exit 1
}
