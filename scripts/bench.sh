#!/usr/bin/env bash
# Storage engine benchmark against SQLite (see BENCHMARKS.md, Benchmarks/).
#   scripts/bench.sh full    1,000,000 and 100,000 records, 3 interleaved rounds; rewrites BENCHMARKS.md
#   scripts/bench.sh quick   100,000 records, 1 round (CI smoke, < 3 min); writes Benchmarks/.build/BENCHMARKS-quick.md
#   scripts/bench.sh micro   package-benchmark micro-benchmarks (lookup, insert batch, scan; allocations)
# Needs libsqlite3-dev, libsodium-dev, liblz4-dev (apt) and a Swift 6.1+ toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-full}"
work="${BENCH_WORK_DIR:-${TMPDIR:-/tmp}/offline-odata-engine-bench}"
build() { swift build -c release --package-path Benchmarks --product engine-bench; }
bin=Benchmarks/.build/release/engine-bench
case "$mode" in
  full)
    build
    "$bin" run --records 1000000,100000 --rounds 3 --lookups 200000 --work-dir "$work" \
      --out BENCHMARKS.md --command "make bench"
    ;;
  quick)
    build
    "$bin" run --records 100000 --rounds 1 --lookups 50000 --work-dir "$work" \
      --out Benchmarks/.build/BENCHMARKS-quick.md --command "make bench-quick"
    cat Benchmarks/.build/BENCHMARKS-quick.md
    ;;
  micro)
    swift package --package-path Benchmarks --allow-writing-to-directory "${TMPDIR:-/tmp}" benchmark
    ;;
  *)
    echo "usage: scripts/bench.sh full|quick|micro" >&2
    exit 2
    ;;
esac
