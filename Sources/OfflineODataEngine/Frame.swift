/// Builds and opens frames: LZ4 (when it pays) then AEAD, bound to file number and offset
/// (docs/StorageFormat.md, "Frames").
struct FrameCodec: Sendable {
    let fileNumber: UInt32
    let cipher: FileCipher?
    let compress: Bool
    let fileName: String
    /// Whether payloads are sealed with an AEAD (and so authenticated, not just checksummed).
    var isAuthenticated: Bool { cipher != nil }

    /// LZ4 acceleration (1 = default ratio; logs use a faster setting).
    var acceleration: Int32 = 1

    struct Header {
        var payloadLength: Int
        var kind: UInt8
        var flags: UInt8
        var rawLength: Int
        /// CRC-32C of the payload (the header has its own, checked by `parseHeader`).
        var crc: UInt32
        var totalLength: Int { Format.frameHeaderSize + payloadLength }
    }

    private func associated(offset: UInt64, header: ArraySlice<UInt8>) -> [UInt8] {
        var ad = ByteWriter(capacity: 24)
        ad.u32(fileNumber)
        ad.u64(offset)
        ad.append(header)
        return ad.bytes
    }

    /// Encodes `raw` as a frame that will be written at `offset`; appends to `out`.
    func encode(kind: FrameKind, raw: UnsafeRawBufferPointer, offset: UInt64, into out: inout [UInt8]) {
        let compressed = compress ? LZ4.compress(raw, acceleration: acceleration) : nil
        let flags: UInt8 = compressed == nil ? 0 : 1
        let bodyCount = (compressed?.count ?? raw.count) + (cipher == nil ? 0 : FileCipher.overhead)
        let start = out.count
        var h = ByteWriter(capacity: 16)
        h.u32(UInt32(bodyCount))
        h.u8(kind.rawValue)
        h.u8(flags)
        h.u16(0)
        h.u32(UInt32(raw.count))
        h.u32(CRC32C.checksum(h.bytes))
        out.append(contentsOf: h.bytes)
        out.append(contentsOf: [0, 0, 0, 0])  // payload crc, filled below
        let payloadStart = out.count
        func emit(_ body: UnsafeRawBufferPointer) {
            if let cipher {
                cipher.seal(body, associated: associated(offset: offset, header: h.bytes[0..<12]), offset: offset, into: &out)
            } else {
                out.append(contentsOf: body)
            }
        }
        if let compressed { compressed.withUnsafeBytes { emit($0) } } else { emit(raw) }
        // Sealed payloads are authenticated by their AEAD tag; the CRC is for unencrypted stores.
        if cipher == nil {
            let crc = out.withUnsafeBytes { CRC32C.update(0, UnsafeRawBufferPointer(rebasing: $0[payloadStart...])) }
            for i in 0..<4 { out[start + 16 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        }
    }

    func encode(kind: FrameKind, raw: [UInt8], offset: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count + 64)
        raw.withUnsafeBytes { encode(kind: kind, raw: $0, offset: offset, into: &out) }
        return out
    }

    /// The header if its own checksum verifies (so its length can be trusted), else nil.
    static func parseHeader(_ bytes: UnsafeRawBufferPointer) -> Header? {
        guard bytes.count >= Format.frameHeaderSize else { return nil }
        guard CRC32C.update(0, UnsafeRawBufferPointer(rebasing: bytes[0..<12])) == readU32LE(bytes, 12) else { return nil }
        let length = Int(readU32LE(bytes, 0))
        guard length <= Format.maxFramePayload else { return nil }
        return Header(payloadLength: length, kind: bytes[4], flags: bytes[5],
                      rawLength: Int(readU32LE(bytes, 8)), crc: readU32LE(bytes, 16))
    }

    /// Verifies and opens a complete frame (header + payload) read from `offset`.
    /// Throws a corruption error naming the file and offset when anything does not verify.
    func decode(_ bytes: [UInt8], offset: UInt64, expecting kinds: Set<UInt8>? = nil)
        throws(EngineError) -> (kind: UInt8, raw: [UInt8])
    {
        let opened = try open(bytes, offset: offset, expecting: kinds)
        guard opened.compressed else { return (opened.kind, opened.body) }
        guard let raw = opened.body.withUnsafeBytes({ LZ4.decompress($0, rawCount: opened.rawLength) }) else {
            throw Self.notDecompressing(opened.rawLength, file: fileName, offset: offset)
        }
        return (opened.kind, raw)
    }

    static func notDecompressing(_ rawLength: Int, file: String, offset: UInt64) -> EngineError {
        .corrupt("LZ4 block does not decompress to \(rawLength) bytes", file: file, offset: offset)
    }

    /// `decode` up to the decompression: the verified (and decrypted) payload, and whether it is
    /// LZ4 that expands to `rawLength` bytes (otherwise `body` has exactly `rawLength` bytes). For
    /// callers that decompress into memory of their own (`Block.decoding`).
    func open(_ bytes: [UInt8], offset: UInt64, expecting kinds: Set<UInt8>? = nil)
        throws(EngineError) -> (kind: UInt8, body: [UInt8], compressed: Bool, rawLength: Int)
    {
        let result: Result<(kind: UInt8, body: [UInt8], compressed: Bool, rawLength: Int), EngineError> = bytes.withUnsafeBytes { frame in
            do throws(EngineError) {
                return .success(try open(frame, offset: offset, expecting: kinds))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func open(_ frame: UnsafeRawBufferPointer, offset: UInt64, expecting kinds: Set<UInt8>?)
        throws(EngineError) -> (kind: UInt8, body: [UInt8], compressed: Bool, rawLength: Int)
    {
        guard let h = Self.parseHeader(frame) else {
            throw .corrupt("frame header damaged or truncated", file: fileName, offset: offset)
        }
        guard frame.count >= h.totalLength else {
            throw .corrupt("frame truncated (\(frame.count) of \(h.totalLength) bytes)", file: fileName, offset: offset)
        }
        let payload = UnsafeRawBufferPointer(rebasing: frame[Format.frameHeaderSize..<h.totalLength])
        if cipher == nil {
            guard CRC32C.update(0, payload) == h.crc else { throw .corrupt("frame checksum mismatch", file: fileName, offset: offset) }
        }
        if let kinds, !kinds.contains(h.kind) {
            throw .corrupt("unexpected frame kind \(h.kind)", file: fileName, offset: offset)
        }
        guard h.flags & ~1 == 0, h.rawLength <= Format.maxFramePayload else {
            throw .corrupt("invalid frame flags or raw length", file: fileName, offset: offset)
        }
        let body: [UInt8]
        if let cipher {
            let header = Array(UnsafeRawBufferPointer(rebasing: frame[0..<12]))
            guard let opened = cipher.open(payload, associated: associated(offset: offset, header: header[...]), offset: offset) else {
                throw .corrupt("authentication tag does not verify (damaged, moved or replayed data)", file: fileName, offset: offset)
            }
            body = opened
        } else {
            body = Array(payload)
        }
        let compressed = h.flags & 1 != 0
        if !compressed, body.count != h.rawLength {
            throw .corrupt("frame raw length \(h.rawLength) does not match payload \(body.count)", file: fileName, offset: offset)
        }
        return (h.kind, body, compressed, h.rawLength)
    }
}
