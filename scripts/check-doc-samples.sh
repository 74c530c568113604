#!/usr/bin/env bash
# Checks that every line of every ```swift code block in the DocC catalog also appears in
# Tests/KnapsackTests/DocumentationSamplesTests.swift, which compiles and runs the samples.
# Lines are compared with surrounding whitespace and trailing `  // comments` removed, and
# `public import X` read as `import X`; blank lines
# and comment-only lines are ignored. A block preceded by the line `<!-- not compiled -->` (for
# example a Package.swift excerpt) is skipped.
#
#   bash scripts/check-doc-samples.sh    # exit 1 and list the lines that have no match
set -euo pipefail

cd "$(dirname "$0")/.."

catalog=Sources/Knapsack/Knapsack.docc
samples=Tests/KnapsackTests/DocumentationSamplesTests.swift

normalize='
  function norm(line) {
    sub(/[ \t]+\/\/ .*$/, "", line)   # trailing comment after whitespace
    gsub(/^[ \t]+|[ \t]+$/, "", line)
    sub(/^public import /, "import ", line)   # the samples file re-exposes what it imports
    return line
  }
'

known=$(mktemp)
trap 'rm -f "$known"' EXIT
awk "$normalize"'{ l = norm($0); if (l != "" && l !~ /^\/\//) print l }' "$samples" | sort -u >"$known"

missing=0
checked=0
for article in "$catalog"/*.md; do
  while IFS=$'\t' read -r line_number text; do
    if ! grep -Fxq -- "$text" "$known"; then
      echo "$article:$line_number: not in $samples: $text" >&2
      missing=$((missing + 1))
    fi
    checked=$((checked + 1))
  done < <(awk "$normalize"'
    /^[ \t]*```swift[ \t]*$/ { if (!skip) inside = 1; skip = 0; next }
    /^[ \t]*```/ { inside = 0; skip = 0; next }
    inside { l = norm($0); if (l != "" && l !~ /^\/\//) print FNR "\t" l; next }
    /^<!-- not compiled -->[ \t]*$/ { skip = 1; next }
    /[^ \t]/ { skip = 0 }
  ' "$article")
done

if ((missing > 0)); then
  echo "doc samples: $missing of $checked sample lines are not in $samples" >&2
  exit 1
fi
echo "doc samples: all $checked sample lines appear in $samples"
