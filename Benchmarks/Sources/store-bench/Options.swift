import Foundation

// Command-line options and settings shared by the driver and the workers (globals outside
// main.swift, so they are not isolated to the main actor).

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String, _ fallback: String) -> String {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return fallback }
    return arguments[i + 1]
}

/// Page/block cache of every peer: our store's default (32 MiB), so the peak RSS of a download
/// measures the download, not a cache sized for the query benchmark. `STORE_BENCH_CACHE_BYTES`
/// overrides it.
let cacheBytes = Int(ProcessInfo.processInfo.environment["STORE_BENCH_CACHE_BYTES"] ?? "") ?? 32 << 20
let updates = Int(option("--updates", "500")) ?? 500

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("store-bench: \(message)\n".utf8))
    exit(2)
}

let usage = "usage: store-bench run [--orders 10000,100000 | --entities 10000,100000,1000000] [--rounds 3] [--updates 500] "
    + "[--peers ours,ours-plain,sqlite-typed,sqlcipher-typed] [--work-dir DIR] [--out FILE] [--csv FILE] [--command TEXT]"
