#!/usr/bin/env bash
# Instructions per operation for every scenario and contender, counted by valgrind's callgrind:
# deterministic, so a change in cost shows without timing noise (the same binary and inputs give
# the same count on a loaded machine).
#
#   Benchmarks/scripts/instructions.sh [SCENARIO ...]       # default: all but S5
#
# S3/scope-open, a variant only Knapsack has, is counted for Knapsack alone.
#
# Each benchmark runs twice, N and 2N iterations, in the instruction-count mode of knapsack-bench
# (`--scenario S --contender C --iterations N`); the difference of the two totals divided by N
# is the cost of one operation, with set-up and process start-up cancelled out.
# S5 (threads) is left out: a spinning start barrier makes its count vary, and callgrind runs
# threads one at a time anyway. Environment: SKIP_BUILD=1 to use the existing release build.
set -euo pipefail

cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  swift build -c release --product knapsack-bench >&2
fi
binary="$(swift build -c release --show-bin-path)/knapsack-bench"

scenarios=("$@")
if [[ ${#scenarios[@]} -eq 0 ]]; then
  scenarios=(S1 S2 S3 S3/scope-open S4/1000 S4/10000 S6 S7 S7/10000)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the DWARF 5 debug info Swift 6.3 emits: profile a copy without it
# (the symbol table, and so function names, stay).
objcopy --strip-debug "$binary" "$work/knapsack-bench"
binary="$work/knapsack-bench"

# Deterministic Swift hashing, so dictionary layouts (and so counts) repeat run to run.
export SWIFT_DETERMINISTIC_HASHING=1

count() {  # scenario contender iterations -> total instructions, or "n/a"
  local out="$work/callgrind.out"
  local log
  if ! log="$(valgrind --tool=callgrind --callgrind-out-file="$out" \
      "$binary" --scenario "$1" --contender "$2" --iterations "$3" 2>/dev/null)"; then
    echo "failed"
    return
  fi
  if [[ "$log" == *": n/a"* ]]; then
    echo "n/a"
    return
  fi
  awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

printf '%-14s %-20s %16s\n' scenario contender instructions/op
for scenario in "${scenarios[@]}"; do
  case "$scenario" in
    S3/*) contenders=(knapsack) ;;
    *) contenders=(manual knapsack swinject swift-dependencies) ;;
  esac
  case "$scenario" in
    S4/*|S7/10000) n=2 ;;
    S3/*) n=20000 ;;  # a thread started in the set-up: more iterations, so its cost cancels out
    *) n=1000 ;;
  esac
  for contender in "${contenders[@]}"; do
    first="$(count "$scenario" "$contender" "$n")"
    if [[ "$first" == "n/a" || "$first" == "failed" ]]; then
      printf '%-14s %-20s %16s\n' "$scenario" "$contender" "$first"
      continue
    fi
    second="$(count "$scenario" "$contender" $((2 * n)))"
    printf '%-14s %-20s %16s\n' "$scenario" "$contender" "$(( (second - first) / n ))"
  done
done
