import Foundation

/// A benchmark failure with a message.
public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Child processes: both benchmarks run each measured variant in a fresh worker process that
/// prints `METRIC name value` lines.
public enum Workers {
    /// Runs a worker, returns its METRIC lines; a failing worker fails the run.
    /// `cpu`: run the worker on that CPU only (through `taskset`, when it is installed).
    public static func spawn(_ executable: String, _ args: [String], cpu: Int? = nil) throws -> [String: Double] {
        let p = Process()
        if let cpu, FileManager.default.isExecutableFile(atPath: taskset) {
            p.executableURL = URL(fileURLWithPath: taskset)
            p.arguments = ["-c", String(cpu), executable] + args
        } else {
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = args
        }
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw BenchError("worker \(args.joined(separator: " ")) exited with \(p.terminationStatus)")
        }
        var out: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 3, parts[0] == "METRIC", let v = Double(parts[2]) { out[String(parts[1])] = v }
        }
        return out
    }

    static let taskset = "/usr/bin/taskset"

    /// The CPU that single-threaded measured workers are pinned to (`--cpu` / `BENCH_CPU`, default
    /// the last one), nil for none (`-1`, or `taskset` missing). On the 2-vCPU benchmark machine
    /// the same query process ran up to 2x slower on one CPU than on the other, whichever peer it
    /// was; pinning every peer's worker to the same CPU keeps that out of the ratios.
    public static func pinnedCPU(_ requested: String?) -> Int? {
        guard FileManager.default.isExecutableFile(atPath: taskset) else { return nil }
        let cpus = ProcessInfo.processInfo.activeProcessorCount
        if let requested, let n = Int(requested) { return n >= 0 && n < cpus ? n : nil }
        return max(0, cpus - 1)
    }

    /// The commit the benchmark binaries were built from, for a section's header:
    /// `BENCH_COMMIT`, which scripts/bench.sh sets before it builds (with "-dirty" when the sources
    /// differ; a long run outlives later commits, so HEAD when a section is written may be newer
    /// than the code measured), else HEAD now, marked when the working tree has changes other
    /// than the reports.
    public static var measuredCommit: String {
        if let c = ProcessInfo.processInfo.environment["BENCH_COMMIT"], !c.isEmpty { return c }
        let head = shell("/usr/bin/git", ["rev-parse", "--short", "HEAD"])
        let changes = shell("/usr/bin/git", ["status", "--porcelain", "--untracked-files=no", "--", ".",
                                             ":!BENCHMARKS.md", ":!Benchmarks/results"])
        return changes.isEmpty ? head : head + " (with uncommitted changes)"
    }

    /// Output of a command (trimmed), or "unknown" if it cannot run; for report headers.
    public static func shell(_ path: String, _ args: [String]) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return "unknown" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
