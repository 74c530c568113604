#!/usr/bin/env bash
# Tests the build-time graph check (Plugins/, issue 12):
#
#   1. builds the knapsack-check tool once (the root package's debug build),
#   2. runs it on each agreement case of Tests/PluginFixtures (one of them through `@Injected`
#      properties of instances that factories make) and checks its findings and sites,
#      on each tool-only case of Tests/PluginFixtures/ToolCases (its report must equal the case's
#      expected.txt), and on a generated chain of 10,000 keys,
#   3. builds the fixture package (a copy under .build-plugin-fixtures) with the plugin applied to
#      its showcase-shaped app target: the build must pass, give the target no resources bundle,
#      and a build with nothing changed must not run the check again,
#   4. runs `validate()` on every agreement case (agreement-runtime) and checks that the runtime and
#      the static check report the same problems,
#   5. deletes the storage registration in the copy: `swift build` must fail with an error at the
#      storage key's declaration that names the app target, and so must `swift package knapsack-check`
#      (which must also fail, not check nothing, when given a name that is no target).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
fixtures=Tests/PluginFixtures
work=$root/.build-plugin-fixtures
mkdir -p "$work"
failures=0

fail() {
  echo "test-plugin: FAILED: $*" >&2
  failures=$((failures + 1))
}

expect_line() { # expect_line FILE PATTERN (fixed string)
  grep -qF -- "$2" "$1" || fail "no line with '$2' in $(basename "$1"):$(printf '\n%s' "$(cat "$1")")"
}

echo "== building knapsack-check"
swift build --disable-experimental-prebuilts --product knapsack-check
tool="$(swift build --show-bin-path)/knapsack-check"

# static CASE: the tool's findings for one case, and the same as `<case> <kind> <dependency>` lines.
static() {
  local name=$1
  local out="$work/static-$name.txt"
  set +e
  "$tool" --app "${name}App" --module "${name}App" "$fixtures/Sources/${name}App"/*.swift \
    --module "${name}Keys" "$fixtures/Sources/${name}Keys"/*.swift >"$out"
  echo $? >"$work/static-$name.status"
  set -e
  echo "$name checked"
  grep -E ': error: required key ' "$out" | sed -E "s/.*required key (\\\\\\.[A-Za-z0-9_]+) .*/$name requiredKeyNotProvided \\1/" || true
  grep -E ': warning: captive dependency: ' "$out" | sed -E "s/.*captive dependency: (\\\\\\.[A-Za-z0-9_]+) .*/$name captiveDependency \\1/" || true
  grep -E ': error: dependency cycle: ' "$out" | while read -r line; do
    echo "$name cycle $(grep -oE '\\\.[A-Za-z0-9_]+' <<<"${line#*dependency cycle: }" | sort -u | paste -sd, -)"
  done || true
}

echo "== static check of the agreement cases"
: >"$work/static.txt"
for name in Missing Cycle Captive Valid Dynamic Injected; do static "$name" >>"$work/static.txt"; done
sort -o "$work/static.txt" "$work/static.txt"
cat "$work/static.txt"

S=$fixtures/Sources
expect_line "$work/static-Missing.txt" "$S/MissingKeys/Keys.swift:17:14: error: required key \\.clock (Key<Clock>) has no registration in the module graph of 'MissingApp'"
expect_line "$work/static-Cycle.txt" "$S/CycleApp/App.swift:9:5: error: dependency cycle: \\.alpha (CycleApp/App.swift:9) -> \\.beta (CycleKeys/Keys.swift:22) -> \\.alpha"
expect_line "$work/static-Cycle.txt" "$S/CycleKeys/Keys.swift:22:59: note: \\.beta resolves the next key of the cycle here"
expect_line "$work/static-Captive.txt" "$S/CaptiveKeys/Keys.swift:28:42: warning: captive dependency: \\.sessionCache (singleton) holds \\.session (unique)"
expect_line "$work/static-Captive.txt" "$S/CaptiveKeys/Keys.swift:42:82: warning: captive dependency: \\.sessionArchive (singleton) holds \\.sessions contribution (CaptiveApp/App.swift:10) (unique) through \\.sessions"
expect_line "$work/static-Dynamic.txt" "$S/DynamicApp/App.swift:11:7: remark: knapsack-check did not cover this registration: the key path is computed at run time"
expect_line "$work/static-Dynamic.txt" "$S/DynamicKeys/Keys.swift:6:14: remark: required key \\.token is not registered in the module graph of 'DynamicApp'; silenced by '// knapsack-check: runtime-provided'"
# Through `@Injected` properties of instances that factories make: at the property, naming the call.
expect_line "$work/static-Injected.txt" "$S/InjectedKeys/Keys.swift:22:3: warning: captive dependency: \\.dashboard (singleton) holds \\.session (unique), which should not outlive one use (@Injected in Dashboard, made by Dashboard() at InjectedKeys/Keys.swift:41)"
expect_line "$work/static-Injected.txt" "$S/InjectedKeys/Keys.swift:49:3: warning: captive dependency: \\.lazyDashboard (singleton) holds \\.session (unique) through a Lazy, which keeps the first value it reads"
expect_line "$work/static-Injected.txt" "$S/InjectedKeys/Keys.swift:29:3: note: \\.loopScreen resolves the next key of the cycle here (@Injected in LoopScreen, made by LoopScreen() at InjectedKeys/Keys.swift:42)"
[[ $(cat "$work/static-Missing.status") == 1 && $(cat "$work/static-Cycle.status") == 1 && $(cat "$work/static-Injected.status") == 1 ]] \
  || fail "errors must exit 1"
[[ $(cat "$work/static-Captive.status") == 0 && $(cat "$work/static-Valid.status") == 0 && $(cat "$work/static-Dynamic.status") == 0 ]] \
  || fail "warnings and remarks only must exit 0"
[[ ! -s "$work/static-Valid.txt" ]] || fail "the valid case has findings: $(cat "$work/static-Valid.txt")"

echo "== tool-only cases"
# Each folder of ToolCases is a case: one subfolder per module, the app module named App. The
# tool's report must be the case's expected.txt, and it exits 1 exactly when that has an error.
for case in "$fixtures"/ToolCases/*/; do
  name=$(basename "$case")
  set +e
  (
    cd "$case"
    args=(--app App)
    # Every Swift file of the module's folder, also in its subfolders (no case has spaces in names).
    for module in */; do args+=(--module "${module%/}" $(find "$module" -name '*.swift' | sort)); done
    "$tool" "${args[@]}"
  ) >"$work/tool-$name.txt"
  status=$?
  set -e
  diff -u "$case/expected.txt" "$work/tool-$name.txt" || fail "the report of the tool-only case $name differs"
  # Every line is one diagnostic, as SwiftPM and Xcode read them (source text quoted on one line).
  if grep -vqE '^[^:]+:[0-9]+:[0-9]+: (error|warning|remark|note): ' "$work/tool-$name.txt"; then
    fail "the report of the tool-only case $name has a line that is not a diagnostic"
  fi
  # A note belongs to the diagnostic printed right before it: a cycle's notes follow its error.
  if awk '/: note: / && !(previous ~ /: (error: dependency cycle|note): /) { bad = 1 } { previous = $0 } END { exit !bad }' \
    "$work/tool-$name.txt"; then
    fail "the report of the tool-only case $name has a note that does not follow its error"
  fi
  expected_status=0
  if grep -q ': error: ' "$case/expected.txt"; then expected_status=1; fi
  ((status == expected_status)) || fail "the tool-only case $name exited $status, not $expected_status"
  echo "$name checked"
done

# A chain of 10,000 keys, each resolving the next, the last one resolving the one before it: the
# cycle search must neither overflow the stack nor slow down with the depth.
chain=$work/chain/Keys
mkdir -p "$chain"
{
  echo "import Knapsack"
  echo "extension Dependencies {"
  for i in $(seq 0 9998); do echo "  var k$i: Key<Int> { Key { r in try r[\.k$((i + 1))] } }"; done
  echo "  var k9999: Key<Int> { Key { r in try r[\.k9998] } }"
  echo "}"
} >"$chain/Keys.swift"
start=$(date +%s%N)
"$tool" --app App --module Keys "$chain/Keys.swift" >"$work/chain.txt" || true
elapsed=$((($(date +%s%N) - start) / 1000000))
echo "chain of 10,000 keys checked in $elapsed ms"
expect_line "$work/chain.txt" "$chain/Keys.swift:10001:7: error: dependency cycle: \.k9998 (Keys/Keys.swift:10001) -> \.k9999 (Keys/Keys.swift:10002) -> \.k9998"
((elapsed < 60000)) || fail "the chain of 10,000 keys took $elapsed ms"

# The cache tells a file by its contents: a file replaced by another of the same size with the
# same modification date (`cp -p`, `rsync -a`, an archive) is read again.
stale=$work/stale
rm -rf "$stale" && mkdir -p "$stale/App" "$stale/Keys"
printf 'import Knapsack\nextension Dependencies {\n  var clock: Key<Int> { .required() }\n}\n' >"$stale/Keys/Keys.swift"
printf 'import Knapsack\nlet container = Container()\n//ntainer.register(\\.clock) { 0 }\n' >"$stale/App/main.swift"
stale_check() { "$tool" --app App --cache "$stale/cache" --module App "$stale/App/main.swift" --module Keys "$stale/Keys/Keys.swift"; }
stale_check >"$work/stale-1.txt" && fail "the unregistered key passed the check"
printf 'import Knapsack\nlet container = Container()\ncontainer.register(\\.clock) { 0 }\n' >"$stale/main.swift.new"
touch -r "$stale/App/main.swift" "$stale/main.swift.new"
mv "$stale/main.swift.new" "$stale/App/main.swift"
stale_check >"$work/stale-2.txt" || fail "a fixed file of the same size and date was not read again: $(cat "$work/stale-2.txt")"
echo "cache checked"

echo "== building the fixture package (plugin applied to ShowcaseApp)"
# In a folder whose name has a space and a letter that is not ASCII: the plugins pass paths as
# they are, not percent-encoded.
package="$work/fixture package é"
rm -rf "$package" "$work/scratch/debug/PluginFixtures_ShowcaseApp.resources"
mkdir -p "$package"
cp -R "$fixtures/Package.swift" "$fixtures/Sources" "$package/"
sed -i "s|path: \"../..\"|path: \"$root\"|" "$package/Package.swift"
build() { swift build --disable-experimental-prebuilts --package-path "$package" --scratch-path "$work/scratch" "$@"; }
build >"$work/build-ok.log" 2>&1 || { cat "$work/build-ok.log"; fail "the fixture package does not build"; }
expect_line "$work/build-ok.log" "Checking the Knapsack graph of ShowcaseApp"
# The report the plugin declares as its output must not become a resource of the app target.
[[ ! -e "$work/scratch/debug/PluginFixtures_ShowcaseApp.resources" ]] || fail "ShowcaseApp has a resources bundle"
# A build with nothing changed must not run the check. (Right after a change of the tool's sources,
# SwiftPM links the tool once more in the next build, and that reruns the check: build twice.)
for _ in 1 2; do
  build >"$work/build-again.log" 2>&1 || { cat "$work/build-again.log"; fail "the fixture package does not build again"; }
done
if grep -qF "Checking the Knapsack graph" "$work/build-again.log"; then
  fail "a build with nothing changed ran the check again: $(cat "$work/build-again.log")"
fi

echo "== validate() on the agreement cases"
"$work/scratch/debug/agreement-runtime" >"$work/runtime.txt" || fail "agreement-runtime failed"
cat "$work/runtime.txt"
cat >"$work/expected.txt" <<'EXPECTED'
Captive captiveDependency \.sessionArchive
Captive captiveDependency \.sessionCache
Captive checked
Cycle checked
Cycle cycle \.alpha,\.beta
Dynamic checked
Injected captiveDependency \.dashboard
Injected captiveDependency \.lazyDashboard
Injected checked
Injected cycle \.loopScreen,\.loopStorage
Injected requiredKeyNotProvided \.wallClock
Missing checked
Missing requiredKeyNotProvided \.clock
Valid checked
EXPECTED
diff -u "$work/expected.txt" "$work/runtime.txt" || fail "validate() did not report the expected problems"
diff -u "$work/runtime.txt" "$work/static.txt" || fail "the static check and validate() disagree"

echo "== deleting the storage registration"
sed -i '/container.register(\\.todoStorage/d' "$package/Sources/KnapsackToDoList/TodoListAssembly.swift"
if build >"$work/build-fail.log" 2>&1; then
  fail "swift build passed without the storage registration"
fi
expect_line "$work/build-fail.log" "$package/Sources/KnapsackToDoList/Dependencies+TodoList.swift:6:14: error: required key \\.todoStorage (Key<any LocalStorage>) has no registration in the module graph of 'ShowcaseApp'"
grep -F "error:" "$work/build-fail.log" || true

echo "== swift package knapsack-check (command plugin) on the same copy"
command_plugin() {
  swift package --disable-experimental-prebuilts --package-path "$package" --scratch-path "$work/scratch" \
    knapsack-check --target ShowcaseApp >"$work/command.log" 2>&1
}
status=0
command_plugin || status=$?
# Swift 6.3.1's `swift package` itself can crash (a signal in libdispatch) while it exits with the
# plugin's error, losing the plugin's output: seen once in CI. Only then, run it once more; the
# second run must print everything below.
if ((status > 128)); then
  echo "swift package crashed (status $status); running the command plugin once more"
  status=0
  command_plugin || status=$?
fi
((status != 0)) || fail "swift package knapsack-check passed without the storage registration"
expect_line "$work/command.log" "$package/Sources/KnapsackToDoList/Dependencies+TodoList.swift:6:14: error: required key \\.todoStorage"
expect_line "$work/command.log" "knapsack-check found errors in: ShowcaseApp"

# A misspelled target name checks nothing: it must fail and say so, not pass.
if swift package --disable-experimental-prebuilts --package-path "$package" --scratch-path "$work/scratch" \
  knapsack-check --target ShowcaseAp >"$work/command-unknown.log" 2>&1; then
  fail "swift package knapsack-check passed with a name that is no target"
fi
expect_line "$work/command-unknown.log" "knapsack-check: no Swift target named 'ShowcaseAp' in package 'PluginFixtures'"

# A misspelled option would be dropped and every executable target checked instead: it must fail.
if swift package --disable-experimental-prebuilts --package-path "$package" --scratch-path "$work/scratch" \
  knapsack-check --targte ShowcaseApp >"$work/command-option.log" 2>&1; then
  fail "swift package knapsack-check passed with an unknown option"
fi
expect_line "$work/command-option.log" "knapsack-check: unknown arguments '--targte', 'ShowcaseApp'; usage: swift package knapsack-check [--target NAME ...]"

if ((failures > 0)); then
  echo "test-plugin: $failures failure(s)" >&2
  exit 1
fi
echo "test-plugin: all checks passed"
