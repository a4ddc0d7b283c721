/// One operation of a commit, keyed by internal key (tree id prefix + user key).
struct LogRecord: Sendable, Equatable {
    var key: [UInt8]
    /// nil = delete.
    var value: [UInt8]?
}

/// Encodes commits as log frames (docs/StorageFormat.md, "Log files").
enum LogEncoding {
    static let opPut: UInt8 = 1
    static let opDelete: UInt8 = 2

    /// Splits a commit into frame payloads of at most `Format.maxCommitFrameRaw` bytes
    /// (a single record larger than that gets a frame of its own).
    static func payloads(sequence: UInt64, records: [LogRecord]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var w = ByteWriter(capacity: 64 << 10)
        w.u64(sequence)
        for r in records {
            let size = r.key.count + (r.value?.count ?? 0) + 12
            if w.bytes.count > 8 && w.bytes.count + size > Format.maxCommitFrameRaw {
                result.append(w.bytes)
                w = ByteWriter(capacity: 64 << 10)
                w.u64(sequence)
            }
            w.u8(r.value == nil ? opDelete : opPut)
            w.lengthPrefixed(r.key)
            if let v = r.value { w.lengthPrefixed(v) }
        }
        result.append(w.bytes)
        return result
    }

    static func decode(_ raw: [UInt8], file: String, offset: UInt64) throws(EngineError) -> (UInt64, [LogRecord]) {
        var r = ByteReader(raw, context: "log frame", file: file, baseOffset: nil)
        let seq = try r.u64()
        var records: [LogRecord] = []
        while !r.isAtEnd {
            let op = try r.u8()
            let key = try r.lengthPrefixed()
            switch op {
            case opPut: records.append(LogRecord(key: key, value: try r.lengthPrefixed()))
            case opDelete: records.append(LogRecord(key: key, value: nil))
            default: throw .corrupt("unknown log operation \(op)", file: file, offset: offset)
            }
        }
        return (seq, records)
    }
}

/// The active log: frames are appended, never rewritten. A log is never reopened for writing
/// (each open starts a new one), so no (file, offset) pair is ever sealed twice.
///
/// A durable log reserves its blocks `preallocationChunk` at a time ahead of the frames
/// (docs/StorageFormat.md "Log files"): a commit then writes inside the file instead of growing
/// it, and its `fdatasync` need not write the file's size as well. Appending to a growing file
/// took 196–261 µs per 300-byte write + fdatasync on this machine's ext4, writing inside a
/// preallocated one 134–176 µs (alternating runs). The reserved tail reads as zeros, which
/// replay takes as the end of the log; closing the log cuts it off.
final class LogWriter: @unchecked Sendable {  // used only under the engine's writer lock
    let fileNumber: UInt32
    let name: String
    private let file: any EngineFile
    private let codec: FrameCodec
    private(set) var size: UInt64
    /// The end of the reserved blocks (nothing reserved past `size` when not preallocating).
    private var allocated: UInt64
    private var preallocates: Bool
    static let preallocationChunk: UInt64 = 1 << 20
    /// Commits up to this size reserve the log's blocks by writing zeros, larger ones with
    /// `fallocate` (a bulk load would write its log twice otherwise).
    static let zeroFillLimit = 64 << 10

    init(fs: any FileSystem, directory: String, fileNumber: UInt32, keys: KeyRing, compress: Bool, durable: Bool) throws(EngineError) {
        self.fileNumber = fileNumber
        name = FileNames.log(fileNumber)
        let header = keys.newHeader(type: .log, fileNumber: fileNumber)
        var codec = keys.codec(for: header, fileName: name, compress: compress)
        codec.acceleration = 8
        self.codec = codec
        file = try fs.create(directory + "/" + name)
        let bytes = header.encoded()
        try file.write(bytes, at: 0)
        size = UInt64(bytes.count)
        allocated = size
        preallocates = durable
        if durable {
            try file.sync()
            try fs.syncDirectory(directory)
        }
    }

    /// Appends a commit's frames (not yet synced).
    func append(sequence: UInt64, records: [LogRecord]) throws(EngineError) {
        let parts = LogEncoding.payloads(sequence: sequence, records: records)
        var out: [UInt8] = []
        var offset = size
        for (i, part) in parts.enumerated() {
            let kind: FrameKind = i == parts.count - 1 ? .commit : .commitPart
            let before = out.count
            part.withUnsafeBytes { codec.encode(kind: kind, raw: $0, offset: offset, into: &out) }
            offset += UInt64(out.count - before)
        }
        if preallocates, offset > allocated {
            // Rounded up to whole chunks past the frames (a frame may be larger than a chunk).
            let chunk = Self.preallocationChunk
            let target = (offset + chunk - 1) / chunk * chunk
            if out.count <= Self.zeroFillLimit {
                // Small commits (a user's edits): the reserved blocks are written as zeros, so
                // later commits overwrite written blocks and their syncs write no metadata.
                // Reserved with `fallocate`, ext4 marks the blocks unwritten; each commit's
                // write converts part of an extent, and every so often the split needs a new
                // extent block, the inode is dirty for `fdatasync` and the sync writes it too
                // (measured: 800-byte commits, 1 MiB reserved at a time, p90 272–296 µs with
                // fallocate against 142–194 µs written as zeros; medians 126–170 µs against
                // 133–136 µs).
                // The zeros are synced before any frame goes into them: a power cut must not
                // leave the new size durable with blocks never written (a file system without
                // ordered data may then show old bytes there, which replay would take for a
                // damaged frame rather than the end of the log).
                try file.write([UInt8](repeating: 0, count: Int(target - allocated)), at: allocated)
                try file.sync()
                allocated = target
            } else if file.preallocate(to: target) {
                allocated = target
            } else {
                preallocates = false
            }
        }
        try file.write(out, at: size)
        size = offset
    }

    func sync() throws(EngineError) { try file.sync() }

    /// Closes the log, cutting off the reserved tail (a crash before that leaves zeros, which
    /// replay takes as the end).
    func close() {
        if allocated > size { try? file.truncate(to: size) }
        file.close()
    }

    /// Closes the log as a crash would: the reserved tail stays (`simulateCrash`).
    func abandon() { file.close() }
}

/// Reads a log file frame by frame, applying complete commits in order.
enum LogReplay {
    struct Result {
        /// End of the last complete commit.
        var validEnd: UInt64
        var fileSize: UInt64
        var commits: Int
        var lastSequence: UInt64?
        /// Bytes after `validEnd` (a torn or incomplete tail).
        var tornBytes: UInt64 { fileSize - validEnd }
    }

    /// `isLast`: the newest log, whose tail may be torn by a crash. Elsewhere any damage is
    /// a typed corruption error naming file and offset.
    static func replay(fs: any FileSystem, directory: String, fileNumber: UInt32, keys: KeyRing, isLast: Bool,
                       apply: (UInt64, [LogRecord]) throws(EngineError) -> Void) throws(EngineError) -> Result {
        let name = FileNames.log(fileNumber)
        let file = try fs.open(directory + "/" + name, writable: false)
        defer { file.close() }
        let size = try file.size()
        let headerBytes = try file.read(at: 0, count: Format.fileHeaderSize)
        if isLast && size <= UInt64(Format.fileHeaderSize)
            && (headerBytes.count < Format.fileHeaderSize || headerBytes.allSatisfy({ $0 == 0 })
                || (try? FileHeader.decode(headerBytes, expected: .log, file: name)) == nil) {
            // A crash while the log was being created: nothing was committed in it.
            return Result(validEnd: 0, fileSize: size, commits: 0, lastSequence: nil)
        }
        let header = try FileHeader.decode(headerBytes, expected: .log, file: name)
        guard header.fileNumber == fileNumber else {
            throw .corrupt("log header names file \(header.fileNumber)", file: name, offset: 12)
        }
        let codec = try keys.codecForExisting(header, fileName: name)
        var offset = UInt64(Format.fileHeaderSize)
        var result = Result(validEnd: offset, fileSize: size, commits: 0, lastSequence: nil)
        var partial: [LogRecord] = []
        var partialSequence: UInt64?

        /// Whether the file holds only zeros from `start` to its end (at most 16 MiB are read):
        /// blocks a durable log reserved ahead of its frames (`LogWriter`).
        func zerosFrom(_ start: UInt64) throws(EngineError) -> Bool {
            guard start <= size, size - start <= 1 << 24 else { return false }
            return try file.read(at: start, count: Int(size - start)).allSatisfy { $0 == 0 }
        }

        /// Only the newest log can end in a torn write, and a torn write is the last thing in
        /// the file: a frame whose (checksummed) length runs past the end, a frame that fails its
        /// checks and ends exactly at the end or is followed only by zeros (reserved blocks), or
        /// an unreadable header with only zeros after it (or after its first header-size bytes).
        /// Anything else is damage: a typed error, never a silent truncation.
        func isTornTail(damagedEnd: UInt64?) throws(EngineError) -> Bool {
            guard isLast else { return false }
            if let damagedEnd {
                if damagedEnd >= size { return true }
                return try zerosFrom(damagedEnd)
            }
            // A header cut by the crash: what it wrote, then nothing but zeros.
            if try zerosFrom(offset) { return true }
            return try zerosFrom(min(size, offset + UInt64(Format.frameHeaderSize)))
        }

        while offset < size {
            if size - offset < UInt64(Format.frameHeaderSize) {
                if try isTornTail(damagedEnd: size) { break }
                if try zerosFrom(offset) { break }
                throw .corrupt("log frame header truncated", file: name, offset: offset)
            }
            let head = try file.read(at: offset, count: Format.frameHeaderSize)
            // Reserved blocks after the last frame of any log (one closed before the tail was cut
            // off by a crash too): the end.
            if head.allSatisfy({ $0 == 0 }) {
                if try zerosFrom(offset) { break }
            }
            guard let h = head.withUnsafeBytes({ FrameCodec.parseHeader($0) }) else {
                if try isTornTail(damagedEnd: nil) { break }
                throw .corrupt("log frame header damaged", file: name, offset: offset)
            }
            let frameEnd = offset + UInt64(h.totalLength)
            if frameEnd > size {
                if try isTornTail(damagedEnd: frameEnd) { break }
                throw .corrupt("log frame extends past the end of the file", file: name, offset: offset)
            }
            let frame = try file.read(at: offset, count: h.totalLength)
            let decoded: (kind: UInt8, raw: [UInt8])
            do throws(EngineError) {
                decoded = try codec.decode(frame, offset: offset,
                                           expecting: [FrameKind.commit.rawValue, FrameKind.commitPart.rawValue])
            } catch {
                if try isTornTail(damagedEnd: frameEnd) { break }
                throw error
            }
            let (seq, records) = try LogEncoding.decode(decoded.raw, file: name, offset: offset)
            if let partialSequence, partialSequence != seq {
                throw .corrupt("commit \(partialSequence) is interrupted by commit \(seq)", file: name, offset: offset)
            }
            partial.append(contentsOf: records)
            offset = frameEnd
            if decoded.kind == FrameKind.commit.rawValue {
                try apply(seq, partial)
                partial.removeAll()
                partialSequence = nil
                result.validEnd = offset
                result.commits += 1
                result.lastSequence = seq
            } else {
                partialSequence = seq
            }
        }
        if !partial.isEmpty && !isLast {
            throw .corrupt("log ends inside a commit", file: name, offset: result.validEnd)
        }
        return result
    }
}
