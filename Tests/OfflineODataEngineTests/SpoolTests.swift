import Foundation
import Testing
@testable import OfflineODataEngine

/// Spool files (docs/StorageFormat.md, "Spool files"): records round-trip in order across a
/// reopen, large records span frames, the file is sealed, and damage is a typed error.
@Suite struct SpoolTests {
    func record(_ i: Int, size: Int) -> [UInt8] {
        var rng = SplitMix(seed: UInt64(i) &+ 1)
        // Half compressible text, half random bytes.
        var out = [UInt8](repeating: 0, count: size)
        for j in 0..<size {
            let letter = UInt8(0x61 + (j / 2) % 26)
            out[j] = j % 2 == 0 ? letter : UInt8(truncatingIfNeeded: rng.next())
        }
        return out
    }

    @Test("records come back in order after a reopen, including records over the 4 MiB frame limit")
    func roundTrip() throws {
        let dir = TempDir("spool")
        defer { dir.cleanup() }
        let sizes = [0, 1, 1000, Format.maxCommitFrameRaw + 17, 5]
        do {
            let engine = try StorageEngine.open(path: dir.store, options: .quick())
            let writer = try engine.createSpool("download")
            for (i, size) in sizes.enumerated() { try writer.append(record(i, size: size)) }
            #expect(writer.count == sizes.count)
            try writer.finish()
            try engine.close()
        }
        let engine = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? engine.close() }
        let reader = try #require(try engine.openSpool("download"))
        for (i, size) in sizes.enumerated() {
            let got = try #require(try reader.next(), "record \(i) missing")
            #expect(got == record(i, size: size), "record \(i) differs")
        }
        #expect(try reader.next() == nil)
        // A new spool of the same name replaces the old one; removal is idempotent.
        let again = try engine.createSpool("download")
        try again.append([1, 2, 3])
        try again.finish()
        let fresh = try #require(try engine.openSpool("download"))
        #expect(try fresh.next() == [1, 2, 3])
        #expect(try fresh.next() == nil)
        try engine.removeSpool("download")
        try engine.removeSpool("download")
        #expect(try engine.openSpool("download") == nil)
    }

    @Test("an encrypted spool holds none of its plaintext; an unknown name has none")
    func sealed() throws {
        let dir = TempDir("spool")
        defer { dir.cleanup() }
        let engine = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? engine.close() }
        let secret = Array("SECRET-PAYLOAD-0123456789-SECRET-PAYLOAD".utf8)
        let writer = try engine.createSpool("s")
        for _ in 0..<50 { try writer.append(secret) }
        try writer.finish()
        let data = try #require(FileManager.default.contents(atPath: dir.store + "/spool-s.oospool"))
        #expect(data.prefix(8) == Data("OODSPL\u{0}\u{1}".utf8))
        #expect(Data(data).range(of: Data("SECRET".utf8)) == nil)
        #expect(try engine.openSpool("other") == nil)
    }

    @Test("damage and truncation are storeCorrupted (2002) with an offset; bad names are invalidArgument (2007)")
    func damage() throws {
        let dir = TempDir("spool")
        defer { dir.cleanup() }
        let engine = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? engine.close() }
        let writer = try engine.createSpool("d")
        for i in 0..<4 { try writer.append(record(i, size: 5000)) }
        try writer.finish()
        let path = dir.store + "/spool-d.oospool"
        let original = try #require(FileManager.default.contents(atPath: path))
        for mutation in ["flip", "truncate"] {
            var bytes = [UInt8](original)
            if mutation == "flip" { bytes[bytes.count / 2] ^= 0x10 } else { bytes.removeLast(7) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let reader = try #require(try engine.openSpool("d"))
            var error: EngineError?
            do {
                while try reader.next() != nil {}
            } catch let e {
                error = e
            }
            #expect(error?.kind == .corruption, "\(mutation): \(String(describing: error))")
            #expect(error?.offset != nil, "\(mutation): no offset")
        }
        for bad in ["", "a/b", "../x", String(repeating: "x", count: 65), "é"] {
            #expect(throws: EngineError.self) { _ = try engine.createSpool(bad) }
            do { _ = try engine.openSpool(bad) } catch { #expect(error.kind == .invalidArgument) }
        }
    }
}
