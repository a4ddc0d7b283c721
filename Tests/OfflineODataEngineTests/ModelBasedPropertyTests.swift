import Foundation
import PropertyBased
import Testing
@testable import OfflineODataEngine

/// One step of the model-based test. Generated from small integers so the library can shrink a
/// failing sequence to a minimal one (it prints the seed to replay with `.fixedSeed`).
enum EngineOp: Sendable, CustomStringConvertible {
    case put(key: Int, length: Int)
    case delete(key: Int)
    /// Several puts and deletes in one atomic commit.
    case batch(start: Int, count: Int)
    /// A bulk load (keys in and out of order, repeated keys), installed, or abandoned when
    /// `count` is a multiple of 5.
    case bulk(start: Int, count: Int, chunk: Int)
    case takeSnapshot
    case verifySnapshots
    case reopen
    case crashAndReopen
    case compact
    case rekey

    init(kind: Int, key: Int, length: Int) {
        switch kind {
        case 0..<40: self = .put(key: key, length: length)
        case 40..<55: self = .delete(key: key)
        case 55..<68: self = .batch(start: key, count: length % 12 + 1)
        case 68..<75: self = .bulk(start: key, count: length % 90 + 1, chunk: [1, 300, 4096, 1 << 20][length % 4])
        case 75..<81: self = .takeSnapshot
        case 81..<85: self = .verifySnapshots
        case 85..<90: self = .reopen
        case 90..<93: self = .crashAndReopen
        case 93..<98: self = .compact
        default: self = .rekey
        }
    }

    var description: String {
        switch self {
        case .put(let k, let n): "put(\(k), \(n)B)"
        case .delete(let k): "delete(\(k))"
        case .batch(let s, let c): "batch(\(s)..+\(c))"
        case .bulk(let s, let c, let chunk): "bulk(\(s)..+\(c), chunk \(chunk)B)"
        case .takeSnapshot: "snapshot"
        case .verifySnapshots: "verifySnapshots"
        case .reopen: "reopen"
        case .crashAndReopen: "crashAndReopen"
        case .compact: "compact"
        case .rekey: "rekey"
        }
    }
}

/// Keys include 0x00 and 0xFF bytes and prefixes of each other, to exercise ordering.
func modelKey(_ k: Int) -> [UInt8] {
    switch k % 4 {
    case 0: [UInt8(k & 0xFF)]
    case 1: [0xFF, UInt8(k & 0xFF), 0x00]
    case 2: [UInt8(k & 0xFF), 0x00]
    default: Array("key-\(k)".utf8)
    }
}

func modelValue(_ k: Int, _ length: Int, _ salt: Int) -> [UInt8] {
    (0..<length).map { UInt8(truncatingIfNeeded: k &* 31 &+ $0 &+ salt) }
}

/// The reference: an in-memory ordered dictionary.
struct ReferenceModel {
    var entries: [[UInt8]: [UInt8]] = [:]
    var sortedKeys: [[UInt8]] { entries.keys.sorted { compareBytes($0, $1) < 0 } }
}

@Suite struct ModelBasedPropertyTests {
    static let opGenerator = zip(Gen.int(in: 0...99), Gen.int(in: 0...63), Gen.int(in: 0...300))
        .map { EngineOp(kind: $0, key: $1, length: $2) }

    @Test func randomOperationSequencesMatchAnOrderedDictionary() async {
        await propertyCheck(count: 60, input: Self.opGenerator.array(of: 1...80)) { ops in
            try Self.run(ops)
        }
    }

    static func options(_ passphrase: String) -> EngineOptions {
        var o = EngineOptions.quick(.passphrase(passphrase))
        o.memTableSize = 4096  // flush often
        o.blockSize = 512
        return o
    }

    static func run(_ ops: [EngineOp]) throws {
        let dir = TempDir("model")
        defer { dir.cleanup() }
        var passphrase = "first"
        var db = try StorageEngine.open(path: dir.store, options: options(passphrase))
        defer { try? db.close() }
        var tree = try db.tree("t")
        var model = ReferenceModel()
        var snapshots: [(Snapshot, ReferenceModel)] = []

        func verify(_ snapshot: Snapshot, _ expected: ReferenceModel, _ context: String) throws {
            var seen: [[UInt8]] = []
            try snapshot.scan(in: tree) { k, v in
                seen.append(k)
                #expect(expected.entries[k] == v, "value of \(k) \(context)")
                return true
            }
            #expect(seen == expected.sortedKeys, "forward scan \(context)")
            var back: [[UInt8]] = []
            try snapshot.scan(in: tree, reverse: true) { k, _ in back.append(k); return true }
            #expect(back == expected.sortedKeys.reversed(), "backward scan \(context)")
            for k in 0..<64 {
                #expect(try snapshot.get(modelKey(k), in: tree) == expected.entries[modelKey(k)], "get \(k) \(context)")
            }
        }

        for (index, op) in ops.enumerated() {
            switch op {
            case .put(let k, let n):
                let v = modelValue(k, n, index)
                try db.write { $0.put(modelKey(k), v, in: tree) }
                model.entries[modelKey(k)] = v
            case .delete(let k):
                try db.write { $0.delete(modelKey(k), in: tree) }
                model.entries[modelKey(k)] = nil
            case .batch(let start, let count):
                try db.write { b in
                    for i in 0..<count {
                        let k = (start + i * 7) % 64
                        if i % 3 == 2 {
                            b.delete(modelKey(k), in: tree)
                            model.entries[modelKey(k)] = nil
                        } else {
                            let v = modelValue(k, (i * 37) % 200, index)
                            b.put(modelKey(k), v, in: tree)
                            model.entries[modelKey(k)] = v
                        }
                    }
                }
            case .bulk(let start, let count, let chunk):
                let load = try db.bulkLoad(chunkBytes: chunk)
                var loaded = model
                for i in 0..<count {
                    // Ascending runs of keys, broken every 7th record; a cycle of 64 keys repeats some.
                    let k = (start + i * 5 + (i % 7 == 6 ? 31 : 0)) % 64
                    let v = modelValue(k, (i * 41) % 200, index)
                    try load.put(modelKey(k), v, in: tree)
                    loaded.entries[modelKey(k)] = v
                }
                if count % 5 == 0 {
                    load.abandon()
                } else {
                    try db.install(load)
                    model = loaded
                }
            case .takeSnapshot:
                snapshots.append((try db.snapshot(), model))
            case .verifySnapshots:
                for (s, m) in snapshots { try verify(s, m, "in snapshot after step \(index)") }
            case .reopen, .crashAndReopen:
                for (s, m) in snapshots { try verify(s, m, "in snapshot before reopen at step \(index)") }
                snapshots.removeAll()
                if case .crashAndReopen = op { db.simulateCrash() } else { try db.close() }
                db = try StorageEngine.open(path: dir.store, options: options(passphrase))
                tree = try db.tree("t")
            case .compact:
                try db.compactNow()
            case .rekey:
                passphrase += "!"
                try db.rekey(to: .passphrase(passphrase), keyDerivation: .minimum)
            }
        }
        try verify(try db.snapshot(), model, "at the end")
        for (s, m) in snapshots { try verify(s, m, "in snapshot at the end") }
        snapshots.removeAll()
        let report = try db.check()
        #expect(report.isClean, "check: \(report.problems)")
        try db.close()
        db = try StorageEngine.open(path: dir.store, options: options(passphrase))
        tree = try db.tree("t")
        try verify(try db.snapshot(), model, "after the final reopen")
    }
}
