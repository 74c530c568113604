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
import glob, json, os, re, sys
work, module = sys.argv[1], sys.argv[2]
lines = set()
for path in [os.path.join(work, f"{module}.symbols.json")] + glob.glob(os.path.join(work, f"{module}@*.symbols.json")):
    graph = json.load(open(path))
    for symbol in graph["symbols"]:
        # Everything a client can use: public and open declarations, underscored names included.
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        # Copies of protocol-extension members on each conforming type: listed once, on the protocol.
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
        declaration = " ".join(declaration.split())
        owner = ".".join(symbol["pathComponents"][:-1])
        lines.add(f"{owner + ': ' if owner else ''}{declaration}")
# The compiler leaves public declarations whose names start with "_" out of its symbol graphs;
# find them in the sources, so that adding one shows in the diff too.
pattern = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:[a-z]+\s+)*?"
                     r"(?:func|var|let|class|struct|enum|protocol|typealias|actor)\s+(_\w*)")
for root, _, files in os.walk(os.path.join("Sources", module)):
    for name in files:
        if name.endswith(".swift"):
            for text in open(os.path.join(root, name), encoding="utf-8"):
                if pattern.match(text):
                    lines.add(f"(underscored, not in the symbol graph) {' '.join(text.split('{')[0].split())}")
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
