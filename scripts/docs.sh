#!/usr/bin/env bash
# Checks the documentation without adding a package dependency:
#   1. builds the library with symbol graphs (own scratch path, .build-docs),
#   2. converts the Knapsack DocC catalog, and the KnapsackTesting symbols, with the toolchain's
#      `docc`, treating every DocC warning as an error,
#   3. checks that every ```swift sample in the catalog appears in the compiled and tested
#      Tests/KnapsackTests/DocumentationSamplesTests.swift (scripts/check-doc-samples.sh).
# Exits non-zero if any step fails or DocC reports a warning.
#
#   bash scripts/docs.sh                 # check
#   DOCS_OUTPUT=/tmp/site bash scripts/docs.sh   # also keep the built .doccarchive folders there
set -euo pipefail

cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
output=${DOCS_OUTPUT:-$work/out}
mkdir -p "$work/symbols" "$output"

docc=$(command -v docc || true)
if [[ -z "$docc" ]]; then
  swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
  if [[ -x "$swift_bin/docc" ]]; then docc="$swift_bin/docc"; fi
fi
if [[ -z "$docc" ]]; then
  echo "docs: no docc binary in the toolchain" >&2
  exit 1
fi

echo "docs: building symbol graphs"
bash scripts/symbol-graphs.sh "$work/symbols" || {
  echo "docs: build failed" >&2
  exit 1
}

status=0

# convert MODULE [CATALOG]: one archive per module, from that module's symbol graphs only.
convert() {
  local module=$1 catalog=${2:-}
  local symbols="$work/symbols-$module"
  mkdir -p "$symbols"
  cp "$work/symbols/$module".symbols.json "$symbols/"
  cp "$work/symbols/$module"@*.symbols.json "$symbols/" 2>/dev/null || true
  local args=(convert)
  [[ -n "$catalog" ]] && args+=("$catalog")
  args+=(
    --additional-symbol-graph-dir "$symbols"
    --output-path "$output/$module.doccarchive"
    --fallback-display-name "$module"
    --fallback-bundle-identifier "$module"
    --warnings-as-errors
  )
  echo "docs: docc convert $module${catalog:+ ($catalog)}"
  if ! "$docc" "${args[@]}" >"$work/$module.log" 2>&1 || grep -Eq '^(warning|error):' "$work/$module.log"; then
    cat "$work/$module.log" >&2
    echo "docs: DocC reported problems in $module" >&2
    status=1
  fi
}

convert Knapsack Sources/Knapsack/Knapsack.docc
convert KnapsackTesting

bash scripts/check-doc-samples.sh || status=1

if ((status == 0)); then
  echo "docs: no DocC warnings; samples in step with the tests"
fi
exit "$status"
