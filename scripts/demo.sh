#!/usr/bin/env bash
# The main job: builds the command-line tool (release) and runs its end-to-end demo.
# Extra arguments go to `offline-odata demo` (e.g. --orders 100000, or --engine --records 1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
swift build -c release --product offline-odata
.build/release/offline-odata demo "$@"
