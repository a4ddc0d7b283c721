import BenchCommon
import BenchKV
import BenchSupport
import Foundation

/// Per-configuration metric samples of one scale.
struct ScaleResult {
    var records: Int
    var dataBytes: UInt64
    var valueBytesAverage: Double
    /// config name → metric → one sample per round.
    var samples: [String: [String: [Double]]] = [:]

    func median(_ config: Configuration, _ metric: String) -> Double? {
        guard let xs = samples[config.name]?[metric], !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// Runs the rounds: every configuration once per round, each in a fresh child process.
struct Driver {
    let scales: [Int]
    let rounds: Int
    let lookups: Int
    let workDirectory: String
    let seed: UInt64

    func log(_ s: String) {
        FileHandle.standardError.write(Data(("engine-bench: " + s + "\n").utf8))
    }

    /// The medians' samples per scale, and how SQLCipher was measured (or why not).
    func run() throws -> ([ScaleResult], SQLCipherPeer) {
        let fm = FileManager.default
        try fm.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let executable = (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let sqlcipher = SQLCipherPeer.locate(next: executable, workDirectory: workDirectory)
        log("SQLCipher: \(sqlcipher.description)")
        let configurations = Configuration.all.filter { $0.engine != .sqlcipher || sqlcipher.worker != nil }
        var results: [ScaleResult] = []
        for records in scales {
            let workload = Workload(count: records, seed: seed)
            let dataPath = "\(workDirectory)/data-\(records).bin"
            let g0 = now()
            let dataBytes = try DataSetFile.ensure(workload, at: dataPath)
            log("data set \(records) records, \(dataBytes) bytes of keys+values (\(String(format: "%.1f", now() - g0)) s)")
            var result = ScaleResult(records: records, dataBytes: dataBytes,
                                     valueBytesAverage: Double(dataBytes) / Double(records) - 16)
            for round in 1...max(rounds, 1) {
                // The relaxed ours stores stay (compacted by their workers) for the pair run.
                var kept: [String: String] = [:]
                // Rotate the order each round so no configuration always runs right after the
                // same neighbour (e.g. after SQLite's large write-back).
                let all = configurations
                let shift = (round - 1) % all.count
                for config in all[shift...] + all[..<shift] {
                    // Let the previous worker's dirty pages reach the disk first, so kernel
                    // write-back does not run during (and bill its CPU to) the next worker.
                    sync()
                    let dir = "\(workDirectory)/\(config.name)-\(records)"
                    try? fm.removeItem(atPath: dir)
                    try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
                    let t0 = now()
                    let loadBefore = Self.loadAverage()
                    let worker = config.engine == .sqlcipher ? sqlcipher.worker ?? executable : executable
                    var metrics = try Workers.spawn(worker, ["worker", "--config", config.name, "--data", dataPath,
                                                         "--records", String(records), "--dir", dir,
                                                         "--lookups", String(min(lookups, records * 2))])
                    metrics["loadavg_before"] = loadBefore
                    metrics["loadavg_after"] = Self.loadAverage()
                    for (k, v) in metrics { result.samples[config.name, default: [:]][k, default: []].append(v) }
                    if config.engine == .ours, config.durability == .relaxed {
                        kept[config.name] = dir
                    } else {
                        try? fm.removeItem(atPath: dir)
                    }
                    log("\(records) round \(round)/\(rounds) \(config.name): \(String(format: "%.1f", now() - t0)) s")
                }
                // Encryption overhead of warm lookups, both stores in one process (PairWorker).
                if let encrypted = kept[Self.pairEncrypted], let plain = kept[Self.pairPlain] {
                    sync()
                    let t0 = now()
                    let metrics = try Workers.spawn(executable, ["pair", "--encrypted", encrypted + "/store", "--plain", plain + "/store",
                                                                 "--records", String(records),
                                                                 "--lookups", String(min(lookups, records * 2))])
                    for (k, v) in metrics { result.samples[Self.pairName, default: [:]][k, default: []].append(v) }
                    log("\(records) round \(round)/\(rounds) \(Self.pairName): \(String(format: "%.1f", now() - t0)) s")
                }
                for dir in kept.values { try? fm.removeItem(atPath: dir) }
            }
            results.append(result)
        }
        return (results, sqlcipher)
    }

    /// The pair run's samples are kept under this name; it reads the stores of these two.
    static let pairName = "ours-pair"
    static let pairEncrypted = "ours-enc-relaxed"
    static let pairPlain = "ours-plain-relaxed"

    /// The 1-minute load average (other processes on the machine compete for its cores).
    static func loadAverage() -> Double {
        Double(ProcStats.read("/proc/loadavg").split(separator: " ").first ?? "") ?? -1
    }

}
