#!/usr/bin/env bash
# Checks the compiler's diagnostics for common misuses of Knapsack.
#
# Each Tests/CompileFail/*.swift snippet (other than Prelude.swift and Valid.swift) is
# type-checked together with Prelude.swift against the debug build of the Knapsack module. It
# must fail, and every `// expected-error: TEXT` line at its top must appear in an error the
# compiler reports in that snippet. No diagnostic may be "failed to produce diagnostic".
# Valid.swift is the control: the same set-up used correctly must type-check with no diagnostic.
set -euo pipefail

cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi

swift build --target Knapsack >/dev/null
bin=$(swift build --show-bin-path)
dir=Tests/CompileFail
typecheck() {
  swiftc -typecheck -swift-version 6 -I "$bin/Modules" \
    -Xcc -fmodule-map-file="$bin/CKnapsack.build/module.modulemap" "$dir/Prelude.swift" "$@" 2>&1
}

failures=0
if ! output=$(typecheck "$dir/Valid.swift") || [[ -n $output ]]; then
  echo "compile-fail: the control (Valid.swift) does not type-check cleanly:" >&2
  echo "$output" >&2
  exit 1
fi
echo "ok    Valid.swift type-checks with no diagnostic"

count=0
for snippet in "$dir"/*.swift; do
  name=$(basename "$snippet")
  [[ $name == Prelude.swift || $name == Valid.swift ]] && continue
  count=$((count + 1))
  mapfile -t expected < <(sed -n 's|^// expected-error: ||p' "$snippet")
  if ((${#expected[@]} == 0)); then
    echo "FAIL  $name: no '// expected-error:' line" >&2
    failures=$((failures + 1))
    continue
  fi
  if output=$(typecheck "$snippet"); then
    echo "FAIL  $name compiled; it must not" >&2
    failures=$((failures + 1))
    continue
  fi
  errors=$(grep -E "^[^ ]*${name}:[0-9]+:[0-9]+: error: " <<<"$output" || true)
  problem=""
  for text in "${expected[@]}"; do
    grep -qF -- "$text" <<<"$errors" || problem="missing error \"$text\""
  done
  grep -q "failed to produce diagnostic" <<<"$output" && problem="the compiler failed to produce a diagnostic"
  if [[ -n $problem ]]; then
    echo "FAIL  $name: $problem; the compiler said:" >&2
    echo "$output" >&2
    failures=$((failures + 1))
  else
    echo "ok    $name: ${expected[*]}"
  fi
done
echo "compile-fail: $count snippet(s), $failures failure(s)"
((failures == 0))
