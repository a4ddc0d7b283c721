#!/usr/bin/env bash
# Runs every test: builds the package first (the crash tests start the CLI as a child process).
# OODATA_CRASH_KILLS=1000 scripts/test.sh runs the long crash test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
# The real OData back ends of the sync integration tests (a Python virtual environment).
OODATA_BACKEND_PYTHON=$(scripts/ensure-backends.sh | tail -n 1)
export OODATA_BACKEND_PYTHON
swift build --build-tests
swift test --skip-build "$@"
