# Benchmarks (Benchmarks/ package; see BENCHMARKS.md). Not part of the default test run.
.PHONY: bench bench-engine bench-json bench-query bench-store bench-report bench-quick bench-micro

# Full suite: engine (1M and 100k records, 3 interleaved rounds), JSON parse (100 MB, 5 rounds) and
# OData queries (1M and 100k SalesOrders, 3 rounds); writes Benchmarks/results/{engine,json,query}.md
# and assembles BENCHMARKS.md.
bench:
	scripts/bench.sh full

# One benchmark at full size (its section only), then BENCHMARKS.md reassembled.
bench-engine:
	scripts/bench.sh engine

bench-json:
	scripts/bench.sh json

# OData queries vs SQLite typed columns / JSON text (issue 4); stores are loaded once and reused.
bench-query:
	scripts/bench.sh query

# The offline store vs SQLite (issue 5): download apply, queued durable updates, reopen to first query.
bench-store:
	scripts/bench.sh store

# Reassemble BENCHMARKS.md from Benchmarks/results/*.md without measuring.
bench-report:
	scripts/bench.sh report

# CI smoke: engine 100k records + JSON 10 MB + queries at 10k SalesOrders, 1 round, under 3 minutes;
# Benchmarks/.build/BENCHMARKS-quick.md.
bench-quick:
	scripts/bench.sh quick

# package-benchmark micro-benchmarks with allocation counts.
bench-micro:
	scripts/bench.sh micro
