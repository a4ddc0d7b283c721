#!/usr/bin/env bash
# Installs the OData back ends of the integration tests (Tests/Backends/requirements.txt, pinned
# by hash) into the virtual environment .venv-backends, once. Prints the Python to use on its
# last line. Without Python 3 it says so and exits 0: the sync integration tests then skip with
# that message.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-backends
stamp="$venv/.requirements.sha256"
want=$(sha256sum Tests/Backends/requirements.txt | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "$PWD/$venv/bin/python"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "note: python3 is not installed: the sync integration tests against real back ends will be skipped" >&2
  exit 0
fi
if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    echo "Installing python3-venv" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
fi
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps \
  -r Tests/Backends/requirements.txt >&2
echo "$want" > "$stamp"
echo "$PWD/$venv/bin/python"
