#!/usr/bin/env bash
# Builds and tests the TodoShowcase package: Swift tests (unit, storage, snapshot, HTTP), then a
# real-browser test against the built server. Exits non-zero on any failure.
#
#   Examples/TodoShowcase/scripts/test.sh
#
# Installs what it needs first (Debian packages and Selenium from PyPI); set
# TODO_SHOWCASE_SKIP_INSTALL=1 to skip that on a machine that already has them.
set -euo pipefail

cd "$(dirname "$0")/.."

if [[ "${TODO_SHOWCASE_SKIP_INSTALL:-0}" != 1 ]]; then
  echo "== Installing libsqlite3-dev, chromium, chromium-driver and Selenium"
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsqlite3-dev chromium chromium-driver wrk >/dev/null
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore selenium pytest schemathesis
fi

echo "== Building (debug, with tests)"
swift build --build-tests --disable-experimental-prebuilts

echo "== Swift tests"
# A missing snapshot reference fails without being recorded.
SNAPSHOT_TESTING_RECORD=never swift test --skip-build

echo "== API contract: schemathesis against the live server and /openapi.json"
log=$(mktemp)
.build/debug/todo-showcase serve --port 0 --storage memory >"$log" 2>/dev/null &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do
  grep -q "Listening on" "$log" && break
  sleep 0.1
done
base=$(grep -o "http://[^ ]*" "$log" | head -1)
[[ -n "$base" ]] || { echo "The server did not start"; exit 1; }
# Bounded: a fixed number of examples per operation keeps this well under a minute.
schemathesis run "$base/openapi.json" --url "$base" --max-examples 30 \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
kill "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true
trap - EXIT
rm -f "$log"

echo "== Load script smoke run (debug build, 3 s per endpoint, 300 items: it checks the script, its figures mean nothing)"
bash scripts/load.sh --debug --duration 3 --items 300

echo "== Browser test (headless Chromium)"
python3 -m pytest -q -p no:cacheprovider Tests/Browser
