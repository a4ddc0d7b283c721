#!/usr/bin/env bash
# Benchmarks (see BENCHMARKS.md, Benchmarks/README.md). Each benchmark writes its own section
# (Benchmarks/results/NAME.md) and, with --csv, its figures as CSV (Benchmarks/results/NAME.csv:
# workload,scale,peer,value,unit); this script assembles the sections into one report and draws the
# growth curves from the CSVs (scripts/plot.py → Benchmarks/results/plots/*.png).
#   scripts/bench.sh full      engine (1M, 100k, 10k records, 3 rounds), JSON (100 MB, 5 rounds), queries (1M, 100k,
#                              10k SalesOrders, 3 rounds) and the offline store (10k, 100k, 1M entities, 3 rounds);
#                              writes Benchmarks/results/{engine,json,query,store}.{md,csv}, the plots and BENCHMARKS.md
#   scripts/bench.sh engine    engine only (Benchmarks/results/engine.{md,csv}), then plots + BENCHMARKS.md
#   scripts/bench.sh json      JSON only (Benchmarks/results/json.{md,csv}), then plots + BENCHMARKS.md
#   scripts/bench.sh query     OData queries only (Benchmarks/results/query.{md,csv}), then plots + BENCHMARKS.md
#   scripts/bench.sh store     offline store vs SQLite and SQLCipher (download apply, queued durable updates, reopen;
#                              Benchmarks/results/store.{md,csv}), then plots + BENCHMARKS.md
# Peers (issue 6): engine, query and store all measure ours encrypted and unencrypted, SQLite and SQLCipher
# (query also SQLite over JSON text); QUERY_PEERS / STORE_PEERS (comma-separated, e.g. ours,ours-plain) select
# the query and store peers (default: all).
#   scripts/bench.sh report    redraws the plots from Benchmarks/results/*.csv and reassembles BENCHMARKS.md from
#                              Benchmarks/results/*.md (no measuring)
#   scripts/bench.sh plots     redraws the plots only
#   scripts/bench.sh quick     CI smoke, < 3 min: engine 100k records, JSON 10 MB, queries at 10k SalesOrders and the store
#                              at 10k entities, 1 round each, every peer; everything under Benchmarks/.build/ (results-quick/ with CSVs
#                              and plots, BENCHMARKS-quick.md)
#   scripts/bench.sh micro     package-benchmark micro-benchmarks (EngineMicro: lookup, insert batch, scan;
#                              StoreMicro: JSON parse, encode, decode, scan, queries; wall clock and allocations)
#   scripts/bench.sh micro-check       allocation counts (mallocCountTotal) of every micro-benchmark against the
#                              thresholds checked in under Benchmarks/Thresholds/ (exit 0 = within tolerance)
#   scripts/bench.sh micro-thresholds  re-records Benchmarks/Thresholds/ (after an intended change; commit the JSON)
# Scales (comma-separated, largest first for the engine and queries: its goals are judged at the largest):
#   ENGINE_SCALES (records, default 1000000,100000,10000), QUERY_SCALES (SalesOrders, default 1000000,100000,10000),
#   STORE_SCALES (entities of all five sets, 5.5 per SalesOrder; default 10000,100000,1000000).
# ENGINE_ROUNDS: rounds of the engine benchmark (default 3; each round starts every configuration's worker once,
#   so more rounds make the medians less sensitive to one process's memory placement, which moves warm-cache
#   reads by up to ±20 % between otherwise identical processes).
# Needs libsqlite3-dev, libsodium-dev, liblz4-dev (apt) and a Swift 6.1+ toolchain; the SQLCipher
# peers (issue 6) need libsqlcipher-dev, which the engine, query, store, full and quick modes install with
# apt-get when they may (root or passwordless sudo; BENCH_NO_INSTALL=1 turns that off). Without it the
# benchmarks skip SQLCipher and their reports say "not measured (libsqlcipher-dev missing)".
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-full}"
work="${BENCH_WORK_DIR:-${TMPDIR:-/tmp}/offline-odata-engine-bench}"
results=Benchmarks/results
quick=Benchmarks/.build/results-quick
engine_scales="${ENGINE_SCALES:-1000000,100000,10000}"
engine_rounds="${ENGINE_ROUNDS:-3}"
query_scales="${QUERY_SCALES:-1000000,100000,10000}"
store_scales="${STORE_SCALES:-10000,100000,1000000}"
sync_scales="${SYNC_SCALES:-100000,1000000}"
engine_bin=Benchmarks/.build/release/engine-bench
json_bin=Benchmarks/.build/release/json-bench
query_bin=Benchmarks/.build/release/query-bench
store_bin=Benchmarks/.build/release/store-bench

# The commit the binaries are built from, for the sections' headers (a full run takes hours, and
# HEAD may move meanwhile); "-dirty" when the sources differ from it.
if [ -z "${BENCH_COMMIT:-}" ]; then
  BENCH_COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  git diff --quiet HEAD -- Sources Benchmarks/Sources Package.swift Benchmarks/Package.swift 2>/dev/null || BENCH_COMMIT="$BENCH_COMMIT-dirty"
fi
export BENCH_COMMIT

# The libraries the package and the SQLite peer link: installed like the README's commands do, so a
# fresh machine can run `make bench-*` first (BENCH_NO_INSTALL=1: only check, never install).
if [ -z "${BENCH_NO_INSTALL:-}" ]; then
  scripts/ensure-deps.sh libsqlite3-dev
else
  pkg-config --exists libsodium liblz4 sqlite3 || { echo "bench.sh: libsodium-dev, liblz4-dev and libsqlite3-dev are needed" >&2; exit 1; }
fi

build() { for p in "$@"; do swift build -c release --package-path Benchmarks --product "$p"; done; }

# The SQLCipher worker is its own product (libsqlcipher and libsqlite3 cannot share a process);
# engine-bench, query-bench and store-bench find it next to themselves. Built only when pkg-config finds sqlcipher: without the
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

# plots RESULTS-DIR LINK-PREFIX: draws RESULTS-DIR/plots/*.png and plots.md from RESULTS-DIR/*.csv
# (scripts/plot.py); installs matplotlib with pip when it is missing, and skips the plots with a
# message when it cannot (the report then keeps the PNGs already there).
plots() {
  local dir=$1 link=$2
  if ! python3 -c 'import matplotlib' 2>/dev/null; then
    echo "bench.sh: matplotlib missing; trying python3 -m pip install --user matplotlib" >&2
    python3 -m pip install --user --quiet matplotlib >&2 || true
  fi
  if python3 -c 'import matplotlib' 2>/dev/null; then
    python3 scripts/plot.py --results "$dir" --out "$dir/plots" --link-prefix "$link" ||
      echo "bench.sh: scripts/plot.py failed; the growth curves were not redrawn" >&2
  else
    echo "bench.sh: no matplotlib (pip could not install it): the growth curves were not redrawn" >&2
  fi
}

# assemble OUT COMMAND PLOTS-MD SECTION...: header, the §5 summary (rows between the `goals` markers
# of each section, prefixed with the benchmark's name), the growth curves (PLOTS-MD, from plot.py),
# then the sections themselves.
assemble() {
  local out=$1 command=$2 plots_md=$3
  shift 3
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
    echo "  against Foundation (issue 3, \`json-bench\`), OData queries against SQLite typed columns, SQLCipher (same tables) and SQLite over"
    echo "  JSON text (issue 4, \`query-bench\`) and the offline store against SQLite and SQLCipher (issue 5, \`store-bench\`);"
    echo "  ours both encrypted and unencrypted everywhere (the encryption overhead), at 10k, 100k"
    echo "  and 1M records / SalesOrders (issue 6), all in the separate \`Benchmarks/\` SwiftPM package, release builds."
    echo "  Each section also has a CSV twin (\`Benchmarks/results/*.csv\`) that the growth curves below are drawn from."
    echo "- Reproduce: \`$command\` (all; measured at 64d2a6f on 2 cores: 1 h 16 min, our query stores reloaded and the SQLite ones"
    echo "  reused); one part: \`make bench-engine\` (41 min),"
    echo "  \`make bench-store\` (10k, 100k and 1M entities, four peers: 13 min), \`make bench-json\` (6 min) or"
    echo "  \`make bench-query\` (16 min reloading our stores, ≈ 4 min with every store reused); \`make bench-report\` only redraws the plots and"
    echo "  reassembles this file; \`make bench-quick\` is the < 3 min smoke run (report in \`Benchmarks/.build/BENCHMARKS-quick.md\`);"
    echo "  \`make bench-micro-check\` checks the micro-benchmarks' allocation counts against \`Benchmarks/Thresholds/\`."
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
        query) name="OData queries (ours vs SQLite, SQLCipher)" ;;
        store) name="offline store (ours vs SQLite, SQLCipher)" ;;
        sync) name="sync download (ours over HTTP vs applyDownload, SQLite client)" ;;
        sync-upload) name="sync upload (ours over loopback HTTP)" ;;
        media) name="media streams (ours vs a plain file, SQLite blobs)" ;;
        *) name="$(basename "$f" .md)" ;;
      esac
      if [ -f "$f" ]; then
        awk '/<!-- goals:end -->/ {on = 0} on {print} /<!-- goals:begin -->/ {on = 1}' "$f" | sed "s/^| /| $name | /"
      else
        echo "| $name | (no results: $f missing) | | | | not measured |"
      fi
    done
    echo
    echo "## Growth curves"
    echo
    if [ -f "$plots_md" ]; then
      cat "$plots_md"
    else
      echo "Not drawn: no \`$plots_md\` (run \`scripts/bench.sh plots\`; needs Python 3 with matplotlib and the CSVs)."
    fi
    for f in "$@"; do
      [ -f "$f" ] || continue
      echo
      cat "$f"
    done
  } > "$out"
  echo "bench.sh: wrote $out" >&2
}

# Each writes OUT-FILE (Markdown section) and its CSV twin (OUT-FILE with .csv).
run_engine() { # OUT-FILE COMMAND RECORDS ROUNDS LOOKUPS
  "$engine_bin" run --records "$3" --rounds "$4" --lookups "$5" --work-dir "$work" --out "$1" --csv "${1%.md}.csv" --command "$2"
}
run_json() { # OUT-FILE COMMAND MEGABYTES ROUNDS QUIET-WAIT-SECONDS
  "$json_bin" run --megabytes "$3" --rounds "$4" --quiet-wait "$5" --work-dir "$work" --out "$1" --csv "${1%.md}.csv" --command "$2"
}
run_query() { # OUT-FILE COMMAND ORDERS ROUNDS QUIET-WAIT-SECONDS
  "$query_bin" run --orders "$3" --rounds "$4" --quiet-wait "$5" --work-dir "$work/query" --out "$1" --csv "${1%.md}.csv" --command "$2" \
    ${QUERY_PEERS:+--peers "$QUERY_PEERS"}
}
run_store() { # OUT-FILE COMMAND ENTITIES ROUNDS UPDATES
  "$store_bin" run --entities "$3" --rounds "$4" --updates "$5" --work-dir "$work/store" --out "$1" --csv "${1%.md}.csv" --command "$2" \
    ${STORE_PEERS:+--peers "$STORE_PEERS"}
}
run_sync() { # OUT-FILE COMMAND ENTITIES ROUNDS
  Benchmarks/.build/release/sync-bench run --entities "$3" --rounds "$4" --page-size 1000 --work-dir "$work/sync" --out "$1" \
    --csv "${1%.md}.csv" --command "$2" --upload 0
}
run_sync_upload() { # OUT-FILE COMMAND CHANGES ROUNDS
  Benchmarks/.build/release/sync-bench run --entities "" --upload "$3" --rounds "$4" --page-size 1000 --work-dir "$work/sync" \
    --out "$1" --csv "${1%.md}.csv" --command "$2"
}
run_media() { # OUT-FILE MEGABYTES ROUNDS
  Benchmarks/.build/release/media-bench run --megabytes "$2" --rounds "$3" --out "$1" --csv "${1%.md}.csv"
}
sections=("$results/engine.md" "$results/json.md" "$results/query.md" "$results/store.md" "$results/sync.md" "$results/sync-upload.md"
  "$results/media.md")
# The report at the repository root links the plots by this path.
report() {
  plots "$results" "$results/plots"
  assemble BENCHMARKS.md "make bench" "$results/plots/plots.md" "${sections[@]}"
}

# package-benchmark (EngineMicro, StoreMicro). The threshold operations measure only the allocation
# count (`--metric`), the one metric stable enough to check on a shared machine; the tolerances are in
# each benchmark's `thresholds:` (StoreMicro.swift, EngineMicro.swift), the recorded p90 values in
# Benchmarks/Thresholds/ (one JSON per benchmark).
micro() { # benchmark ARGS...
  swift package --package-path Benchmarks --allow-writing-to-directory "${TMPDIR:-/tmp}" "$@"
}
threshold_metrics=(--metric mallocCountTotal)

case "$mode" in
  full)
    build engine-bench json-bench query-bench store-bench
    build_sqlcipher
    run_engine "$results/engine.md" "make bench" "$engine_scales" "$engine_rounds" 200000
    run_json "$results/json.md" "make bench" 100 5 15
    run_query "$results/query.md" "make bench" "$query_scales" 5 10
    run_store "$results/store.md" "make bench" "$store_scales" 3 500
    report
    ;;
  engine)
    build engine-bench
    build_sqlcipher
    run_engine "$results/engine.md" "make bench-engine${ENGINE_ROUNDS:+ ENGINE_ROUNDS=$engine_rounds}" "$engine_scales" "$engine_rounds" 200000
    report
    ;;
  json)
    build json-bench
    run_json "$results/json.md" "make bench-json" 100 5 15
    report
    ;;
  query)
    build query-bench
    build_sqlcipher
    run_query "$results/query.md" "make bench-query" "$query_scales" 5 10
    report
    ;;
  store)
    build store-bench
    build_sqlcipher
    run_store "$results/store.md" "make bench-store" "$store_scales" 3 500
    report
    ;;
  sync)
    build sync-bench
    run_sync "$results/sync.md" "make bench-sync" "$sync_scales" 3
    run_sync_upload "$results/sync-upload.md" "make bench-sync" 10000 3
    report
    ;;
  media)
    build media-bench
    run_media "$results/media.md" 100 3
    report
    ;;
  report)
    report
    ;;
  plots)
    plots "$results" "$results/plots"
    ;;
  quick)
    build engine-bench json-bench query-bench store-bench
    build_sqlcipher
    mkdir -p "$quick"
    run_engine "$quick/engine.md" "make bench-quick" 100000 1 50000
    run_json "$quick/json.md" "make bench-quick" 10 1 0
    run_query "$quick/query.md" "make bench-quick" 10000 1 0
    run_store "$quick/store.md" "make bench-quick" 10000 1 100
    plots "$quick" "results-quick/plots"
    assemble Benchmarks/.build/BENCHMARKS-quick.md "make bench-quick" "$quick/plots/plots.md" "$quick/engine.md" "$quick/json.md" "$quick/query.md" "$quick/store.md"
    cat Benchmarks/.build/BENCHMARKS-quick.md
    ;;
  micro)
    micro benchmark
    ;;
  micro-check)
    micro benchmark thresholds check --path "$PWD/Benchmarks/Thresholds" "${threshold_metrics[@]}" --no-progress
    ;;
  micro-thresholds)
    micro --allow-writing-to-package-directory benchmark thresholds update --path "$PWD/Benchmarks/Thresholds" "${threshold_metrics[@]}" --no-progress
    ;;
  *)
    echo "usage: scripts/bench.sh full|engine|json|query|store|sync|media|report|plots|quick|micro|micro-check|micro-thresholds" >&2
    exit 2
    ;;
esac
