#!/usr/bin/env bash
# A bounded load run against the release build of the showcase on loopback: seeds a store with
# ITEMS items, then drives each endpoint with wrk (32 connections by default) for DURATION
# seconds and prints a markdown table: requests/s, p50 and p99 latency, and the server's
# resident memory (VmRSS sampled once a second over the run, and the peak VmHWM).
#
#   Examples/TodoShowcase/scripts/load.sh [--duration SECONDS] [--connections N] [--items N]
#                                         [--storage sqlite|json] [--skip-build] [--debug] [--readme]
#
#   --duration     seconds per endpoint (default 5; the README figures use 60)
#   --readme       also rewrites the section between <!-- load:begin --> and <!-- load:end -->
#                  in Examples/TodoShowcase/README.md with the table
#   --skip-build   use the existing .build/release/todo-showcase
#   --debug        use the existing debug build instead (a smoke run: scripts/test.sh uses
#                  --debug --duration 3 --items 300; its figures mean nothing)
#
# Installs wrk with apt-get when it is missing. Never leaves the server or wrk running.
set -euo pipefail

cd "$(dirname "$0")/.."

arguments="$*"
duration=5
connections=32
items=10000
storage=sqlite
build=1
readme=0
binary=.build/release/todo-showcase
while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --items) items="$2"; shift 2 ;;
    --storage) storage="$2"; shift 2 ;;
    --skip-build) build=0; shift ;;
    --debug) build=0; binary=.build/debug/todo-showcase; shift ;;
    --readme) readme=1; shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
[[ "$duration" =~ ^[0-9]+$ && "$duration" -ge 1 && "$duration" -le 600 ]] || { echo "--duration must be 1 to 600" >&2; exit 2; }

if ! command -v wrk >/dev/null; then
  echo "== Installing wrk" >&2
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wrk >/dev/null
fi

if [[ "$build" == 1 ]]; then
  echo "== Building (release)" >&2
  swift build -c release --product todo-showcase --disable-experimental-prebuilts >&2
fi

work=$(mktemp -d)
server_pid=""
sampler_pid=""
cleanup() {
  [[ -n "$sampler_pid" ]] && kill "$sampler_pid" 2>/dev/null || true
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# The server's limits must not refuse wrk's own connections and requests: by default it takes 64
# connections from one address and 64 storage calls at once (README, "On a network").
limits=()
if ((connections > 64)); then limits+=(--max-connections-per-address "$connections" --max-storage-calls "$connections"); fi
if ((connections > 512)); then limits+=(--max-connections "$connections"); fi
"$binary" serve --host 127.0.0.1 --port 0 --data-dir "$work/data" --storage "$storage" ${limits[@]+"${limits[@]}"} >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 200); do
  grep -q "Listening on" "$work/server.log" && break
  sleep 0.1
done
base=$(grep -o "http://127.0.0.1:[0-9]*" "$work/server.log" | head -1)
[[ -n "$base" ]] || { echo "The server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }

echo "== Seeding $items items through the API ($storage store)" >&2
python3 - "$base" "$items" <<'PY'
import http.client, json, sys, threading, time, urllib.parse
base, total = sys.argv[1], int(sys.argv[2])
url = urllib.parse.urlparse(base)
started = time.monotonic()
def worker(start, stop):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    for number in range(start, stop):
        body = json.dumps({"title": f"Load item {number}"})
        connection.request("POST", "/api/todos", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        if response.status != 201:
            raise SystemExit(f"POST failed: {response.status}")
threads = [threading.Thread(target=worker, args=(part * total // 4, (part + 1) * total // 4)) for part in range(4)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(f"   seeded in {time.monotonic() - started:.1f} s", file=sys.stderr)
PY

rss_kib() { awk -v field="$1:" '$1 == field { print $2 }' "/proc/$server_pid/status"; }
mib() { awk -v kib="$1" 'BEGIN { printf "%.0f", kib / 1024 }'; }

# Runs wrk against one path; prints a markdown table row.
measure() {
  local label="$1" path="$2"
  : >"$work/rss"
  (while kill -0 "$server_pid" 2>/dev/null; do rss_kib VmRSS >>"$work/rss"; sleep 1; done) &
  sampler_pid=$!
  wrk -t2 -c"$connections" -d"${duration}s" --timeout 5s --latency "$base$path" >"$work/wrk" 2>&1
  kill "$sampler_pid" 2>/dev/null || true
  wait "$sampler_pid" 2>/dev/null || true
  sampler_pid=""
  local rps p50 p99 errors first last high peak
  rps=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$work/wrk")
  p50=$(awk '$1 == "50%" { print $2 }' "$work/wrk")
  p99=$(awk '$1 == "99%" { print $2 }' "$work/wrk")
  errors=$(awk '/Non-2xx|Socket errors/ { sub(/^ */, ""); printf "%s; ", $0 }' "$work/wrk")
  first=$(head -1 "$work/rss")
  last=$(tail -1 "$work/rss")
  high=$(sort -n "$work/rss" | tail -1)
  peak=$(rss_kib VmHWM)
  echo "| \`GET $path\` ($label) | $rps | $p50 | $p99 | $(mib "$first") → $(mib "$high") → $(mib "$last") | $(mib "$peak") |${errors:+ $errors}"
}

echo "== wrk: $connections connections, ${duration} s per endpoint" >&2
table="$work/table"
{
  echo "$([[ "$binary" == *release* ]] && echo Release || echo Debug) build, \`$storage\` store with $items items, wrk with $connections connections, ${duration} s per endpoint, on $(nproc) cores (\`scripts/load.sh${arguments:+ $arguments}\`)."
  echo
  echo "| Endpoint | Requests/s | p50 | p99 | RSS MiB (start → highest → end) | Peak RSS MiB (VmHWM) |"
  echo "|---|---:|---:|---:|---|---:|"
  measure "a tab page, first 50 items" "/?tab=knapsack"
  measure "API, one page of 50" "/api/todos?limit=50"
  measure "API, the whole list" "/api/todos"
} | tee "$table"

if [[ "$readme" == 1 ]]; then
  python3 - README.md "$table" <<'PY'
import re, sys
readme, table = sys.argv[1], open(sys.argv[2]).read()
text = open(readme).read()
updated, count = re.subn(r"<!-- load:begin -->.*?<!-- load:end -->",
                         "<!-- load:begin -->\n" + table + "<!-- load:end -->", text, flags=re.S)
if count != 1:
    raise SystemExit("README.md has no <!-- load:begin --> ... <!-- load:end --> section")
open(readme, "w").write(updated)
print("== README.md updated", file=sys.stderr)
PY
fi
