import BenchCommon
import Foundation

struct RunResult {
    var payloadBytes: Int
    var orders: Int
    var items: Int
    var generationSeconds: Double
    /// variant → metric → one sample per round.
    var samples: [Variant: [String: [Double]]] = [:]

    func median(_ v: Variant, _ metric: String) -> Double? {
        guard let xs = samples[v]?[metric], !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// Builds the payload file, then runs each variant once per round in a child process. Rounds are
/// interleaved and each round starts with a different variant, so drift in machine load spreads
/// over all variants.
struct Driver {
    let targetBytes: Int
    let rounds: Int
    let workDirectory: String
    /// Longest wait for a quieter machine before each worker (0: none).
    let quietWait: Double

    func log(_ s: String) {
        FileHandle.standardError.write(Data(("json-bench: " + s + "\n").utf8))
    }

    func run() throws -> RunResult {
        let fm = FileManager.default
        try fm.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let t0 = now()
        let payload = try Payload.build(targetBytes: targetBytes)
        let generation = now() - t0
        let path = "\(workDirectory)/odata-salesorders-expand-\(payload.bytes.count).json"
        try Data(payload.bytes).write(to: URL(fileURLWithPath: path))
        log("payload \(payload.bytes.count) bytes, \(payload.orders) orders + \(payload.items) items (\(String(format: "%.1f", generation)) s) → \(path)")
        var result = RunResult(payloadBytes: payload.bytes.count, orders: payload.orders, items: payload.items,
                               generationSeconds: generation)
        let executable = (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let all = Variant.allCases
        for round in 0..<rounds {
            for k in 0..<all.count {
                let variant = all[(k + round) % all.count]
                let waited = quietWait > 0 ? waitForQuiet(maxSeconds: quietWait) : 0
                let t1 = now()
                let metrics = try Workers.spawn(executable, ["worker", "--variant", variant.rawValue, "--file", path,
                                                     "--orders", String(payload.orders), "--items", String(payload.items)])
                for (key, value) in metrics { result.samples[variant, default: [:]][key, default: []].append(value) }
                log("round \(round + 1)/\(rounds) \(variant.rawValue): parse \(String(format: "%.3f", metrics["parse_s"] ?? .nan)) s (process \(String(format: "%.1f", now() - t1)) s, waited \(String(format: "%.1f", waited)) s for a quieter machine, idle during parse \(String(format: "%.0f%%", (metrics["machine_idle"] ?? .nan) * 100)))")
            }
        }
        try? fm.removeItem(atPath: path)
        return result
    }

    /// Waits until at least one core's worth of CPU was idle over the last half second (so the
    /// worker can get a core to itself), or `maxSeconds` passed; returns the seconds waited.
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

}
