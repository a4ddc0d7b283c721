import Foundation

// json-bench: OData JSON parse throughput, ours against Foundation (issue 3).
//
//   json-bench run [--megabytes 100] [--rounds 3] [--work-dir /tmp/offline-odata-bench]
//                  [--out Benchmarks/results/json.md] [--command "make bench"] [--quiet-wait 15]
//                  [--csv Benchmarks/results/json.csv]
//       Builds the payload once (untimed) into the work directory, then runs every variant once
//       per round in a fresh child process (rounds interleaved), takes medians, writes Markdown.
//       Before each worker it waits up to --quiet-wait seconds for one idle core. --csv also writes
//       the results table as `workload,scale,peer,value,unit` rows (ResultsCSV).
//   json-bench worker --variant NAME --file PAYLOAD --orders N --items M
//       One parse in this process; prints METRIC lines (used by `run`).
//   json-bench payload --megabytes N --out FILE
//       Writes the payload only and prints its orders and items (for profiling a worker by hand).

func option(_ args: [String], _ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("json-bench: " + message + "\n").utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())

switch arguments.first {
case "worker":
    guard let name = option(arguments, "--variant"), let variant = Variant(rawValue: name) else {
        fail("worker needs --variant, one of \(Variant.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    guard let file = option(arguments, "--file"),
          let orders = option(arguments, "--orders").flatMap(Int.init),
          let items = option(arguments, "--items").flatMap(Int.init) else {
        fail("worker needs --file PAYLOAD --orders N --items M")
    }
    do {
        try Worker(variant: variant, file: file, orders: orders, items: items).run()
    } catch {
        fail("\(name): \(error)")
    }
case "payload":
    guard let megabytes = option(arguments, "--megabytes").flatMap(Double.init), megabytes > 0,
          let out = option(arguments, "--out") else {
        fail("payload needs --megabytes N --out FILE")
    }
    do {
        let payload = try Payload.build(targetBytes: Int(megabytes * 1_000_000))
        try Data(payload.bytes).write(to: URL(fileURLWithPath: out))
        print("--orders \(payload.orders) --items \(payload.items)")
    } catch {
        fail("\(error)")
    }
case "run":
    guard let megabytes = Double(option(arguments, "--megabytes") ?? "100"), megabytes > 0 else {
        fail("--megabytes takes a positive number")
    }
    let rounds = option(arguments, "--rounds").flatMap(Int.init) ?? 3
    let driver = Driver(
        targetBytes: Int(megabytes * 1_000_000), rounds: max(rounds, 1),
        workDirectory: option(arguments, "--work-dir") ?? "/tmp/offline-odata-bench",
        quietWait: option(arguments, "--quiet-wait").flatMap(Double.init) ?? 15)
    let output = option(arguments, "--out") ?? "Benchmarks/results/json.md"
    let command = option(arguments, "--command") ?? "make bench"
    do {
        let result = try driver.run()
        let report = Report(result: result, quietWait: driver.quietWait, rounds: driver.rounds, megabytes: megabytes, command: command, output: output)
        try report.markdown().write(toFile: output, atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data("json-bench: wrote \(output)\n".utf8))
        if let csv = option(arguments, "--csv") { try report.csv().write(to: csv) }
    } catch {
        fail("\(error)")
    }
default:
    fail("usage: json-bench run [--megabytes 100] [--rounds 3] [--work-dir DIR] [--out FILE] [--command TEXT] [--quiet-wait S] [--csv FILE] | worker … | payload …")
}
