#!/usr/bin/env bash
# Where one benchmark's instructions go, function by function, counted by callgrind:
#
#   Benchmarks/scripts/profile.sh SCENARIO CONTENDER [ITERATIONS] [--inclusive | --callers FUNCTION]
#
# Runs the benchmark N and 2N times (N = ITERATIONS, default 2000) and prints, for each function,
# the difference of its instruction counts divided by N: instructions per operation, with set-up
# and start-up cancelled out. Self cost by default; --inclusive adds callees. --callers FUNCTION
# (a symbol as callgrind names it, such as swift_retain) prints instead who calls FUNCTION: per
# caller, the instructions per operation spent in FUNCTION on its behalf and the calls per
# operation. Swift names are demangled. SKIP_BUILD=1 uses the existing release build.
set -euo pipefail

cd "$(dirname "$0")/.."
scenario="${1:?scenario, e.g. S1}"
contender="${2:?contender: manual, knapsack, swinject or swift-dependencies}"
shift 2
iterations=2000
inclusive=no
callee=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --inclusive) inclusive=yes ;;
    --callers)
      callee="${2:?--callers takes a function name, e.g. swift_retain}"
      shift
      ;;
    *) iterations="$1" ;;
  esac
  shift
done

# The caller tree for --callers, else the per-function table.
if [[ -n "$callee" ]]; then annotate=(--tree=caller); else annotate=(--inclusive="$inclusive"); fi

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  swift build -c release --product knapsack-bench >&2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read Swift 6.3's DWARF 5 debug info; the symbol table is enough.
objcopy --strip-debug "$(swift build -c release --show-bin-path)/knapsack-bench" "$work/knapsack-bench"

for n in "$iterations" $((2 * iterations)); do
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$work/out.$n" \
    "$work/knapsack-bench" --scenario "$scenario" --contender "$contender" --iterations "$n" \
    >/dev/null 2>"$work/log"
  callgrind_annotate "${annotate[@]}" --threshold=100 "$work/out.$n" 2>/dev/null >"$work/table.$n"
done

if [[ -n "$callee" ]]; then
  # A caller tree lists each function in a block: its callers' lines (`<`, the cost of their
  # calls into it, and how many), then its own line (`*`).
  python3 - "$work/table.$iterations" "$work/table.$((2 * iterations))" "$iterations" "$callee" <<'PY' \
    | swift demangle --simplified | cut -c1-220
import re, sys

def callers(path, callee):
    found, pending = {}, []
    for line in open(path):
        m = re.match(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?([<*>])\s+(\S+)(?:\s+\(([\d,]+)x\))?", line)
        if not m:
            if not line.strip():
                pending = []
            continue
        cost, mark, name = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
        name = name.split(":", 1)[1] if ":" in name else name
        if mark == "<":
            pending.append((name, cost, int((m.group(4) or "0").replace(",", ""))))
        elif mark == "*":
            if name == callee:
                for caller, cost, calls in pending:
                    total = found.get(caller, (0, 0))
                    found[caller] = (total[0] + cost, total[1] + calls)
            pending = []
    return found

first = callers(sys.argv[1], sys.argv[4])
second = callers(sys.argv[2], sys.argv[4])
n = int(sys.argv[3])
rows = []
for caller, (cost, calls) in second.items():
    cost0, calls0 = first.get(caller, (0, 0))
    rows.append(((cost - cost0) / n, (calls - calls0) / n, caller))
print(f"{sum(r[0] for r in rows):10.1f}  {sum(r[1] for r in rows):6.2f}  TOTAL in {sys.argv[4]} per operation (instructions, calls)")
for per_op, calls, caller in sorted(rows, reverse=True):
    if per_op >= 1:
        print(f"{per_op:10.1f}  {calls:6.2f}  {caller}")
PY
  exit 0
fi

python3 - "$work/table.$iterations" "$work/table.$((2 * iterations))" "$iterations" <<'PY' \
  | swift demangle --simplified | cut -c1-220
import re, sys

def read(path):
    costs, total = {}, 0
    for line in open(path):
        m = re.match(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$", line)
        if not m:
            continue
        count, name = int(m.group(1).replace(",", "")), m.group(2).strip()
        if name.startswith("PROGRAM TOTALS"):
            total = count
        elif ":" in name:
            name = re.sub(r"^\S*?:", "", name, count=1) if name.startswith("???:") or "/" in name.split(":")[0] else name
            name = re.sub(r" \[[^\]]*\]$", "", name)
            costs[name] = costs.get(name, 0) + count
    return costs, total

first, total1 = read(sys.argv[1])
second, total2 = read(sys.argv[2])
n = int(sys.argv[3])
print(f"{(total2 - total1) / n:10.1f}  TOTAL instructions per operation")
rows = sorted(((second.get(k, 0) - first.get(k, 0)) / n, k) for k in set(first) | set(second))
for per_op, name in reversed(rows):
    if per_op >= 1:
        print(f"{per_op:10.1f}  {name}")
PY
