# Benchmarks (Benchmarks/ package; see BENCHMARKS.md). Not part of the default test run.
.PHONY: bench bench-quick bench-micro

# Full suite: 1M and 100k records, 3 interleaved rounds; regenerates BENCHMARKS.md.
bench:
	scripts/bench.sh full

# CI smoke: 100k records, 1 round, under 3 minutes; report in Benchmarks/.build/BENCHMARKS-quick.md.
bench-quick:
	scripts/bench.sh quick

# package-benchmark micro-benchmarks with allocation counts.
bench-micro:
	scripts/bench.sh micro
