#!/usr/bin/env bash
# Benchmarks (see BENCHMARKS.md, Benchmarks/README.md). Each benchmark writes its own section;
# this script assembles them into one report.
#   scripts/bench.sh full      engine (1M + 100k records, 3 rounds), JSON (100 MB, 5 rounds) and queries
#                              (100k + 1M SalesOrders, 3 rounds); writes Benchmarks/results/{engine,json,query}.md
#                              and BENCHMARKS.md
#   scripts/bench.sh engine    engine only (Benchmarks/results/engine.md), then reassembles BENCHMARKS.md
#   scripts/bench.sh json      JSON only (Benchmarks/results/json.md), then reassembles BENCHMARKS.md
#   scripts/bench.sh query     OData queries only (100k + 1M SalesOrders, 3 rounds; Benchmarks/results/query.md),
#                              then reassembles BENCHMARKS.md
#   scripts/bench.sh store     offline store vs SQLite (download apply, queued durable updates, reopen; 10k + 100k
#                              SalesOrders, 3 rounds; Benchmarks/results/store.md), then reassembles BENCHMARKS.md
#   scripts/bench.sh report    reassembles BENCHMARKS.md from Benchmarks/results/*.md (no measuring)
#   scripts/bench.sh quick     CI smoke, < 3 min: engine 100k records, JSON 10 MB and queries at 10k SalesOrders, 1 round each;
#                              everything under Benchmarks/.build/ (results-quick/, BENCHMARKS-quick.md)
#   scripts/bench.sh micro     package-benchmark micro-benchmarks (lookup, insert batch, scan; allocations)
# Needs libsqlite3-dev, libsodium-dev, liblz4-dev (apt) and a Swift 6.1+ toolchain; the SQLCipher
# peer (issue 6) needs libsqlcipher-dev, which the engine modes install with apt-get when they may
# (root or passwordless sudo; BENCH_NO_INSTALL=1 turns that off). Without it the engine benchmark
# skips SQLCipher and its report says "not measured (libsqlcipher-dev missing)".
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-full}"
work="${BENCH_WORK_DIR:-${TMPDIR:-/tmp}/offline-odata-engine-bench}"
results=Benchmarks/results
quick=Benchmarks/.build/results-quick
engine_bin=Benchmarks/.build/release/engine-bench
json_bin=Benchmarks/.build/release/json-bench
query_bin=Benchmarks/.build/release/query-bench
store_bin=Benchmarks/.build/release/store-bench

build() { for p in "$@"; do swift build -c release --package-path Benchmarks --product "$p"; done; }

# The SQLCipher worker is its own product (libsqlcipher and libsqlite3 cannot share a process);
# engine-bench finds it next to itself. Built only when pkg-config finds sqlcipher: without the
# library its target cannot compile (the other products build regardless, with a warning).
build_sqlcipher() {
  if ! pkg-config --exists sqlcipher 2>/dev/null && [ -z "${BENCH_NO_INSTALL:-}" ] && command -v apt-get >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      apt-get install -y libsqlcipher-dev >&2 || true
    elif sudo -n true 2>/dev/null; then
      sudo -n apt-get install -y libsqlcipher-dev >&2 || true
    fi
  fi
  if pkg-config --exists sqlcipher 2>/dev/null; then
    build sqlcipher-worker
  else
    echo "bench.sh: libsqlcipher-dev missing (pkg-config sqlcipher): SQLCipher is not measured" >&2
  fi
}

# assemble OUT COMMAND SECTION...: header, the §5 summary (rows between the `goals` markers of
# each section, prefixed with the benchmark's name), then the sections themselves.
assemble() {
  local out=$1 command=$2
  shift 2
  local cpu cores mem commit
  cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)
  cores=$(nproc 2>/dev/null || echo "?")
  mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null || echo "?")
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  {
    echo "# Benchmarks"
    echo
    echo "Assembled by \`scripts/bench.sh\` from the sections under \`$(dirname "$1")/\`; do not edit by hand."
    echo
    echo "- What: the storage engine against SQLite (issue 2, \`engine-bench\`) and SQLCipher (issue 6), OData JSON parse throughput"
    echo "  against Foundation (issue 3, \`json-bench\`) and OData queries against SQLite typed columns and SQLite over"
    echo "  JSON text (issue 4, \`query-bench\`), all in the separate \`Benchmarks/\` SwiftPM package, release builds."
    echo "- Reproduce: \`$command\` (all, ≈ 100 min on 2 cores, the first time: the 1M query stores load once); one part: \`make bench-engine\` (≈ 45 min), \`make bench-store\` (≈ 6 min),"
    echo "  \`make bench-json\` (≈ 3 min) or \`make bench-query\` (≈ 10 min); \`make bench-report\` only reassembles this file; \`make bench-quick\` is the"
    echo "  < 3 min smoke run (report in \`Benchmarks/.build/BENCHMARKS-quick.md\`)."
    echo "- Machine: \`$(uname -srm)\`, $cpu, $cores cores, $mem; shared with other work, so absolute figures are noisy"
    echo "  (every comparison is measured side by side in one run, interleaved)."
    echo "- Assembled at commit \`$commit\`, $(date -u +%Y-%m-%dT%H:%M:%SZ); each section states the commit and date it was measured at."
    echo
    echo "## Summary: DESIGN.md §5 goals"
    echo
    echo "| benchmark | workload | bar | goal | measured | status |"
    echo "| --- | --- | --- | --- | --- | --- |"
    local f name
    for f in "$@"; do
      case "$(basename "$f" .md)" in
        engine) name="engine (ours encrypted vs SQLite, SQLCipher)" ;;
        json) name="JSON parse (ours vs Foundation)" ;;
        query) name="OData queries (ours vs SQLite)" ;;
        store) name="offline store (ours vs SQLite)" ;;
        *) name="$(basename "$f" .md)" ;;
      esac
      if [ -f "$f" ]; then
        awk '/<!-- goals:end -->/ {on = 0} on {print} /<!-- goals:begin -->/ {on = 1}' "$f" | sed "s/^| /| $name | /"
      else
        echo "| $name | (no results: $f missing) | | | | not measured |"
      fi
    done
    for f in "$@"; do
      [ -f "$f" ] || continue
      echo
      cat "$f"
    done
  } > "$out"
  echo "bench.sh: wrote $out" >&2
}

run_engine() { # OUT-FILE COMMAND RECORDS ROUNDS LOOKUPS
  "$engine_bin" run --records "$3" --rounds "$4" --lookups "$5" --work-dir "$work" --out "$1" --command "$2"
}
run_json() { # OUT-FILE COMMAND MEGABYTES ROUNDS QUIET-WAIT-SECONDS
  "$json_bin" run --megabytes "$3" --rounds "$4" --quiet-wait "$5" --work-dir "$work" --out "$1" --command "$2"
}
run_query() { # OUT-FILE COMMAND ORDERS ROUNDS QUIET-WAIT-SECONDS
  "$query_bin" run --orders "$3" --rounds "$4" --quiet-wait "$5" --work-dir "$work/query" --out "$1" --command "$2"
}
run_store() { # OUT-FILE COMMAND ORDERS ROUNDS UPDATES
  "$store_bin" run --orders "$3" --rounds "$4" --updates "$5" --work-dir "$work/store" --out "$1" --command "$2"
}
sections=("$results/engine.md" "$results/json.md" "$results/query.md" "$results/store.md")

case "$mode" in
  full)
    build engine-bench json-bench query-bench store-bench
    build_sqlcipher
    run_engine "$results/engine.md" "make bench" 1000000,100000 3 200000
    run_json "$results/json.md" "make bench" 100 5 15
    run_query "$results/query.md" "make bench" 1000000,100000 3 10
    run_store "$results/store.md" "make bench" 10000,100000 3 500
    assemble BENCHMARKS.md "make bench" "${sections[@]}"
    ;;
  engine)
    build engine-bench
    build_sqlcipher
    run_engine "$results/engine.md" "make bench-engine" 1000000,100000 3 200000
    assemble BENCHMARKS.md "make bench" "${sections[@]}"
    ;;
  json)
    build json-bench
    run_json "$results/json.md" "make bench-json" 100 5 15
    assemble BENCHMARKS.md "make bench" "${sections[@]}"
    ;;
  query)
    build query-bench
    run_query "$results/query.md" "make bench-query" 1000000,100000 3 10
    assemble BENCHMARKS.md "make bench" "${sections[@]}"
    ;;
  store)
    build store-bench
    run_store "$results/store.md" "make bench-store" 10000,100000 3 500
    assemble BENCHMARKS.md "make bench" "${sections[@]}"
    ;;
  report)
    assemble BENCHMARKS.md "make bench" "${sections[@]}"
    ;;
  quick)
    build engine-bench json-bench query-bench store-bench
    build_sqlcipher
    mkdir -p "$quick"
    run_engine "$quick/engine.md" "make bench-quick" 100000 1 50000
    run_json "$quick/json.md" "make bench-quick" 10 1 0
    run_query "$quick/query.md" "make bench-quick" 10000 1 0
    run_store "$quick/store.md" "make bench-quick" 2000 1 100
    assemble Benchmarks/.build/BENCHMARKS-quick.md "make bench-quick" "$quick/engine.md" "$quick/json.md" "$quick/query.md" "$quick/store.md"
    cat Benchmarks/.build/BENCHMARKS-quick.md
    ;;
  micro)
    swift package --package-path Benchmarks --allow-writing-to-directory "${TMPDIR:-/tmp}" benchmark
    ;;
  *)
    echo "usage: scripts/bench.sh full|engine|json|query|store|report|quick|micro" >&2
    exit 2
    ;;
esac
