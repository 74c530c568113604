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
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsqlite3-dev chromium chromium-driver >/dev/null
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore selenium pytest
fi

echo "== Building (debug, with tests)"
swift build --build-tests --disable-experimental-prebuilts

echo "== Swift tests"
# A missing snapshot reference fails without being recorded.
SNAPSHOT_TESTING_RECORD=never swift test --skip-build

echo "== Browser test (headless Chromium)"
python3 -m pytest -q -p no:cacheprovider Tests/Browser
