// swift-tools-version: 6.1
import PackageDescription

// SwiftPM names a path dependency after its folder, which differs between clones
// (main, worktrees, CI), so derive it from where this manifest lives.
let rootPackage: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: true)
    if parts.count >= 3 { parts.removeLast(2) }
    return parts.last.map { String($0).lowercased() } ?? "offlineodata"
}()

// Benchmarks: the storage engine against SQLite (issue 2, `engine-bench`) and SQLCipher (issue 6,
// `sqlcipher-worker`, started by engine-bench), and OData JSON parsing against Foundation (issue 3,
// `json-bench`). A separate package so that the root package's `swift build` / `swift test` never
// builds package-benchmark or links SQLite or SQLCipher.
//
//   swift build -c release --package-path Benchmarks   (all products: needs libsqlcipher-dev;
//                                                      without it, build products by --product)
//   make bench / make bench-quick           (repo root; results/*.md, assembled into BENCHMARKS.md)
//   swift package --package-path Benchmarks benchmark   (package-benchmark micro-benchmarks)
//   make bench-micro-check                  (allocation counts against Benchmarks/Thresholds/)
let package = Package(
    name: "OfflineODataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        // package-benchmark 1.38 on Linux with Swift 6.3 also wants swift-runtime-interposer
        // through its default "RuntimeInterposer" trait; naming only "MallocInterposer" keeps
        // the graph to packages that resolve offline here.
        .package(url: "https://github.com/ordo-one/package-benchmark.git", from: "1.0.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // SQLCipher (issue 6): libsqlcipher exports the same sqlite3_* symbols as libsqlite3, so it
        // gets its own executable (never linked with CSQLite), which engine-bench starts as a worker.
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"]), .brew(["sqlcipher"])]
        ),
        // Process, /proc and clock helpers shared by both benchmark executables.
        .target(name: "BenchCommon"),
        // The engine benchmark's workload, data-set file and runner, free of any store library:
        // shared by engine-bench (ours, SQLite) and sqlcipher-worker.
        .target(name: "BenchKV", dependencies: ["BenchCommon"]),
        .target(
            name: "BenchSupport",
            dependencies: [
                "BenchCommon",
                "BenchKV",
                "CSQLite",
                .product(name: "OfflineODataEngine", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "engine-bench",
            dependencies: ["BenchCommon", "BenchKV", "BenchSupport"]
        ),
        // Sources: main.swift, CipherSettings.swift and a symbolic link to
        // BenchSupport/SQLiteStore.swift, compiled here with SQLCIPHER against CSQLCipher. Also the
        // `sqlcipher-typed` peer of query-bench (`query load|query`) and store-bench (`store`),
        // through QueryBenchCipherKit.
        .executableTarget(
            name: "sqlcipher-worker",
            dependencies: ["BenchCommon", "BenchKV", "CSQLCipher", "QueryBenchCipherKit"],
            swiftSettings: [.define("SQLCIPHER")]
        ),
        .executableTarget(
            name: "json-bench",
            dependencies: [
                "BenchCommon",
                .product(name: "OfflineODataModel", package: rootPackage),
                .product(name: "OfflineODataFixtures", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "EngineMicro",
            dependencies: [
                "BenchKV",
                "BenchSupport",
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/EngineMicro",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // Allocation counts (checked against Benchmarks/Thresholds/, `make bench-micro-check`) of the
        // OData layer's hot paths: JSON parse, entity encode and decode, scan, queries.
        .executableTarget(
            name: "StoreMicro",
            dependencies: [
                "BenchCommon", "QueryBenchKit",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "OfflineODataEngine", package: rootPackage),
                .product(name: "OfflineODataModel", package: rootPackage),
                .product(name: "OfflineODataStore", package: rootPackage),
                .product(name: "OfflineODataFixtures", package: rootPackage),
            ],
            path: "Benchmarks/StoreMicro",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // Issue 4: OData queries against SQLite typed columns and SQLite over JSON text.
        .target(
            name: "QueryBenchKit",
            dependencies: [
                "BenchCommon",
                "CSQLite",
                .product(name: "OfflineODataModel", package: rootPackage),
                .product(name: "OfflineODataFixtures", package: rootPackage),
            ]
        ),
        // QueryBenchKit a second time (every source a symbolic link to QueryBenchKit/, plus
        // sqlcipher-worker/CipherSettings.swift), compiled with SQLCIPHER against CSQLCipher: the
        // typed SQLite peer's schema, indexes, SQL and workers on SQLCipher (`sqlcipher-typed`).
        .target(
            name: "QueryBenchCipherKit",
            dependencies: [
                "BenchCommon",
                "BenchKV",
                "CSQLCipher",
                .product(name: "OfflineODataModel", package: rootPackage),
                .product(name: "OfflineODataFixtures", package: rootPackage),
            ],
            swiftSettings: [.define("SQLCIPHER")]
        ),
        // libsodium itself, for the media benchmark's cipher ceiling (how fast one core decrypts).
        .systemLibrary(
            name: "CSodiumBench",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        // Issue 33: one large stream written and read, ours against a plain file and SQLite blobs.
        .executableTarget(
            name: "media-bench",
            dependencies: [
                "BenchCommon", "CSQLite", "CSodiumBench",
                .product(name: "OfflineODataModel", package: rootPackage),
                .product(name: "OfflineODataStore", package: rootPackage),
                .product(name: "OfflineODataSync", package: rootPackage),
            ]
        ),
        // Issue 29: the provider's initial download over loopback HTTP against applyDownload from
        // memory and a straightforward SQLite client; a 1 % delta.
        .executableTarget(
            name: "sync-bench",
            dependencies: [
                "BenchCommon", "QueryBenchKit", "CSQLite",
                .product(name: "OfflineODataModel", package: rootPackage),
                .product(name: "OfflineODataStore", package: rootPackage),
                .product(name: "OfflineODataSync", package: rootPackage),
                .product(name: "OfflineODataFixtures", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "query-bench",
            dependencies: [
                "BenchCommon", "QueryBenchKit",
                .product(name: "OfflineODataEngine", package: rootPackage),
                .product(name: "OfflineODataModel", package: rootPackage),
                .product(name: "OfflineODataQuery", package: rootPackage),
                .product(name: "OfflineODataStore", package: rootPackage),
                .product(name: "OfflineODataFixtures", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "store-bench",
            dependencies: [
                "BenchCommon", "QueryBenchKit",
                .product(name: "OfflineODataEngine", package: rootPackage),
                .product(name: "OfflineODataModel", package: rootPackage),
                .product(name: "OfflineODataStore", package: rootPackage),
                .product(name: "OfflineODataFixtures", package: rootPackage),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
