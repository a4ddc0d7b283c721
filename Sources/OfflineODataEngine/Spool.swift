/// A spool: a named, append-only sequence of records in its own file beside the store
/// (`spool-<name>.oospool`, docs/StorageFormat.md "Spool files"), sealed and compressed like the
/// log but outside the trees: written once, read once in order, removed whole. It holds bulk
/// data that must survive a crash without passing through the memtable and the runs (a large
/// download staged before it is applied). Not part of any snapshot, `check` or compaction.
///
/// A spool is only trusted after `SpoolWriter.finish()` returned (file and directory synced);
/// the owner records that fact in its own commit. Reading a damaged or truncated spool is a
/// typed `storeCorrupted` (2002) error naming file and offset.
public final class SpoolWriter: @unchecked Sendable {  // used by one writer at a time
    public let name: String
    private let path: String
    private let directory: String
    private let fs: any FileSystem
    private let file: any EngineFile
    private let codec: FrameCodec
    private var size: UInt64
    /// Records appended so far.
    public private(set) var count = 0

    init(engine: StorageEngine, name: String) throws(EngineError) {
        self.name = name
        directory = engine.directory
        path = engine.directory + "/" + SpoolFiles.fileName(name)
        fs = engine.fs
        if fs.kind(of: path) != nil { try fs.remove(path) }
        let header = engine.keys.newHeader(type: .spool, fileNumber: engine.allocateFileNumber())
        var codec = engine.keys.codec(for: header, fileName: SpoolFiles.fileName(name), compress: engine.options.compression)
        codec.acceleration = 8
        self.codec = codec
        file = try fs.create(path)
        let bytes = header.encoded()
        try file.write(bytes, at: 0)
        size = UInt64(bytes.count)
    }

    /// Appends one record (split into frames of at most `Format.maxCommitFrameRaw` raw bytes).
    public func append(_ record: [UInt8]) throws(EngineError) {
        var out: [UInt8] = []
        var offset = size
        var start = 0
        repeat {
            let end = min(record.count, start + Format.maxCommitFrameRaw)
            let kind: FrameKind = end == record.count ? .spoolRecord : .spoolPart
            let before = out.count
            record.withUnsafeBytes { raw in
                codec.encode(kind: kind, raw: UnsafeRawBufferPointer(rebasing: raw[start..<end]), offset: offset, into: &out)
            }
            offset += UInt64(out.count - before)
            start = end
        } while start < record.count
        try file.write(out, at: size)
        size = offset
        count += 1
    }

    /// Syncs the file and its directory entry; after this the spool survives a crash.
    public func finish() throws(EngineError) {
        try file.sync()
        try fs.syncDirectory(directory)
        file.close()
    }

    /// Closes without syncing (the spool is about to be removed).
    public func close() { file.close() }
}

/// Reads a finished spool's records in order, one at a time.
public final class SpoolReader: @unchecked Sendable {  // used by one reader at a time
    private let file: any EngineFile
    private let fileName: String
    private let codec: FrameCodec
    private let size: UInt64
    private var offset: UInt64

    init(engine: StorageEngine, name: String) throws(EngineError) {
        fileName = SpoolFiles.fileName(name)
        file = try engine.fs.open(engine.directory + "/" + fileName, writable: false)
        do throws(EngineError) {
            size = try file.size()
            let header = try FileHeader.decode(try file.read(at: 0, count: Format.fileHeaderSize), expected: .spool, file: fileName)
            codec = try engine.keys.codecForExisting(header, fileName: fileName)
        } catch {
            file.close()
            throw error
        }
        offset = UInt64(Format.fileHeaderSize)
    }

    deinit { file.close() }

    /// The next record, or nil at the end of the spool.
    public func next() throws(EngineError) -> [UInt8]? {
        guard offset < size else { return nil }
        var record: [UInt8] = []
        while true {
            guard size - offset >= UInt64(Format.frameHeaderSize) else {
                throw .corrupt("spool frame header truncated", file: fileName, offset: offset)
            }
            let head = try file.read(at: offset, count: Format.frameHeaderSize)
            guard let h = head.withUnsafeBytes({ FrameCodec.parseHeader($0) }) else {
                throw .corrupt("spool frame header damaged", file: fileName, offset: offset)
            }
            let end = offset + UInt64(h.totalLength)
            guard end <= size else { throw .corrupt("spool frame extends past the end of the file", file: fileName, offset: offset) }
            let frame = try file.read(at: offset, count: h.totalLength)
            let decoded = try codec.decode(frame, offset: offset,
                                           expecting: [FrameKind.spoolRecord.rawValue, FrameKind.spoolPart.rawValue])
            if record.isEmpty {
                record = decoded.raw
            } else {
                // Grown to the size needed, not doubled (a page of several parts held twice
                // its size: 7 MiB of a 100k download's heap peak, heaptrack).
                record.reserveCapacity(record.count + decoded.raw.count)
                record += decoded.raw
            }
            offset = end
            if decoded.kind == FrameKind.spoolRecord.rawValue { return record }
            guard offset < size else { throw .corrupt("spool ends inside a record", file: fileName, offset: offset) }
        }
    }
}

enum SpoolFiles {
    static func fileName(_ name: String) -> String { "spool-\(name).oospool" }

    /// Spool names: 1–64 ASCII letters, digits, `-` and `_`.
    static func validate(_ name: String) throws(EngineError) {
        guard !name.isEmpty, name.utf8.count <= 64,
              name.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F })
        else { throw EngineError(.invalidArgument, "spool name '\(name)' is not 1–64 letters, digits, '-' or '_'") }
    }
}

extension StorageEngine {
    /// Creates (replacing any earlier one) the spool `name`, empty, ready for `append`.
    public func createSpool(_ name: String) throws(EngineError) -> SpoolWriter {
        try SpoolFiles.validate(name)
        try ensureUsable()
        return try SpoolWriter(engine: self, name: name)
    }

    /// The spool `name` for reading, or nil when there is none.
    public func openSpool(_ name: String) throws(EngineError) -> SpoolReader? {
        try SpoolFiles.validate(name)
        try ensureUsable()
        guard fs.kind(of: directory + "/" + SpoolFiles.fileName(name)) != nil else { return nil }
        return try SpoolReader(engine: self, name: name)
    }

    /// Removes the spool `name` (nothing to remove is not an error).
    public func removeSpool(_ name: String) throws(EngineError) {
        try SpoolFiles.validate(name)
        let path = directory + "/" + SpoolFiles.fileName(name)
        guard fs.kind(of: path) != nil else { return }
        try fs.remove(path)
        try fs.syncDirectory(directory)
    }

    private func ensureUsable() throws(EngineError) {
        try state.withLock { s throws(EngineError) in
            if s.closed { throw EngineError(.storeClosed, "the store is closed") }
        }
    }
}
