#!/usr/bin/env bash
# Builds and starts the TodoShowcase web app (a debug build: the same one its tests run, and the
# quickest to build on a small machine). Arguments go to `serve`:
#
#   bash scripts/run-showcase.sh              # default port
#   bash scripts/run-showcase.sh --help       # the server's options
set -euo pipefail

cd "$(dirname "$0")/.."

if ! dpkg -s libsqlite3-dev >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "installing libsqlite3-dev"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev
fi

exec swift run --package-path Examples/TodoShowcase todo-showcase serve "$@"
