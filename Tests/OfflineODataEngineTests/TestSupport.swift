import Foundation
@testable import OfflineODataEngine

/// A fresh directory under the system temp folder, removed by `cleanup()`.
struct TempDir {
    let path: String

    init(_ label: String = "store") {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/oodata-\(label)-\(UUID().uuidString)"
    }

    var store: String { path + "/db" }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

extension EngineOptions {
    /// Fast key derivation and small tables so tests exercise flushes and merges.
    static func quick(_ encryption: Encryption = .passphrase("correct horse battery staple")) -> EngineOptions {
        var o = EngineOptions(encryption: encryption)
        o.keyDerivation = .minimum
        o.memTableSize = 64 << 10
        o.blockSize = 2048
        o.cacheSize = 1 << 20
        return o
    }
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

func key(_ i: Int) -> [UInt8] { bytes(String(format: "key-%08d", i)) }

/// Deterministic pseudo-random generator (SplitMix64) for reproducible tests.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func files(in dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
}
