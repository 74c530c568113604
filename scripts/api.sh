#!/usr/bin/env bash
# The public API of Knapsack and KnapsackTesting, one declaration per line, generated from the
# compiler's symbol graphs, and checked in as api/*.txt so that every API change shows in a diff.
#
#   bash scripts/api.sh          # regenerate api/Knapsack.txt and api/KnapsackTesting.txt
#   bash scripts/api.sh --check  # fail (listing the difference) if the checked-in lists are stale
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-write}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash scripts/symbol-graphs.sh "$work" || {
  echo "api: build failed" >&2
  exit 1
}

status=0
for module in Knapsack KnapsackTesting; do
  python3 - "$work" "$module" >"$work/$module.txt" <<'PY'
import glob, json, os, sys
work, module = sys.argv[1], sys.argv[2]
lines = set()
for path in [os.path.join(work, f"{module}.symbols.json")] + glob.glob(os.path.join(work, f"{module}@*.symbols.json")):
    graph = json.load(open(path))
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") != "public":
            continue
        # Copies of protocol-extension members on each conforming type: listed once, on the protocol.
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        if symbol["pathComponents"] and symbol["pathComponents"][-1].startswith("_"):
            continue
        declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
        declaration = " ".join(declaration.split())
        owner = ".".join(symbol["pathComponents"][:-1])
        lines.add(f"{owner + ': ' if owner else ''}{declaration}")
for line in sorted(lines):
    print(line)
PY
  count=$(wc -l <"$work/$module.txt")
  if [[ "$mode" == "--check" ]]; then
    if ! diff -u "api/$module.txt" "$work/$module.txt"; then
      echo "api: api/$module.txt is out of date; run 'bash scripts/api.sh' and commit the change" >&2
      status=1
    else
      echo "api: $module matches api/$module.txt ($count public declarations)"
    fi
  else
    cp "$work/$module.txt" "api/$module.txt"
    echo "api: wrote api/$module.txt ($count public declarations)"
  fi
done
exit $status
