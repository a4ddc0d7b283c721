#!/usr/bin/env bash
# Makes sure the system libraries the package links (libsodium, liblz4; on Linux libcurl's
# headers, for the default transport) and pkg-config are installed; installs them with apt-get
# when they are missing and we are allowed to.
set -euo pipefail

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if command -v pkg-config >/dev/null 2>&1; then
  pkg-config --exists libsodium || missing+=(libsodium-dev)
  pkg-config --exists liblz4 || missing+=(liblz4-dev)
  if [ "$(uname -s)" = Linux ]; then pkg-config --exists libcurl || missing+=(libcurl4-openssl-dev); fi
else
  missing+=(libsodium-dev liblz4-dev)
  if [ "$(uname -s)" = Linux ]; then missing+=(libcurl4-openssl-dev); fi
fi
for extra in "$@"; do
  dpkg -s "$extra" >/dev/null 2>&1 || missing+=("$extra")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing system packages: ${missing[*]}"
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: apt-get is not available. Install these packages with your system's package manager: ${missing[*]}" >&2
    echo "       (on macOS: brew install libsodium lz4 pkg-config)" >&2
    exit 1
  fi
  if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
  else
    echo "error: not root and no password-less sudo. Run as root, or first run:" >&2
    echo "       sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "error: swift is not on PATH. Install Swift 6.1 or newer (https://www.swift.org/install/)." >&2
  exit 1
fi
