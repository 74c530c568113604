#!/usr/bin/env bash
# Runs every check and test of every package in this repository, on a fresh Debian machine:
#
#   1. installs system packages (libsqlite3-dev; the per-package scripts install the rest),
#   2. format lint (scripts/format.sh),
#   3. builds the Knapsack core with zero warnings allowed,
#   4. swift test for the root package (debug; the release deep-chain check is in Benchmarks;
#      its PublicAPITests check the public API lists api/*.txt), and the compiler's diagnostics
#      for misuses (scripts/compile-fail.sh),
#   5. swift test --sanitize=thread for the root package (scratch path .build-tsan),
#   6. the documentation check (scripts/docs.sh) and the build-time graph check (plugin),
#   7. Examples/TodoShowcase/scripts/test.sh and Benchmarks/scripts/ci.sh, if present.
#
# Every step runs even when an earlier one failed; a summary follows, and the exit code is
# non-zero if any step failed. This is what CI runs (.ci/run).
set -uo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

if ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

names=()
results=()
durations=()
total_start=$SECONDS

# step NAME COMMAND...: runs the command, prints its output, records the result.
step() {
  local name=$1
  shift
  echo
  echo "==> $name"
  local start=$SECONDS
  if "$@"; then
    results+=(passed)
  else
    results+=(FAILED)
  fi
  names+=("$name")
  durations+=($((SECONDS - start)))
  echo "<== $name: ${results[-1]} (${durations[-1]} s)"
}

skip() {
  echo
  echo "==> $1: skipped ($2)"
  names+=("$1")
  results+=(skipped)
  durations+=(0)
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    "$@"
  fi
}

install_system_packages() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "no apt-get: assuming libsqlite3-dev is installed"
    return 0
  fi
  as_root apt-get update -qq || echo "apt-get update failed; trying the install anyway"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev >/dev/null \
    || echo "apt-get install failed"
  dpkg -s libsqlite3-dev >/dev/null 2>&1
}

# Builds the library in its own scratch path with warnings as errors, and also fails if the
# build prints a warning for a file under Sources/.
build_without_warnings() {
  local log="$logs/build.log"
  swift build --scratch-path .build-strict -Xswiftc -warnings-as-errors 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  if grep -E "^(${root}/)?Sources/[^:]*:[0-9]+:[0-9]+: (warning|error):" "$log" >"$logs/warnings.txt"; then
    echo "build: diagnostics in Sources:" >&2
    sort -u "$logs/warnings.txt" >&2
    return 1
  fi
  if grep -q "warning:" "$log"; then
    echo "build: the build printed warnings" >&2
    return 1
  fi
  return "$status"
}

# ThreadSanitizer reports a race as a warning and lets the run pass: a report fails the step.
swift_test_tsan() {
  local log="$logs/tsan.log"
  swift test --sanitize=thread --scratch-path .build-tsan 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  if grep -q "WARNING: ThreadSanitizer" "$log"; then
    echo "thread sanitizer: $(grep -c "WARNING: ThreadSanitizer" "$log") report(s) above" >&2
    return 1
  fi
  return "$status"
}

step "install system packages" install_system_packages
step "format lint" bash scripts/format.sh
step "build core (no warnings)" build_without_warnings
# The test run's failing tests are repeated after the summary, where a CI log's tail shows them.
swift_test() {
  local log="$logs/test.log"
  swift test 2>&1 | tee "$log"
  return "${PIPESTATUS[0]}"
}

step "swift test" swift_test
step "compile-fail diagnostics (Tests/CompileFail)" bash scripts/compile-fail.sh
step "swift test (thread sanitizer)" swift_test_tsan
step "docs" bash scripts/docs.sh
step "build-time graph check (plugin)" bash scripts/test-plugin.sh

if [[ -f Examples/TodoShowcase/scripts/test.sh ]]; then
  step "TodoShowcase" bash Examples/TodoShowcase/scripts/test.sh
else
  skip "TodoShowcase" "no Examples/TodoShowcase/scripts/test.sh"
fi

if [[ -f Benchmarks/scripts/ci.sh ]]; then
  step "Benchmarks" bash Benchmarks/scripts/ci.sh
else
  skip "Benchmarks" "no Benchmarks/scripts/ci.sh"
fi

passed=0
failed=0
skipped=0
echo
echo "Summary ($((SECONDS - total_start)) s in all):"
for i in "${!names[@]}"; do
  printf '  %-8s %5s s  %s\n' "${results[$i]}" "${durations[$i]}" "${names[$i]}"
  case ${results[$i]} in
    passed) passed=$((passed + 1)) ;;
    FAILED) failed=$((failed + 1)) ;;
    *) skipped=$((skipped + 1)) ;;
  esac
done
echo "steps: $passed passed, $failed failed, $skipped skipped"
# The lines of a log that tell a failure; a known issue (withKnownIssue) records its error too,
# and is no failure.
failure_lines() {
  grep -E "✘|error: |Fatal error|Test Case .* failed|WARNING: ThreadSanitizer|exited with signal" "$1" |
    grep -v "recorded a known issue" || true
}
for log in "$logs/test.log" "$logs/tsan.log"; do
  [[ -f $log ]] || continue
  lines=$(failure_lines "$log")
  if [[ -n $lines ]]; then
    echo
    echo "Failures in $(basename "$log") (first 40 lines):"
    head -40 <<<"$lines"
  fi
done
((failed == 0))
