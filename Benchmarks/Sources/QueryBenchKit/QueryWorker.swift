import BenchCommon
import Foundation

/// The child processes query-bench's driver starts: one load per peer and size, one query pass
/// per peer, size and round. Each prints `METRIC name value` lines. Shared by `query-bench`
/// (`load` / `query`: ours, ours-plain, sqlite-typed, sqlite-json) and `sqlcipher-worker`
/// (`query load` / `query query`: sqlcipher-typed), so every peer is measured by the same code.
public enum QueryWorker {
    public static func emit(_ name: String, _ value: Double) {
        FileHandle.standardOutput.write(Data("METRIC \(name) \(value)\n".utf8))
    }

    /// Creates the peer's store in `directory` and loads the data set; times only the peer's
    /// `load` calls (generating the JSON is not timed) and `finishLoad` separately.
    public static func load(_ type: any QueryPeer.Type, orders: Int, directory: String) throws {
        let data = QueryDataSet(orders: orders)
        emit("rss_start", Double(ProcStats.rss))
        let peer = try type.init(directory: directory, creating: true)
        var loadSeconds = 0.0, loadCPU = 0.0
        var entities = 0
        try data.forEachBatch { batch in
            let c = cpuTime(), t = now()
            try peer.load(batch)
            loadSeconds += now() - t
            loadCPU += cpuTime() - c
            entities += batch.entities.count
        }
        let t = now()
        try peer.finishLoad()
        let finish = now() - t
        let c = now()
        try peer.close()
        let close = now() - c
        guard entities == data.totalEntities else { throw BenchError("loaded \(entities) of \(data.totalEntities) entities") }
        emit("load_s", loadSeconds)
        emit("load_cpu_s", loadCPU)
        emit("finish_s", finish)
        emit("close_s", close)
        emit("entities", Double(entities))
        emit("size_bytes", Double(directorySize(directory)))
        emit("peak_rss_load", Double(ProcStats.peakRSS))
    }

    /// Opens the loaded store and runs every workload: one untimed warm-up run (its outcome is
    /// the reference), then timed runs until `minSeconds` have passed (at least 3); emits the
    /// median latency, CPU seconds per run, the run count and the outcome.
    public static func query(_ type: any QueryPeer.Type, orders: Int, directory: String, minSeconds: Double, only: Set<String>?) throws {
        let t0 = now()
        let peer = try type.init(directory: directory, creating: false)
        emit("open_s", now() - t0)
        for w in QueryWorkload.all(orders: orders) where only?.contains(w.id) ?? true {
            // A workload the peer cannot run is reported (and fails the run after the report is
            // written) without hiding the other workloads' figures.
            let reference: QueryOutcome
            do { reference = try peer.run(w) } catch {
                FileHandle.standardError.write(Data("query-bench: \(type.name) \(w.id): \(error)\n".utf8))
                emit("\(w.id).failed", 1)
                continue
            }
            var times: [Double] = []
            let j0 = ProcStats.cpuJiffies()
            let c0 = cpuTime(), start = now()
            repeat {
                let a = now()
                let outcome = try peer.run(w)
                times.append(now() - a)
                guard outcome == reference else {
                    throw BenchError("\(w.id): run gave \(outcome), warm-up gave \(reference)")
                }
            } while now() - start < minSeconds || times.count < 3
            let cpu = (cpuTime() - c0) / Double(times.count)
            if let idle = ProcStats.idleFraction(j0, ProcStats.cpuJiffies()) { emit("\(w.id).idle", idle) }
            times.sort()
            let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
            emit("\(w.id).median_s", median)
            emit("\(w.id).min_s", times[0])
            emit("\(w.id).cpu_s", cpu)
            emit("\(w.id).runs", Double(times.count))
            emit("\(w.id).rows", Double(reference.rows))
            emit("\(w.id).checksum_hi", Double(reference.checksum >> 32))
            emit("\(w.id).checksum_lo", Double(reference.checksum & 0xFFFF_FFFF))
        }
        try peer.close()
        emit("peak_rss_query", Double(ProcStats.peakRSS))
    }
}
