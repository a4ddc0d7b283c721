/// On-disk constants. Every number here is described byte by byte in docs/StorageFormat.md;
/// change them only together with that document and `formatVersion`.
enum Format {
    /// Format version written into every file header (docs/StorageFormat.md, "File header").
    /// A file with a larger version is refused with `unsupportedFormatVersion`.
    /// 2: run files carry partitioned Bloom filters (frame kinds 10 and 11); version 1 run files
    /// (one filter frame, kind 7) are still read.
    static let formatVersion: UInt16 = 2

    /// File header size (docs/StorageFormat.md, "File header").
    static let fileHeaderSize = 48
    /// Frame header size (docs/StorageFormat.md, "Frames").
    static let frameHeaderSize = 20
    /// Largest stored payload of one frame; anything larger is treated as damage.
    static let maxFramePayload = 1 << 28
    /// Manifest key block size (docs/StorageFormat.md, "Manifest").
    static let keyBlockSize = 112
    /// Run trailer size (docs/StorageFormat.md, "Run files").
    static let runTrailerSize = 16
    static let runTrailerMagic: UInt32 = 0x5452_444F  // "ODRT" little-endian

    /// A commit is at most this many raw bytes per log frame; larger commits span frames.
    static let maxCommitFrameRaw = 4 << 20

    enum Magic {
        static let log: [UInt8] = Array("OODLOG\u{0}\u{1}".utf8)
        static let run: [UInt8] = Array("OODRUN\u{0}\u{1}".utf8)
        static let manifest: [UInt8] = Array("OODMAN\u{0}\u{1}".utf8)
        static let spool: [UInt8] = Array("OODSPL\u{0}\u{1}".utf8)
    }

    /// Associated-data label of the wrapped data key.
    static let keyWrapLabel: [UInt8] = Array("OfflineOData data key v1".utf8)
}

/// Frame kinds (docs/StorageFormat.md, "Frames").
enum FrameKind: UInt8 {
    /// The last (often only) frame of a commit: the commit is applied when this frame is read.
    case commit = 1
    /// A frame of a commit that continues in the next frame.
    case commitPart = 2
    case runLeaf = 3
    case runIndex = 4
    case runFooter = 5
    case manifestBody = 6
    /// A version 1 run's whole Bloom filter.
    case runFilter = 7
    /// The last (often only) frame of a spool record (docs/StorageFormat.md, "Spool files").
    case spoolRecord = 8
    /// A frame of a spool record that continues in the next frame.
    case spoolPart = 9
    /// The Bloom filter of one partition of a run's keys (format version 2).
    case runFilterPartition = 10
    /// A run's filter index: per partition, its last key and its filter frame (format version 2).
    case runFilterIndex = 11
}

enum FileType {
    case log, run, manifest, spool

    var magic: [UInt8] {
        switch self {
        case .log: Format.Magic.log
        case .run: Format.Magic.run
        case .manifest: Format.Magic.manifest
        case .spool: Format.Magic.spool
        }
    }

    var label: String {
        switch self {
        case .log: "log"
        case .run: "run"
        case .manifest: "manifest"
        case .spool: "spool"
        }
    }
}

/// The plaintext header at offset 0 of every engine file (docs/StorageFormat.md, "File header").
struct FileHeader: Equatable {
    var type: FileType
    var version: UInt16
    var cipher: CipherSuite
    var fileNumber: UInt32
    var salt: [UInt8]  // 16 bytes

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Format.fileHeaderSize)
        w.append(type.magic)
        w.u16(version)
        w.u8(cipher.rawValue)
        w.u8(0)
        w.u32(fileNumber)
        w.append(salt)
        w.append(repeatElement(0, count: 12))
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Parses and validates a header; errors name the file.
    static func decode(_ bytes: [UInt8], expected type: FileType, file: String) throws(EngineError) -> FileHeader {
        guard bytes.count >= Format.fileHeaderSize else {
            throw .corrupt("\(type.label) file header truncated (\(bytes.count) of \(Format.fileHeaderSize) bytes)", file: file, offset: 0)
        }
        guard Array(bytes[0..<8]) == type.magic else {
            throw EngineError(.notAStore, "not an OfflineOData \(type.label) file (bad magic)", file: file, offset: 0)
        }
        var r = ByteReader(bytes, from: 8, to: Format.fileHeaderSize, context: "\(type.label) header", file: file, baseOffset: 0)
        let version = try r.u16()
        let storedCRC = readCRC(bytes)
        guard storedCRC == CRC32C.checksum(Array(bytes[0..<44])) else {
            throw .corrupt("\(type.label) file header checksum mismatch", file: file, offset: 44)
        }
        guard version <= Format.formatVersion else {
            throw EngineError(.unsupportedFormatVersion,
                              "the \(type.label) file has format version \(version); this library reads up to \(Format.formatVersion). Upgrade OfflineOData to open this store",
                              file: file, offset: 8)
        }
        let cipherID = try r.u8()
        guard let cipher = CipherSuite(rawValue: cipherID) else {
            throw .corrupt("unknown cipher suite id \(cipherID)", file: file, offset: 10)
        }
        _ = try r.u8()
        let number = try r.u32()
        let salt = try r.bytes(16)
        return FileHeader(type: type, version: version, cipher: cipher, fileNumber: number, salt: salt)
    }

    private static func readCRC(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes[44]) | UInt32(bytes[45]) << 8 | UInt32(bytes[46]) << 16 | UInt32(bytes[47]) << 24
    }
}

/// Names of the files in a store directory (docs/StorageFormat.md, "Directory").
enum FileNames {
    static func log(_ n: UInt32) -> String { "log-\(pad(n)).oolog" }
    static func run(_ n: UInt32) -> String { "run-\(pad(n)).oorun" }
    static func manifest(_ n: UInt32) -> String { "MANIFEST-\(pad(n))" }
    static let lock = "LOCK"
    static let tempSuffix = ".tmp"

    static func pad(_ n: UInt32) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 8 - s.count)) + s
    }

    enum Parsed: Equatable { case log(UInt32), run(UInt32), manifest(UInt32), spool(String), temp, lock, other }

    static func parse(_ name: String) -> Parsed {
        if name == lock { return .lock }
        if name.hasSuffix(tempSuffix) { return .temp }
        if name.hasPrefix("log-"), name.hasSuffix(".oolog"), let n = UInt32(name.dropFirst(4).dropLast(6)) { return .log(n) }
        if name.hasPrefix("run-"), name.hasSuffix(".oorun"), let n = UInt32(name.dropFirst(4).dropLast(6)) { return .run(n) }
        if name.hasPrefix("MANIFEST-"), let n = UInt32(name.dropFirst(9)) { return .manifest(n) }
        if name.hasPrefix("spool-"), name.hasSuffix(".oospool"), name.utf8.count > 14 {
            return .spool(String(name.dropFirst(6).dropLast(8)))
        }
        return .other
    }
}
