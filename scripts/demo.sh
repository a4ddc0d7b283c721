#!/usr/bin/env bash
# The main job: builds the command-line tool (release) and runs its end-to-end demo: first the
# sync loop against a real OData back end it starts on loopback (odatapy from PyPI, in
# .venv-backends), then the local store tour. Without Python the sync part is skipped with one
# line saying why. Extra arguments go to `offline-odata demo` (e.g. --orders 100000, or
# --engine --records 1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
swift build -c release --product offline-odata

service_args=()
python=$(scripts/ensure-backends.sh 2>/tmp/oodata-backends.log | tail -n 1 || true)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT
if [ -n "$python" ] && [ -x "$python" ]; then
  out=$(mktemp)
  "$python" Tests/Backends/odatapy/server.py --port 0 >"$out" 2>/dev/null &
  server_pid=$!
  for _ in $(seq 1 100); do
    grep -q '^PORT ' "$out" && break
    sleep 0.1
  done
  port=$(awk '/^PORT /{print $2; exit}' "$out")
  rm -f "$out"
  if [ -n "$port" ]; then
    service_args=(--service "http://127.0.0.1:$port/")
  else
    service_args=(--no-service-reason "the odatapy back end did not start")
  fi
else
  service_args=(--no-service-reason "Python 3 with odatapy is not available (see /tmp/oodata-backends.log)")
fi
.build/release/offline-odata demo "${service_args[@]}" "$@"
