#!/usr/bin/env bash
# Instructions per query (callgrind), ours and SQLite typed, on the query benchmark's stores: a
# measure of the code that the machine's noise does not move (CPU time of one peer's process moves
# by up to 2x between runs on the shared 2-core machine; instruction counts repeat to the unit).
# It does not replace `make bench-query` (time, cache misses and page faults are not instructions).
#   scripts/instructions.sh                     all query workloads at 1M SalesOrders
#   INSTR_ORDERS=100000 INSTR_WORKLOADS=top-indexed,expand-items INSTR_PEERS=ours scripts/instructions.sh
# Per workload and peer, two callgrind runs of the worker (the warm-up execution plus at least 3
# timed ones, then about INSTR_SECONDS of them); the difference over the difference in executions is
# the steady-state count of one execution, without opening the store and the warm-up's block reads.
# Stores come from `make bench-query` (BENCH_WORK_DIR, default /tmp/offline-odata-engine-bench) and
# are loaded here when missing. Needs valgrind (installed with apt-get when root). Writes
# Benchmarks/.build/instructions.md.
set -euo pipefail
cd "$(dirname "$0")/.."
orders="${INSTR_ORDERS:-1000000}"
workloads="${INSTR_WORKLOADS:-eq-indexed,range-indexed,top-indexed,expand-items,count-indexed}"
peers="${INSTR_PEERS:-ours,sqlite-typed}"
seconds="${INSTR_SECONDS:-1}"
work="${BENCH_WORK_DIR:-${TMPDIR:-/tmp}/offline-odata-engine-bench}/query"
bin=Benchmarks/.build/release/query-bench
out=Benchmarks/.build/instructions.md

scripts/ensure-deps.sh libsqlite3-dev
if ! command -v valgrind >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y valgrind >&2; else echo "instructions.sh: valgrind is needed" >&2; exit 1; fi
fi
swift build -c release --package-path Benchmarks --product query-bench

# The peer's run function, for callgrind's --toggle-collect (only the queries are counted).
collect() {
  case "$1" in
    ours|ours-plain) echo '*query_bench4oursC3runy*' ;;
    sqlite-typed) echo '*SQLiteTypedPeerC3runy*' ;;
    *) echo "instructions.sh: no run function known for peer $1" >&2; exit 1 ;;
  esac
}

# Prints "instructions executions" of one callgrind run.
measure() { # PEER DIR WORKLOAD SECONDS
  local log metrics
  log="$(mktemp)"; metrics="$(mktemp)"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$(collect "$1")" \
    "$bin" query --peer "$1" --orders "$orders" --dir "$2" --workloads "$3" --min-seconds "$4" >"$metrics" 2>"$log"
  local total runs
  total="$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log")"
  runs="$(sed -n "s/^METRIC $3\.runs \([0-9.]*\)$/\1/p" "$metrics")"
  rm -f "$log" "$metrics"
  echo "$total ${runs%.*}"
}

{
  echo "## Instructions per query (callgrind), $orders SalesOrders, commit $(git rev-parse --short HEAD)"
  echo
  echo "| workload | peer | instructions per query | executions counted |"
  echo "| --- | --- | ---: | ---: |"
} >"$out.tmp"
IFS=, read -ra peer_list <<<"$peers"
IFS=, read -ra workload_list <<<"$workloads"
for peer in "${peer_list[@]}"; do
  dir="$work/$peer-$orders"
  if [ ! -f "$dir/load.metrics" ]; then
    echo "instructions.sh: loading $peer at $orders SalesOrders into $dir" >&2
    rm -rf "$dir" && mkdir -p "$dir"
    "$bin" load --peer "$peer" --orders "$orders" --dir "$dir" >"$dir/load.metrics"
  fi
  for workload in "${workload_list[@]}"; do
    read -r short_total short_runs <<<"$(measure "$peer" "$dir" "$workload" 0)"
    read -r long_total long_runs <<<"$(measure "$peer" "$dir" "$workload" "$seconds")"
    if [ "$long_runs" -gt "$short_runs" ]; then
      per=$(( (long_total - short_total) / (long_runs - short_runs) ))
      echo "| \`$workload\` | $peer | $per | $((long_runs - short_runs)) |" >>"$out.tmp"
      echo "instructions.sh: $workload $peer: $per per query" >&2
    else
      echo "| \`$workload\` | $peer | (too few executions: raise INSTR_SECONDS) | 0 |" >>"$out.tmp"
    fi
  done
done
mv "$out.tmp" "$out"
cat "$out"
