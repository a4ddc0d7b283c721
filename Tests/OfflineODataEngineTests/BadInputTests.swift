import Foundation
import Testing
@testable import OfflineODataEngine

@Suite struct BadInputTests {
    /// Creates a small store with one commit and returns its directory.
    func makeStore(_ dir: TempDir, _ options: EngineOptions = .quick()) throws {
        let db = try StorageEngine.open(path: dir.store, options: options)
        let t = try db.tree("t")
        try db.write { $0.put(bytes("k"), bytes("v"), in: t) }
        try db.close()
    }

    func manifestPath(_ dir: TempDir) throws -> String {
        let name = try #require(files(in: dir.store).first { $0.hasPrefix("MANIFEST-") })
        return dir.store + "/" + name
    }

    func expectError(_ kind: EngineError.Kind, _ options: EngineOptions = .quick(), at path: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let db = try StorageEngine.open(path: path, options: options)
            try? db.close()
            Issue.record("expected \(kind), but the store opened", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == kind, "got \(error)", sourceLocation: sourceLocation)
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
    }

    @Test func wrongPassphraseIsATypedErrorBeforeAnyDataIsRead() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try makeStore(dir)
        expectError(.wrongPassphrase, .quick(.passphrase("not the passphrase")), at: dir.store)
        expectError(.wrongPassphrase, .quick(.unencrypted), at: dir.store)
        expectError(.wrongPassphrase, .quick(.key([UInt8](repeating: 7, count: 32))), at: dir.store)
        // The right passphrase still works afterwards.
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        #expect(try db.get(bytes("k"), in: try db.tree("t")) == bytes("v"))
        try db.close()
    }

    @Test func rawKeyStoresNeedTheSameKey() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let k = [UInt8](repeating: 42, count: 32)
        try makeStore(dir, .quick(.key(k)))
        expectError(.wrongPassphrase, .quick(.key([UInt8](repeating: 43, count: 32))), at: dir.store)
        expectError(.invalidArgument, .quick(.key([1, 2, 3])), at: dir.store)
        let db = try StorageEngine.open(path: dir.store, options: .quick(.key(k)))
        #expect(try db.get(bytes("k"), in: try db.tree("t")) == bytes("v"))
        try db.close()
    }

    @Test func unencryptedStoreRefusesAPassphrase() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try makeStore(dir, .quick(.unencrypted))
        expectError(.invalidArgument, .quick(), at: dir.store)
    }

    @Test func zeroLengthManifestTruncatedHeaderAndGarbage() throws {
        for damage in ["empty", "truncated", "garbage", "truncatedKeyBlock"] {
            let dir = TempDir()
            defer { dir.cleanup() }
            try makeStore(dir)
            let path = try manifestPath(dir)
            let original = try #require(FileManager.default.contents(atPath: path))
            var data: Data
            switch damage {
            case "empty": data = Data()
            case "truncated": data = original.prefix(20)
            case "truncatedKeyBlock": data = original.prefix(100)
            default:
                var rng = SplitMix(seed: 99)
                data = Data((0..<original.count).map { _ in UInt8.random(in: 0...255, using: &rng) })
            }
            try data.write(to: URL(fileURLWithPath: path))
            do {
                _ = try StorageEngine.open(path: dir.store, options: .quick())
                Issue.record("\(damage): expected an error")
            } catch {
                #expect(error.kind == .corruption || error.kind == .notAStore, "\(damage): \(error)")
                #expect(error.file?.hasPrefix("MANIFEST-") == true, "\(damage): error names the file: \(error)")
            }
        }
    }

    @Test func pathThatIsAFileOrAZeroLengthFile() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let file = dir.path + "/not-a-store"
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        expectError(.notAStore, at: file)
        _ = FileManager.default.createFile(atPath: file, contents: Data("random garbage".utf8))
        expectError(.notAStore, at: file)
    }

    @Test func directoryWhereAFileShouldBe() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try makeStore(dir)
        let path = try manifestPath(dir)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        do {
            _ = try StorageEngine.open(path: dir.store, options: .quick())
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .notAStore || error.kind == .corruption, "\(error)")
        }
    }

    @Test func storeFromANewerFormatVersion() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try makeStore(dir)
        let path = try manifestPath(dir)
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        bytes[8] = UInt8(Format.formatVersion + 1)  // version field, then fix the header checksum
        let crc = CRC32C.checksum(Array(bytes[0..<44]))
        for i in 0..<4 { bytes[44 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try StorageEngine.open(path: dir.store, options: .quick())
            Issue.record("expected unsupportedFormatVersion")
        } catch {
            #expect(error.kind == .unsupportedFormatVersion)
            #expect(error.category == .notSupported)
            #expect(error.message.contains("format version \(Format.formatVersion + 1)"))
        }
    }

    @Test func secondWriterGetsStoreLocked() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        expectError(.storeLocked, at: dir.store)
        try db.close()
        let again = try StorageEngine.open(path: dir.store, options: .quick())
        try again.close()
    }

    @Test func invalidArguments() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        expectError(.invalidArgument, .quick(.passphrase("")), at: dir.store)
        expectError(.invalidArgument, .quick(), at: "")
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        #expect(throws: EngineError.self) { try db.tree("") }
        #expect(throws: EngineError.self) { try db.tree(String(repeating: "x", count: 300)) }
        let t = try db.tree("t")
        #expect(throws: EngineError.self) {
            try db.write { $0.put([UInt8](repeating: 1, count: WriteBatch.maxKeySize + 1), [], in: t) }
        }
        try db.close()
        #expect(throws: EngineError.self) { try db.get(bytes("k"), in: t) }
        #expect(throws: EngineError.self) { try db.write { $0.put(bytes("k"), bytes("v"), in: t) } }
    }

    @Test func missingStoreWithoutCreateIsNotAStore() {
        let dir = TempDir()
        defer { dir.cleanup() }
        var o = EngineOptions.quick()
        o.createIfMissing = false
        expectError(.notAStore, o, at: dir.store)
    }
}

@Suite struct EncryptionTests {
    static let needles = ["Berglunds snabbköp customer 4711", "SECRET-ORDER-NOTE-123456", "0500000042-sales-order"]

    func writeNeedles(_ options: EngineOptions, to dir: TempDir, close: Bool) throws -> StorageEngine? {
        var o = options
        o.compression = false  // the strongest case: plaintext would otherwise be stored verbatim
        let db = try StorageEngine.open(path: dir.store, options: o)
        let t = try db.tree("customers")
        for (i, n) in Self.needles.enumerated() {
            try db.write { b in
                b.put(bytes(n), bytes(n + " value"), in: t)
                for j in 0..<200 { b.put(bytes("\(n)-\(i)-\(j)"), bytes(String(repeating: n, count: 3)), in: t) }
            }
        }
        if close {
            try db.close()
            return nil
        }
        return db
    }

    func filesContain(_ dir: TempDir, _ needle: String) -> Bool {
        files(in: dir.store).contains { name in
            guard let data = FileManager.default.contents(atPath: dir.store + "/" + name) else { return false }
            return data.range(of: Data(needle.utf8)) != nil
        }
    }

    @Test func encryptedFilesHoldNoPlaintextWhileOpenOrClosed() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let open = try #require(try writeNeedles(.quick(), to: dir, close: false))
        for n in Self.needles { #expect(!filesContain(dir, n), "\(n) found in the log of an open store") }
        try open.compactNow()
        try open.close()
        for n in Self.needles { #expect(!filesContain(dir, n), "\(n) found after compaction and close") }
        for n in ["customers"] { #expect(!filesContain(dir, n), "tree name \(n) found") }
    }

    @Test func unencryptedControlShowsTheSearchWorks() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        _ = try writeNeedles(.quick(.unencrypted), to: dir, close: true)
        #expect(filesContain(dir, Self.needles[0]))
    }

    @Test func keyMaterialIsWipedOnClose() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        #expect(!db.keyMaterialWiped)
        try db.close()
        #expect(db.keyMaterialWiped)
    }

    @Test func bothCipherSuitesWorkAndAreRecorded() throws {
        for suite in CipherSuite.allCases where suite != .none && suite.isSupportedHere {
            let dir = TempDir()
            defer { dir.cleanup() }
            var o = EngineOptions.quick()
            o.cipher = suite
            _ = try writeNeedles(o, to: dir, close: true)
            let db = try StorageEngine.open(path: dir.store, options: .quick())
            #expect(try db.stats().cipher == suite)
            #expect(try db.get(bytes(Self.needles[1]), in: try db.tree("customers")) == bytes(Self.needles[1] + " value"))
            try db.close()
        }
    }

    @Test func rekeyChangesThePassphraseWithoutRewritingData() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        _ = try writeNeedles(.quick(), to: dir, close: true)
        let runsBefore = files(in: dir.store).filter { $0.hasSuffix(".oorun") }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        try db.rekey(to: .passphrase("new secret"), keyDerivation: .minimum)
        #expect(files(in: dir.store).filter { $0.hasSuffix(".oorun") } == runsBefore)
        try db.close()
        #expect(throws: EngineError.self) { try StorageEngine.open(path: dir.store, options: .quick()) }
        let reopened = try StorageEngine.open(path: dir.store, options: .quick(.passphrase("new secret")))
        #expect(try reopened.get(bytes(Self.needles[2]), in: try reopened.tree("customers")) != nil)
        try reopened.close()
    }
}
