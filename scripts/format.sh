#!/usr/bin/env bash
# Checks (default) or applies (--fix) the repository's swift-format style, configured in
# .swift-format at the repository root. Uses the `swift format` that ships with the toolchain.
#
#   bash scripts/format.sh          # lint every package's Swift code; exit 1 on any finding
#   bash scripts/format.sh --fix    # format it in place, then lint again
#
# Covers the library (Sources, Tests, Plugins), Examples/TodoShowcase and Benchmarks, naming
# their source folders so that build folders are never walked.
set -euo pipefail

cd "$(dirname "$0")/.."

paths=()
for path in Package.swift Sources Tests Plugins \
  Examples/TodoShowcase/Package.swift Examples/TodoShowcase/Sources Examples/TodoShowcase/Tests Examples/TodoShowcase/Plugins \
  Benchmarks/Package.swift Benchmarks/Sources Benchmarks/Tests Benchmarks/Plugins; do
  if [[ -e "$path" ]]; then paths+=("$path"); fi
done

case "${1:-}" in
  --fix)
    swift format format --in-place --parallel --recursive "${paths[@]}"
    ;;
  "" | --lint)
    ;;
  *)
    echo "usage: $0 [--fix]" >&2
    exit 2
    ;;
esac

if swift format lint --strict --parallel --recursive "${paths[@]}"; then
  echo "format: no findings in ${paths[*]}"
else
  echo "format: swift format reported findings (run 'bash scripts/format.sh --fix' to apply the style)" >&2
  exit 1
fi
