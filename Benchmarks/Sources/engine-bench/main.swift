import BenchKV
import BenchSupport
import Foundation

// engine-bench: our storage engine against SQLite (issue 2).
//
//   engine-bench run [--records 1000000,100000,10000] [--rounds 3] [--lookups 200000]
//                    [--work-dir /tmp/offline-odata-engine-bench] [--out Benchmarks/results/engine.md] [--command "make bench"]
//                    [--csv Benchmarks/results/engine.csv]
//       Runs every configuration once per round in a child process (rounds interleaved),
//       takes medians and writes the Markdown section (scripts/bench.sh assembles BENCHMARKS.md);
//       --csv also writes every table figure as `workload,scale,peer,value,unit` rows (ResultsCSV).
//   engine-bench worker --config NAME --data FILE --records N --dir DIR [--lookups N]
//       One configuration's workloads in this process; prints METRIC lines (used by `run`).
//   engine-bench pair --encrypted DIR --plain DIR --records N [--lookups N]
//       Warm lookups, warm scans and cold scans on both stores in one process, alternating (the
//       encryption overhead of lookups and scans; `run` starts it after each round's two relaxed
//       ours workers).

func option(_ args: [String], _ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("engine-bench: " + message + "\n").utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let seed = benchmarkSeed

switch arguments.first {
case "worker":
    do {
        let args = try WorkerArguments(arguments)
        guard let config = Configuration(name: args.config), config.engine != .sqlcipher else {
            fail("worker --config takes one of \(Configuration.all.filter { $0.engine != .sqlcipher }.map(\.name).joined(separator: ", ")) (SQLCipher: sqlcipher-worker)")
        }
        try Worker(config: config, arguments: args, seed: seed).run()
    } catch {
        fail("worker: \(error)")
    }
case "pair":
    guard let encrypted = option(arguments, "--encrypted"), let plain = option(arguments, "--plain"),
          let records = option(arguments, "--records").flatMap(Int.init), records > 0 else {
        fail("pair needs --encrypted DIR --plain DIR --records N [--lookups N]")
    }
    do {
        try PairWorker(encryptedPath: encrypted, plainPath: plain, records: records,
                       lookups: option(arguments, "--lookups").flatMap(Int.init) ?? 200_000, seed: seed).run()
    } catch {
        fail("pair: \(error)")
    }
case "run":
    let scales = (option(arguments, "--records") ?? "1000000,100000,10000").split(separator: ",").compactMap { Int($0) }
    guard !scales.isEmpty, scales.allSatisfy({ $0 > 0 }) else { fail("--records takes a comma-separated list of counts") }
    let driver = Driver(
        scales: scales,
        rounds: option(arguments, "--rounds").flatMap(Int.init) ?? 3,
        lookups: option(arguments, "--lookups").flatMap(Int.init) ?? 200_000,
        workDirectory: option(arguments, "--work-dir") ?? "/tmp/offline-odata-engine-bench",
        seed: seed
    )
    let output = option(arguments, "--out") ?? "Benchmarks/results/engine.md"
    let command = option(arguments, "--command") ?? "make bench"
    do {
        let (results, sqlcipher) = try driver.run()
        let report = Report(results: results, driver: driver, sqlcipher: sqlcipher, command: command, output: output)
        try report.markdown().write(toFile: output, atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data("engine-bench: wrote \(output)\n".utf8))
        if let csv = option(arguments, "--csv") { try report.csv.rows.write(to: csv) }
    } catch {
        fail("\(error)")
    }
default:
    fail("usage: engine-bench run [--records 1000000,100000,10000] [--rounds 3] [--lookups 200000] [--work-dir DIR] [--out FILE] [--csv FILE] | worker …")
}
