# Benchmarks (Benchmarks/ package; see BENCHMARKS.md, Benchmarks/README.md). Not part of the default test run.
# Every measuring target writes Benchmarks/results/NAME.md and its CSV twin NAME.csv, redraws the growth
# curves (scripts/plot.py → Benchmarks/results/plots/*.png; needs Python 3 + matplotlib, which bench.sh
# installs with pip when it can) and reassembles BENCHMARKS.md. Scales: ENGINE_SCALES, QUERY_SCALES,
# STORE_SCALES (comma-separated), e.g. `make bench-store STORE_SCALES=10000,100000`. Peers of the query and store
# benchmarks (default all: ours, ours-plain, sqlite-typed, sqlcipher-typed, and sqlite-json for queries): QUERY_PEERS,
# STORE_PEERS, e.g. `make bench-query QUERY_PEERS=ours,ours-plain`.
.PHONY: bench bench-engine bench-json bench-query bench-store bench-sync bench-media bench-report bench-plots bench-quick bench-micro \
	bench-micro-check bench-micro-thresholds bench-instructions

export ENGINE_SCALES ENGINE_ROUNDS QUERY_SCALES STORE_SCALES SYNC_SCALES QUERY_PEERS STORE_PEERS

# Full suite: engine (1M, 100k and 10k records, 3 interleaved rounds), JSON parse (100 MB, 5 rounds),
# OData queries (1M, 100k and 10k SalesOrders, 3 rounds) and the offline store (10k, 100k and 1M
# entities, 3 rounds). Measured at 64d2a6f on the shared 2-core machine: 1 h 16 min (engine 41 min, JSON 6, queries 16 with
# our query stores reloaded and the SQLite ones reused, store 13).
bench:
	scripts/bench.sh full

# One benchmark (its section only), then plots + BENCHMARKS.md. Engine ≈ 30–45 min (1M, 100k, 10k; 3 rounds,
# ENGINE_ROUNDS=5 ≈ 50 min).
bench-engine:
	scripts/bench.sh engine

# JSON parse (100 MB), ≈ 3–8 min (waits for idle CPU).
bench-json:
	scripts/bench.sh json

# OData queries, ours encrypted and unencrypted vs SQLite typed columns, SQLCipher (same tables) and SQLite over JSON
# text (issues 4, 6) at 1M, 100k, 10k SalesOrders; the stores
# are loaded once and reused (≈ 15 min the first time, ≈ 8 min after: 5 rounds).
bench-query:
	scripts/bench.sh query

# The offline store, encrypted and unencrypted, vs SQLite and SQLCipher (issues 5, 6): download apply, queued durable updates, reopen to first query,
# at 10k, 100k and 1M entities (all five sets; 5.5 per SalesOrder): ≈ 11 min for the three sizes with two
# peers (measured), an estimated ≈ 20–25 min with the four of issue 6.
bench-store:
	scripts/bench.sh store

# Sync (issue 29): the provider's initial download of `SalesOrders?$expand=ToItems` over loopback HTTP against
# applyDownload from memory and a SQLite client (URLSession, JSONSerialization, typed inserts), and a 1 % delta,
# at SYNC_SCALES (default 100000,1000000 entities), 3 rounds: ≈ 4 min measured.
bench-sync:
	scripts/bench.sh sync

# Media streams (issue 33): one 100 MB stream written and read, ours encrypted vs a plain file and SQLite blobs,
# 3 rounds, each peer in its own process: ≈ 1 min once built (measured 6 s of runs).
bench-media:
	scripts/bench.sh media

# Redraw the plots from Benchmarks/results/*.csv and reassemble BENCHMARKS.md from results/*.md; no measuring.
bench-report:
	scripts/bench.sh report

# Redraw the plots only.
bench-plots:
	scripts/bench.sh plots

# CI smoke, every peer: engine 100k records + JSON 10 MB + queries at 10k + store at 10k entities, 1 round, under
# 3 minutes on an idle machine (65 s measured before the query/store peers of issue 6; 195 s with them and fresh
# query stores at a load average of 11–13 on the 2 cores); Benchmarks/.build/BENCHMARKS-quick.md (CSVs and plots in Benchmarks/.build/results-quick/).
bench-quick:
	scripts/bench.sh quick

# package-benchmark micro-benchmarks (EngineMicro, StoreMicro) with wall clock and allocation counts.
bench-micro:
	scripts/bench.sh micro

# Allocation counts of the micro-benchmarks against the thresholds in Benchmarks/Thresholds/
# (fails on a change beyond the tolerance set in the benchmarks' `thresholds:`). ≈ 1 min once built (the first
# build of the micro-benchmark targets takes several minutes).
bench-micro-check:
	scripts/bench.sh micro-check

# Re-record Benchmarks/Thresholds/ after an intended change in allocations (then commit the JSON files).
bench-micro-thresholds:
	scripts/bench.sh micro-thresholds

# Instructions per query (callgrind) of ours and SQLite typed on the query benchmark's stores: a
# comparison of code that the machine's noise does not move (it is not a time; see
# scripts/instructions.sh). INSTR_ORDERS (default 1000000), INSTR_WORKLOADS, INSTR_PEERS, INSTR_SECONDS.
# Measured: 28 s for two workloads and two peers at 10k SalesOrders (stores loaded).
bench-instructions:
	scripts/instructions.sh
