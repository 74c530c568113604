#!/usr/bin/env bash
# The public API of Knapsack and KnapsackTesting, one declaration per line, listed from the
# compiler's symbol graphs and checked in as api/*.txt so that every API change shows in a diff.
# The listing is the test PublicAPITests (Tests/KnapsackTests/PublicAPITests.swift), so a plain
# `swift test` fails when a list is out of date; this script runs just that test.
#
#   bash scripts/api.sh          # regenerate api/Knapsack.txt and api/KnapsackTesting.txt
#   bash scripts/api.sh --check  # fail (listing the difference) if the checked-in lists are stale
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-write}" in
  write) KNAPSACK_UPDATE_API=1 swift test --filter PublicAPITests ;;
  --check) swift test --filter PublicAPITests ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 2
    ;;
esac
for module in Knapsack KnapsackTesting; do
  echo "api: api/$module.txt ($(wc -l <"api/$module.txt") public declarations)"
done
