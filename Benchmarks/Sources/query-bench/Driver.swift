import BenchCommon
import Foundation
import QueryBenchKit

/// Metric samples of one size: peer name → metric → one sample per round (load: one sample).
struct SizeResult {
    var orders: Int
    var entities: Int
    /// Load metrics per peer (from the load worker, or from the reused store's record).
    var load: [String: [String: Double]] = [:]
    /// Whether the peer's store was loaded in this run (false: reused from an earlier run).
    var loadedNow: [String: Bool] = [:]
    var samples: [String: [String: [Double]]] = [:]
    /// Query plans (EXPLAIN QUERY PLAN) per peer and workload id.
    var plans: [String: [String: [String]]] = [:]

    func median(_ peer: String, _ metric: String) -> Double? {
        guard let xs = samples[peer]?[metric], !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// The lowest sample over the rounds: the peer's fastest round. On the shared machine the
    /// noise only adds time (every peer has rounds at about twice its best, in any order), so
    /// the goal status compares each peer's fastest round; the medians are shown beside it.
    func lowest(_ peer: String, _ metric: String) -> Double? {
        samples[peer]?[metric]?.min()
    }

    /// The outcome (rows, checksum) of every round of a peer's workload; nil if not measured.
    func outcomes(_ peer: String, _ id: String) -> [QueryOutcome]? {
        guard let m = samples[peer], let rows = m["\(id).rows"], let hi = m["\(id).checksum_hi"],
              let lo = m["\(id).checksum_lo"], rows.count == hi.count, hi.count == lo.count else { return nil }
        return rows.indices.map { QueryOutcome(rows: Int(rows[$0]), checksum: UInt64(hi[$0]) << 32 | UInt64(lo[$0])) }
    }
}

/// Runs the benchmark: per size, loads each peer's store once (reused by later runs when it
/// holds the same data), then every round starts one query worker per peer (order rotated).
struct Driver {
    let sizes: [Int]
    let rounds: Int
    let minSeconds: Double
    let workDirectory: String
    let reload: Bool
    let only: String?
    /// The peers measured (default: every peer in `allPeerNames` that can run here).
    let peers: [PeerEntry]
    /// Peers left out of the run and why (the SQLCipher peer without `sqlcipher-worker`), for the report.
    let notMeasured: [String: String]
    /// Longest wait for a quieter machine before each query process (0: none).
    let quietWait: Double
    /// The CPU every query process is pinned to (nil: none; `Workers.pinnedCPU`).
    let cpu: Int?

    func log(_ s: String) {
        FileHandle.standardError.write(Data(("query-bench: " + s + "\n").utf8))
    }

    func storeDirectory(_ peer: String, _ orders: Int) -> String { "\(workDirectory)/\(peer)-\(orders)" }

    func run() throws -> [SizeResult] {
        let fm = FileManager.default
        try fm.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        var results: [SizeResult] = []
        for orders in sizes {
            let data = QueryDataSet(orders: orders)
            var result = SizeResult(orders: orders, entities: data.totalEntities)
            for type in peers {
                let dir = storeDirectory(type.name, orders)
                let record = dir + "/load.metrics"
                if !reload, let text = try? String(contentsOfFile: record, encoding: .utf8),
                   text.hasPrefix(data.stamp + "\n") {
                    result.load[type.name] = Self.parseMetrics(text)
                    result.loadedNow[type.name] = false
                    log("\(orders) \(type.name): reusing the loaded store in \(dir)")
                    continue
                }
                try? fm.removeItem(atPath: dir)
                try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
                sync()
                let t0 = now()
                let metrics = try Workers.spawn(type.executable, type.prefix + ["load", "--peer", type.name, "--orders", String(orders), "--dir", dir])
                result.load[type.name] = metrics
                result.loadedNow[type.name] = true
                let lines = metrics.keys.sorted().map { "METRIC \($0) \(metrics[$0] ?? 0)" }
                try (data.stamp + "\n" + lines.joined(separator: "\n") + "\n").write(toFile: record, atomically: true, encoding: .utf8)
                log("\(orders) \(type.name): loaded \(data.totalEntities) entities in \(String(format: "%.1f", now() - t0)) s")
            }
            for round in 1...max(rounds, 1) {
                let shift = (round - 1) % peers.count
                for type in peers[shift...] + peers[..<shift] {
                    sync()
                    let waited = quietWait > 0 ? waitForQuiet(maxSeconds: quietWait) : 0
                    let t0 = now()
                    var args = ["query", "--peer", type.name, "--orders", String(orders), "--dir", storeDirectory(type.name, orders),
                                "--min-seconds", String(minSeconds)]
                    if let only { args += ["--workloads", only] }
                    var metrics = try Workers.spawn(type.executable, type.prefix + args, cpu: cpu)
                    metrics["loadavg"] = Self.loadAverage()
                    for (k, v) in metrics { result.samples[type.name, default: [:]][k, default: []].append(v) }
                    metrics["waited_s"] = waited
                    log("\(orders) round \(round)/\(rounds) \(type.name): \(String(format: "%.1f", now() - t0)) s"
                        + (quietWait > 0 ? " (waited \(String(format: "%.1f", waited)) s for a quieter machine)" : ""))
                }
            }
            result.plans = try plans(orders)
            results.append(result)
        }
        return results
    }

    /// EXPLAIN QUERY PLAN of every SQL statement of the SQLite peers (for the report; the
    /// SQLCipher peer's from `sqlcipher-worker query plan`: the typed SQL on SQLite 3.15's planner).
    func plans(_ orders: Int) throws -> [String: [String: [String]]] {
        var out: [String: [String: [String]]] = [:]
        for peer in peers where peer.name == sqlcipherTyped {
            let text = Workers.shell(peer.executable, peer.prefix + ["plan", "--peer", peer.name, "--orders", String(orders),
                                                                     "--dir", storeDirectory(peer.name, orders)])
            for line in text.split(separator: "\n") where line.hasPrefix("PLAN ") {
                let parts = line.dropFirst(5).split(separator: " ", maxSplits: 1)
                guard parts.count == 2 else { continue }
                out[peer.name, default: [:]][String(parts[0]), default: []].append(String(parts[1]))
            }
        }
        for (peer, file) in [(SQLiteTypedPeer.name, "typed.sqlite"), (SQLiteJSONPeer.name, "json.sqlite")] {
            let path = storeDirectory(peer, orders) + "/" + file
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let db = try SQLiteConnection(path: path)
            for w in QueryWorkload.all(orders: orders) {
                let typed = peer == SQLiteTypedPeer.name
                var lines = try db.plan(typed ? w.typedSQL : w.jsonSQL)
                if let child = typed ? w.typedChildSQL : w.jsonChildSQL {
                    lines += try db.plan(child.replacingOccurrences(of: "?1", with: "'0500000001'")).map { "per parent: " + $0 }
                }
                out[peer, default: [:]][w.id] = lines
            }
            try db.close()
        }
        return out
    }

    /// Waits until at least one core's worth of CPU was idle over the last half second (so the
    /// query process can get a core to itself), or `maxSeconds` passed; returns the seconds waited.
    func waitForQuiet(maxSeconds: Double) -> Double {
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let start = now()
        while now() - start < maxSeconds {
            let a = ProcStats.cpuJiffies()
            usleep(500_000)
            if let idle = ProcStats.idleFraction(a, ProcStats.cpuJiffies()), idle * cores >= 0.9 { break }
        }
        return now() - start
    }

    static func parseMetrics(_ text: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 3, parts[0] == "METRIC", let v = Double(parts[2]) { out[String(parts[1])] = v }
        }
        return out
    }

    static func loadAverage() -> Double {
        Double(ProcStats.read("/proc/loadavg").split(separator: " ").first ?? "") ?? -1
    }
}
