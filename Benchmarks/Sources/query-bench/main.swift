import BenchCommon
import Foundation
import QueryBenchKit

// query-bench: OData queries on our store (encrypted `ours`, unencrypted `ours-plain`) against
// SQLite with typed columns (`sqlite-typed`), the same on SQLCipher (`sqlcipher-typed`, run by
// `sqlcipher-worker`) and SQLite over JSON text (`sqlite-json`) (issues 4 and 6; DESIGN.md §5).
//
//   query-bench run [--orders 100000[,1000000]] [--rounds 3] [--min-seconds 0.2] [--workloads id,id] [--peers a,b]
//                   (peers: ours, ours-plain, sqlite-typed, sqlcipher-typed, sqlite-json)
//                   [--quiet-wait SECONDS] [--cpu N]
//                   [--work-dir /tmp/offline-odata-query-bench] [--reload] [--out Benchmarks/results/query.md]
//                   [--command "make bench-query"] [--csv Benchmarks/results/query.csv]
//       Loads every peer's store once per size (reused by later runs while the data is the same;
//       --reload forces a fresh load), then per round one query worker per peer (order rotated),
//       medians over rounds, cross-checks rows and checksums between peers, writes the section.
//       Before each query process it waits up to --quiet-wait seconds (default 0) for one idle core.
//       Every query process runs on one CPU, the same for every peer (--cpu N or BENCH_CPU; default
//       the last CPU; -1: not pinned), through taskset when it is installed.
//       --csv also writes the tables' figures as `workload,scale,peer,value,unit` rows (ResultsCSV).
//       --peers selects and orders the peers (default: all five; sqlcipher-typed only when
//       `sqlcipher-worker` is built next to query-bench, else left out with a note in the report).
//   query-bench load --peer NAME --orders N --dir DIR          (child of run)
//   query-bench query --peer NAME --orders N --dir DIR [--min-seconds S] [--workloads ids]   (child of run)
//   query-bench workloads [--orders N]     prints every workload's URL and SQL

func option(_ args: [String], _ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("query-bench: " + message + "\n").utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())

func workerPeer() -> (any QueryPeer.Type, Int, String) {
    guard let name = option(arguments, "--peer"), let type = peerType(named: name) else {
        fail("needs --peer, one of \(peerTypes.map { $0.name }.joined(separator: ", "))")
    }
    guard let orders = option(arguments, "--orders").flatMap(Int.init), orders > 0,
          let dir = option(arguments, "--dir") else { fail("needs --orders N --dir DIR") }
    return (type, orders, dir)
}

func workloadFilter() -> Set<String>? {
    option(arguments, "--workloads").map { Set($0.split(separator: ",").map(String.init)) }
}

switch arguments.first {
case "load":
    let (type, orders, dir) = workerPeer()
    do { try QueryWorker.load(type, orders: orders, directory: dir) } catch { fail("load \(type.name): \(error)") }
case "query":
    let (type, orders, dir) = workerPeer()
    let minSeconds = option(arguments, "--min-seconds").flatMap(Double.init) ?? 0.2
    do {
        try QueryWorker.query(type, orders: orders, directory: dir, minSeconds: minSeconds, only: workloadFilter())
    } catch { fail("query \(type.name): \(error)") }
case "workloads":
    let orders = option(arguments, "--orders").flatMap(Int.init) ?? 100_000
    for w in QueryWorkload.all(orders: orders) {
        print("\(w.id): \(w.url)\n  typed: \(w.typedSQL)\(w.typedChildSQL.map { "\n  typed per parent: " + $0 } ?? "")")
        print("  json:  \(w.jsonSQL)\(w.jsonChildSQL.map { "\n  json per parent: " + $0 } ?? "")")
    }
case "run":
    let sizes = (option(arguments, "--orders") ?? "100000").split(separator: ",").compactMap { Int($0) }
    guard !sizes.isEmpty, sizes.allSatisfy({ $0 >= 200 }) else { fail("--orders takes a comma-separated list of counts ≥ 200") }
    if let ids = workloadFilter() {
        let known = Set(QueryWorkload.all(orders: 1000).map(\.id))
        guard ids.isSubset(of: known) else { fail("--workloads: unknown \(ids.subtracting(known).sorted()); known: \(known.sorted())") }
    }
    let workDirectory = option(arguments, "--work-dir") ?? "/tmp/offline-odata-query-bench"
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let requested = option(arguments, "--peers")?.split(separator: ",").map(String.init)
    if let names = requested, let unknown = names.first(where: { !allPeerNames.contains($0) }) {
        fail("--peers: unknown \(unknown); known peers are \(allPeerNames.joined(separator: ", "))")
    }
    let names = requested ?? allPeerNames
    let sqlcipher = names.contains(sqlcipherTyped)
        ? SQLCipherPeer.locate(next: executable, workDirectory: workDirectory)
        : SQLCipherPeer(worker: nil, description: "not requested")
    let peers = PeerEntry.entries(names, executable: executable, sqlcipher: sqlcipher)
    var notMeasured: [String: String] = [:]
    if names.contains(sqlcipherTyped), sqlcipher.worker == nil {
        if requested != nil { fail("--peers \(sqlcipherTyped): \(sqlcipher.description)") }
        notMeasured[sqlcipherTyped] = sqlcipher.description
        FileHandle.standardError.write(Data("query-bench: \(sqlcipherTyped) \(sqlcipher.description)\n".utf8))
    }
    guard !peers.isEmpty else { fail("--peers: no peer to measure") }
    let driver = Driver(
        sizes: sizes,
        rounds: option(arguments, "--rounds").flatMap(Int.init) ?? 3,
        minSeconds: option(arguments, "--min-seconds").flatMap(Double.init) ?? 0.2,
        workDirectory: workDirectory,
        reload: arguments.contains("--reload"),
        only: option(arguments, "--workloads"),
        peers: peers,
        notMeasured: notMeasured,
        quietWait: option(arguments, "--quiet-wait").flatMap(Double.init) ?? 0,
        cpu: Workers.pinnedCPU(option(arguments, "--cpu") ?? ProcessInfo.processInfo.environment["BENCH_CPU"]))
    let output = option(arguments, "--out") ?? "Benchmarks/results/query.md"
    let command = option(arguments, "--command") ?? "make bench-query"
    do {
        let results = try driver.run()
        let report = Report(results: results, driver: driver, command: command, output: output)
        try report.markdown().write(toFile: output, atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data("query-bench: wrote \(output)\n".utf8))
        if let csv = option(arguments, "--csv") { try report.csv().write(to: csv) }
        let mismatches = report.mismatches()
        if !mismatches.isEmpty {
            fail("results differ between peers, or a workload failed:\n" + mismatches.joined(separator: "\n"))
        }
    } catch {
        fail("\(error)")
    }
default:
    fail("usage: query-bench run [--orders 100000,1000000] [--rounds 3] [--min-seconds 0.2] [--workloads ids] [--peers ours,ours-plain,sqlite-typed,sqlcipher-typed,sqlite-json] [--work-dir DIR] [--reload] [--out FILE] [--csv FILE] | workloads [--orders N] | load … | query …")
}
