#!/usr/bin/env python3
"""Growth curves of the benchmark suite (issue 6): cost against store size, one line per peer.

Reads the CSVs the benchmark tools write with `--csv` (columns workload,scale,peer,value,unit;
Benchmarks/results/{engine,query,store}.csv) and writes PNGs plus `plots.md`, the Markdown body
of BENCHMARKS.md's "Growth curves" section (image links and which scales each CSV holds):

    python3 scripts/plot.py [--results Benchmarks/results] [--out Benchmarks/results/plots]
                            [--link-prefix Benchmarks/results/plots]

Plots (log-log; x = the benchmark's scale: records for the engine, SalesOrders for the query
benchmark, entities of all five sets for the store benchmark):
  ingest.png      µs per entity: engine durable insert (`.full` vs WAL+FULL, through close) and
                  store download apply
  point-read.png  µs per lookup: engine random point read, warm, big cache
  filter.png      ms per query: indexed equality, indexed range, non-indexed compound filter
  memory.png      MiB: peak RSS of the engine's durable insert, the store's download and the
                  query benchmark's load
  encryption.png  % (linear y): encryption overhead of our store against itself unencrypted
                  (query: CPU per query, `query-enc-overhead.*`; store: `enc-overhead.*`), one
                  line per workload, with DESIGN.md §5's bar (10 %) and goal (5 %)
Peers (one line each where a CSV has them): ours encrypted (`ours-enc`) and unencrypted
(`ours-plain`), SQLite (`sqlite`: typed tables in the query and store benchmarks), SQLCipher
(`sqlcipher`: the same typed tables), SQLite over JSON text (`sqlite-json`).
Needs matplotlib (scripts/bench.sh installs it with pip when it can). A plot whose CSV rows are
missing is skipped with a message; nothing is invented.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

# Peer id (ResultsCSV) → legend label and style; the order of the legend.
PEERS = [
    ("ours-enc", "ours encrypted", "tab:blue", "o", "-"),
    ("ours-plain", "ours unencrypted", "tab:cyan", "s", "--"),
    ("sqlite", "SQLite", "tab:orange", "^", "-"),
    ("sqlcipher", "SQLCipher", "tab:red", "v", "-"),
    ("sqlite-json", "SQLite JSON", "tab:green", "D", ":"),
]


def read_csv(path):
    """workload → peer → {scale: value}; units per workload."""
    data = defaultdict(lambda: defaultdict(dict))
    units = {}
    if not os.path.exists(path):
        return data, units
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                scale, value = int(row["scale"]), float(row["value"])
            except (KeyError, ValueError):
                continue
            data[row["workload"]][row["peer"]][scale] = value
            units[row["workload"]] = row["unit"]
    return data, units


def series(data, workload, transform=None):
    """peer → sorted [(scale, value)] for one workload."""
    out = {}
    for peer, points in data.get(workload, {}).items():
        pts = sorted((s, transform(v) if transform else v) for s, v in points.items())
        pts = [(s, v) for s, v in pts if v > 0]
        if pts:
            out[peer] = pts
    return out


def scale_label(s):
    if s >= 1_000_000 and s % 1_000_000 == 0:
        return f"{s // 1_000_000}M"
    if s >= 1000 and s % 1000 == 0:
        return f"{s // 1000}k"
    return f"{s:,}"


def grouped(n):
    return f"{n:,}"


def draw(ax, lines, title, ylabel, xlabel):
    """One panel: a line per peer; returns False when there is nothing to draw."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator
    drawn = False
    for peer, label, color, marker, style in PEERS:
        pts = lines.get(peer)
        if not pts:
            continue
        xs, ys = zip(*pts)
        ax.plot(xs, ys, label=label, color=color, marker=marker, linestyle=style)
        drawn = True
    ax.set_title(title, fontsize=10)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    if drawn:
        scales = sorted({s for pts in lines.values() for s, _ in pts})
        ax.set_xticks(scales)
        ax.set_xticklabels([scale_label(s) for s in scales], fontsize=8)
        ax.xaxis.set_minor_locator(NullLocator())
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        # Minor tick labels: all within a decade, 2 and 5 within three decades, none beyond (they crowd).
        values = [v for pts in lines.values() for _, v in pts]
        span = max(values) / min(values)
        if span >= 10:
            ax.yaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)) if span < 1000 else NullLocator())
        ax.yaxis.set_minor_formatter(plain if span < 1000 else NullFormatter())
        ax.tick_params(axis="y", which="both", labelsize=8)
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "not measured", ha="center", va="center", transform=ax.transAxes)
    return drawn


def figure(plt, out, name, panels, suptitle):
    """panels: [(lines, title, ylabel, xlabel)]; writes out/name unless every panel is empty."""
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    drawn = [draw(ax, *p) for ax, p in zip(axes[0], panels)]
    if not any(drawn):
        plt.close(fig)
        print(f"plot.py: {name}: no data in the CSVs, skipped", file=sys.stderr)
        return False
    fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout()
    path = os.path.join(out, name)
    # Fixed metadata so an unchanged input gives byte-identical PNGs (no churn in git).
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)
    print(f"plot.py: wrote {path}", file=sys.stderr)
    return True


def overhead_figure(plt, out, name, panels, suptitle):
    """panels: [(lines: {label: [(scale, percent)]}, title, xlabel)]; linear y with the §5 bar and
    goal as horizontal lines; writes out/name unless every panel is empty."""
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    drawn = []
    for ax, (lines, title, xlabel) in zip(axes[0], panels):
        for label, pts in sorted(lines.items()):
            xs, ys = zip(*pts)
            ax.plot(xs, ys, label=label, marker="o")
        ax.axhline(10, color="tab:red", linestyle="--", linewidth=1, label="bar 10 %")
        ax.axhline(5, color="tab:green", linestyle=":", linewidth=1, label="goal 5 %")
        ax.axhline(0, color="black", linewidth=0.5)
        ax.set_title(title, fontsize=10)
        ax.set_xscale("log")
        ax.set_xlabel(xlabel, fontsize=9)
        ax.set_ylabel("% (ours encrypted / unencrypted − 1)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        if lines:
            from matplotlib.ticker import NullLocator
            scales = sorted({s for pts in lines.values() for s, _ in pts})
            ax.set_xticks(scales)
            ax.set_xticklabels([scale_label(s) for s in scales], fontsize=8)
            ax.xaxis.set_minor_locator(NullLocator())
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "not measured", ha="center", va="center", transform=ax.transAxes)
        drawn.append(bool(lines))
    if not any(drawn):
        plt.close(fig)
        print(f"plot.py: {name}: no data in the CSVs, skipped", file=sys.stderr)
        return False
    fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout()
    path = os.path.join(out, name)
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)
    print(f"plot.py: wrote {path}", file=sys.stderr)
    return True


def overhead_lines(data, prefix, peer="ours-enc"):
    """label → sorted [(scale, percent)] for every workload id starting with prefix."""
    out = {}
    for workload, peers in data.items():
        if workload.startswith(prefix) and peer in peers:
            out[workload[len(prefix):]] = sorted(peers[peer].items())
    return out


def coverage(label, data, unit_name):
    scales = sorted({s for peers in data.values() for pts in peers.values() for s in pts})
    if not scales:
        return f"- {label}: no CSV rows (not measured since `--csv` was added)"
    return f"- {label}: {', '.join(grouped(s) for s in scales)} {unit_name}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default="Benchmarks/results")
    ap.add_argument("--out", default=None)
    ap.add_argument("--link-prefix", default=None, help="image path prefix in plots.md")
    args = ap.parse_args()
    out = args.out or os.path.join(args.results, "plots")
    link = args.link_prefix or out
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed (python3 -m pip install --user matplotlib); no plots", file=sys.stderr)
        return 3
    os.makedirs(out, exist_ok=True)
    engine, _ = read_csv(os.path.join(args.results, "engine.csv"))
    query, _ = read_csv(os.path.join(args.results, "query.csv"))
    store, _ = read_csv(os.path.join(args.results, "store.csv"))

    per_record = lambda rate: 1e6 / rate  # rows/s → µs per row
    written = []
    if figure(plt, out, "ingest.png", [
        (series(engine, "insert.full-vs-wal-full-through-close", per_record),
         "engine: batched durable insert\n(ours .full vs WAL+FULL, through close)", "µs per record", "records"),
        (series(store, "download.us-per-entity"),
         "offline store: download apply\n(OData JSON pages, all five sets)", "µs per entity", "entities (all five sets)"),
    ], "Ingest cost against store size (lower is better)"):
        written.append(("ingest.png", "Ingest: µs per record (engine durable insert) and per entity (store download apply)"))
    if figure(plt, out, "point-read.png", [
        (series(engine, "lookup.big-cache-as-inserted"),
         "engine: random point read by key\n(warm, big cache, as inserted)", "µs per lookup", "records"),
    ], "Point read cost against store size (lower is better)"):
        written.append(("point-read.png", "Point read: µs per lookup"))
    if figure(plt, out, "filter.png", [
        (series(query, "query.eq-indexed"), "indexed equality\n(LifecycleStatus eq 'N', ≈ 1.7 %)", "ms per query (wall, median)", "SalesOrders"),
        (series(query, "query.range-indexed"), "indexed range\n(GrossAmount in [4000, 4500), ≈ 2.5 %)", "ms per query (wall, median)", "SalesOrders"),
        (series(query, "query.filter-nonindexed"), "non-indexed compound filter\n(≈ 1.1 %)", "ms per query (wall, median)", "SalesOrders"),
    ], "OData $filter cost against store size (lower is better)"):
        written.append(("filter.png", "$filter: ms per query (indexed equality, indexed range, non-indexed)"))
    if figure(plt, out, "memory.png", [
        (series(engine, "rss.full-vs-wal-full"), "engine: peak RSS of the durable insert", "MiB (VmHWM)", "records"),
        (series(store, "download.peak-rss"), "offline store: peak RSS during the download", "MiB (VmHWM)", "entities (all five sets)"),
        (series(query, "load.peak-rss"), "query benchmark: peak RSS while loading", "MiB (VmHWM)", "SalesOrders"),
    ], "Peak memory against store size (lower is better)"):
        written.append(("memory.png", "Peak memory (MiB)"))
    if overhead_figure(plt, out, "encryption.png", [
        (overhead_lines(query, "query-enc-overhead."), "OData queries: CPU per query", "SalesOrders"),
        (overhead_lines(store, "enc-overhead."), "offline store: download, update median, reopen", "entities (all five sets)"),
    ], "Encryption overhead against our unencrypted store (lower is better)"):
        written.append(("encryption.png", "Encryption overhead: ours encrypted against ours unencrypted (%)"))

    with open(os.path.join(out, "plots.md"), "w") as f:
        f.write("Drawn by `scripts/plot.py` from the CSVs the benchmarks write beside their sections "
                "(`workload,scale,peer,value,unit`, medians over rounds); log-log, one line per peer. "
                "Scales in the CSVs:\n\n")
        f.write(coverage("`engine.csv`", engine, "records") + "\n")
        f.write(coverage("`query.csv`", query, "SalesOrders") + "\n")
        f.write(coverage("`store.csv`", store, "entities") + "\n\n")
        f.write("`scripts/bench.sh` writes each CSV in the same run as its section below; when a CSV's scales differ "
                "from its section's, the two come from different runs (compare the section's commit and date).\n\n")
        for name, caption in written:
            f.write(f"![{caption}]({link}/{name})\n\n")
    print(f"plot.py: wrote {os.path.join(out, 'plots.md')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
