// swift-tools-version: 6.1
import PackageDescription

// Layers (see docs/Architecture.md): CSodium/CLZ4 -> Engine; Model -> Query; Engine+Model+Query -> Store -> Sync -> CLI.
// The engine imports no Foundation and no OData; the model knows nothing of storage; Foundation is
// imported only by Sync (URLSession) and the CLI.
let package = Package(
    name: "OfflineOData",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "OfflineODataEngine", targets: ["OfflineODataEngine"]),
        .library(name: "OfflineODataModel", targets: ["OfflineODataModel"]),
        .library(name: "OfflineODataQuery", targets: ["OfflineODataQuery"]),
        .library(name: "OfflineODataStore", targets: ["OfflineODataStore"]),
        .library(name: "OfflineODataSync", targets: ["OfflineODataSync"]),
        .library(name: "OfflineODataFixtures", targets: ["OfflineODataFixtures"]),
        .executable(name: "offline-odata", targets: ["offline-odata"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"]), .brew(["lz4"])]
        ),
        // libcurl, for the default transport on Linux (`CurlTransport`).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "OfflineODataEngine",
            dependencies: ["CSodium", "CLZ4"]
        ),
        .target(name: "OfflineODataModel"),
        // URL -> syntax tree -> bound tree -> plan -> evaluation. Knows the model, never the engine.
        .target(name: "OfflineODataQuery", dependencies: ["OfflineODataModel"]),
        // The only place where engine and OData meet: entity storage, indexes, the local service.
        .target(
            name: "OfflineODataStore",
            dependencies: ["OfflineODataEngine", "OfflineODataModel", "OfflineODataQuery"]
        ),
        // The store talking to a live OData back end: download, delta, reconcile, schema upgrade.
        .target(
            name: "OfflineODataSync",
            dependencies: ["OfflineODataStore", "OfflineODataModel", "OfflineODataQuery", "OfflineODataEngine",
                           .target(name: "CCurl", condition: .when(platforms: [.linux]))]
        ),
        .target(name: "OfflineODataFixtures", path: "Fixtures/Generator"),
        .executableTarget(
            name: "offline-odata",
            dependencies: [
                "OfflineODataEngine",
                "OfflineODataModel",
                "OfflineODataQuery",
                "OfflineODataStore",
                "OfflineODataSync",
                "OfflineODataFixtures",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "OfflineODataEngineTests",
            dependencies: [
                "OfflineODataEngine",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "OfflineODataModelTests",
            dependencies: [
                "OfflineODataModel",
                "OfflineODataFixtures",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "OfflineODataQueryTests",
            dependencies: [
                "OfflineODataQuery",
                "OfflineODataModel",
                "OfflineODataFixtures",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Conformance/KnownFailures.txt", "Evaluation/KnownEvalFailures.txt"]
        ),
        .testTarget(
            name: "OfflineODataStoreTests",
            dependencies: [
                "OfflineODataStore",
                "OfflineODataQuery",
                "OfflineODataEngine",
                "OfflineODataModel",
                "OfflineODataFixtures",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "OfflineODataSyncTests",
            dependencies: [
                "OfflineODataSync",
                "OfflineODataStore",
                "OfflineODataModel",
                "OfflineODataEngine",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
