#!/usr/bin/env bash
# What the library's @inlinable and @usableFromInline annotations buy, measured: builds the
# committed head in a temporary clone with every one of them removed from Sources/Knapsack, counts
# the regression gate's scenarios there under callgrind, and writes the gate's comparison with the
# committed baseline (measured with the annotations) to results/inlining.txt.
#
#   bash Benchmarks/scripts/inlining.sh    # about ten minutes: a clean release build, then the gate
#
# Not run by CI: it answers "is each annotation worth it" when someone asks, and the answer is the
# file it writes.
set -euo pipefail

cd "$(dirname "$0")/.."
benchmarks=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

git clone -q "$(git rev-parse --show-toplevel)" "$work/repo"
head=$(git -C "$work/repo" rev-parse --short HEAD)
find "$work/repo/Sources/Knapsack" -name '*.swift' -exec sed -i -E \
  's/@inlinable //g; s/^([[:space:]]*)@inlinable$/\1/; s/@usableFromInline //g; s/^([[:space:]]*)@usableFromInline$/\1/' {} +
left=$( (grep -rhoE '@inlinable|@usableFromInline' "$work/repo/Sources/Knapsack" || true) | wc -l)
if [[ "$left" != 0 ]]; then
  echo "inlining: $left annotations left after removal; extend the patterns" >&2
  exit 1
fi

echo "inlining: building $head without the annotations (a clean release build)" >&2
(cd "$work/repo/Benchmarks" && swift build -c release --product knapsack-bench >&2)
# The gate fails on purpose here (every figure is worse): its table is the result.
table=$(cd "$work/repo/Benchmarks" && SKIP_BUILD=1 bash scripts/gate.sh 2>&1 | grep -E '^(scenario|S[0-9])' || true)
if [[ -z "$table" ]]; then
  echo "inlining: the gate printed no figures" >&2
  exit 1
fi
{
  echo "Knapsack at $head with every @inlinable and @usableFromInline removed from Sources/Knapsack"
  echo "(\"now\") against the committed gate baseline, which has them (\"baseline\"); per operation,"
  echo "counted under callgrind by scripts/gate.sh. Written by scripts/inlining.sh."
  echo
  echo "$table"
} >"$benchmarks/results/inlining.txt"
cat "$benchmarks/results/inlining.txt"
