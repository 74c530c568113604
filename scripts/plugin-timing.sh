#!/usr/bin/env bash
# Measures the build-time graph check on Examples/TodoShowcase's whole module graph (the modules
# of its `todo-showcase` app target): the first run (every file parsed), a run after one file
# changed, and a run with nothing changed (every file from the per-file cache). Each figure is the
# median of 5 runs of the knapsack-check tool, debug build, as `swift build` runs it.
#
#   bash scripts/plugin-timing.sh           # print the table
#   bash scripts/plugin-timing.sh --write   # also write it, dated, into the BuildTimeCheck article
set -euo pipefail

cd "$(dirname "$0")/.."
swift build --disable-experimental-prebuilts --product knapsack-check >/dev/null
tool="$(swift build --show-bin-path)/knapsack-check"
sources=Examples/TodoShowcase/Sources
args=(--app todo-showcase)
for module in todo-showcase TodoShowcaseApp DIShowcase Common Storage ManualDIToDoList DependencyProviderToDoList \
  KnapsackToDoList ThirdPartyDIToDoList; do
  mapfile -t files < <(find "$sources/$module" -name '*.swift' | sort)
  args+=(--module "$module" "${files[@]}")
done
cache=$(mktemp -d)
# The file that "one file changed" changes: a copy, outside the repository, read in its place. The
# tool tells a file by its contents, so each of those runs writes the copy with other contents.
edits=$(mktemp -d)
trap 'rm -rf "$cache" "$edits"' EXIT
changed="$sources/KnapsackToDoList/Dependencies+TodoList.swift"
copy="$edits/Dependencies+TodoList.swift"
cp "$changed" "$copy"
for index in "${!args[@]}"; do [[ ${args[$index]} == "$changed" ]] && args[index]=$copy; done

# run: prints the tool's timing line (files, parsed, cached, milliseconds).
run() { "$tool" "${args[@]}" --cache "$cache" --timing 2>&1 >/dev/null | grep '^knapsack-check:'; }
median() { sort -t' ' -k1,1n | sed -n 3p; }
ms() { sed -E 's/.* in ([0-9.]+) ms/\1/'; }

first=$(for _ in 1 2 3 4 5; do rm -rf "$cache"/*; run | ms; done | median)
one=$(for edit in 1 2 3 4 5; do
  { cat "$changed" && echo "// edit $edit"; } >"$copy"
  run | ms
done | median)
warm=$(for _ in 1 2 3 4 5; do run | ms; done | median)
rm -rf "${cache:?}"/*
cold=$(run)
files=$(sed -E 's/knapsack-check: ([0-9]+) files.*/\1/' <<<"$cold")
parsed=$(sed -E 's/.*\(([0-9]+) parsed.*/\1/' <<<"$cold")
table="| Run of knapsack-check | Files parsed | Time (median of 5) |
|---|---|---|
| First run, no cache | $parsed of $files (the others name no key API) | $first ms |
| One file changed | 1 of $files | $one ms |
| Nothing changed | 0 of $files | $warm ms |"
echo "$table"
if [[ "${1:-}" == "--write" ]]; then
  article=Sources/Knapsack/Knapsack.docc/BuildTimeCheck.md
  printf 'Measured %s by `bash scripts/plugin-timing.sh --write`:\n\n%s\n' "$(date -u +%Y-%m-%d)" "$table" |
    python3 scripts/markers.py "$article" "<!-- plugin-timing:begin -->" "<!-- plugin-timing:end -->"
  echo "plugin-timing: wrote the table into $article"
fi
