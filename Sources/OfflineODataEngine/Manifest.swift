/// How the data key is protected (docs/StorageFormat.md, "Manifest", key block).
struct KeyBlock: Sendable, Equatable {
    enum Mode: UInt8 { case none = 0, passphrase = 1, rawKey = 2 }
    var mode: Mode
    var opsLimit: UInt64
    var memLimit: UInt64
    var salt: [UInt8]  // 16 bytes
    var wrappedKey: [UInt8]  // 72 bytes (nonce 24 + ciphertext 48), zeros when unencrypted

    static let unencrypted = KeyBlock(mode: .none, opsLimit: 0, memLimit: 0, salt: [UInt8](repeating: 0, count: 16),
                                      wrappedKey: [UInt8](repeating: 0, count: 72))

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Format.keyBlockSize)
        w.u8(mode.rawValue)
        w.u8(mode == .passphrase ? 2 : 0)  // 2 = Argon2id v1.3
        w.u16(0)
        w.u64(opsLimit)
        w.u64(memLimit)
        w.append(salt)
        w.append(wrappedKey)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    static func decode(_ bytes: [UInt8], file: String) throws(EngineError) -> KeyBlock {
        let base = UInt64(Format.fileHeaderSize)
        guard bytes.count == Format.keyBlockSize else {
            throw .corrupt("manifest key block truncated", file: file, offset: base)
        }
        var r = ByteReader(bytes, context: "key block", file: file, baseOffset: base)
        let modeByte = try r.u8()
        let alg = try r.u8()
        _ = try r.u16()
        let ops = try r.u64()
        let mem = try r.u64()
        let salt = try r.bytes(16)
        let wrapped = try r.bytes(72)
        let crc = try r.u32()
        guard crc == CRC32C.checksum(Array(bytes[0..<(Format.keyBlockSize - 4)])) else {
            throw .corrupt("manifest key block checksum mismatch", file: file, offset: base + 108)
        }
        guard let mode = Mode(rawValue: modeByte), mode != .passphrase || alg == 2 else {
            throw .corrupt("unknown key protection mode \(modeByte)/\(alg)", file: file, offset: base)
        }
        guard mode != .passphrase || (ops >= Sodium.opsLimitMin && ops <= 1 << 20 && mem >= Sodium.memLimitMin && mem <= 1 << 36) else {
            throw .corrupt("key derivation limits out of range (ops \(ops), mem \(mem))", file: file, offset: base + 4)
        }
        return KeyBlock(mode: mode, opsLimit: ops, memLimit: mem, salt: salt, wrappedKey: wrapped)
    }
}

/// The store's root: which runs hold the data and where log replay starts
/// (docs/StorageFormat.md, "Manifest"). Written whole to a new file, synced, then renamed into
/// place; never modified.
struct ManifestData: Sendable, Equatable {
    struct RunEntry: Sendable, Equatable {
        var fileNumber: UInt32
        var fileSize: UInt64
    }

    var number: UInt32
    var keyBlock: KeyBlock
    /// The last commit sequence whose data the runs hold.
    var sequence: UInt64
    var nextFileNumber: UInt32
    /// Replay every log whose number is ≥ this.
    var logStart: UInt32
    /// Newest first.
    var runs: [RunEntry]

    func bodyRaw() -> [UInt8] {
        var w = ByteWriter()
        w.u64(sequence)
        w.u32(nextFileNumber)
        w.u32(logStart)
        w.varint(UInt64(runs.count))
        for r in runs {
            w.u32(r.fileNumber)
            w.u64(r.fileSize)
        }
        return w.bytes
    }

    /// Writes MANIFEST-n: temp file, sync, rename, sync directory.
    func write(fs: any FileSystem, directory: String, keys: KeyRing) throws(EngineError) {
        let name = FileNames.manifest(number)
        let temp = directory + "/" + name + FileNames.tempSuffix
        try? fs.remove(temp)
        let header = keys.newHeader(type: .manifest, fileNumber: number)
        let codec = keys.codec(for: header, fileName: name, compress: false)
        var bytes = header.encoded()
        bytes.append(contentsOf: keyBlock.encoded())
        let body = bodyRaw()
        let offset = UInt64(bytes.count)
        body.withUnsafeBytes { codec.encode(kind: .manifestBody, raw: $0, offset: offset, into: &bytes) }
        let file = try fs.create(temp)
        do {
            try file.write(bytes, at: 0)
            try file.sync()
            file.close()
        } catch {
            file.close()
            try? fs.remove(temp)
            throw error
        }
        try fs.rename(temp, to: directory + "/" + name)
        try fs.syncDirectory(directory)
    }

    /// Reads the plaintext part: header and key block (enough to unlock the store).
    static func readPreamble(fs: any FileSystem, directory: String, number: UInt32) throws(EngineError) -> (FileHeader, KeyBlock, [UInt8]) {
        let name = FileNames.manifest(number)
        let file = try fs.open(directory + "/" + name, writable: false)
        defer { file.close() }
        let size = try file.size()
        guard size <= 1 << 24 else { throw .corrupt("manifest is implausibly large (\(size) bytes)", file: name, offset: 0) }
        let bytes = try file.read(at: 0, count: Int(size))
        if bytes.isEmpty { throw .corrupt("manifest is empty (zero-length file)", file: name, offset: 0) }
        let header = try FileHeader.decode(Array(bytes.prefix(Format.fileHeaderSize)), expected: .manifest, file: name)
        guard bytes.count >= Format.fileHeaderSize + Format.keyBlockSize else {
            throw .corrupt("manifest truncated (\(bytes.count) bytes)", file: name, offset: UInt64(bytes.count))
        }
        let keyBlock = try KeyBlock.decode(Array(bytes[Format.fileHeaderSize..<(Format.fileHeaderSize + Format.keyBlockSize)]), file: name)
        return (header, keyBlock, bytes)
    }

    /// Opens the sealed body with the unlocked keys.
    static func decodeBody(number: UInt32, header: FileHeader, keyBlock: KeyBlock, bytes: [UInt8], keys: KeyRing) throws(EngineError) -> ManifestData {
        let name = FileNames.manifest(number)
        let codec = try keys.codecForExisting(header, fileName: name)
        let offset = Format.fileHeaderSize + Format.keyBlockSize
        let (_, raw) = try codec.decode(Array(bytes[offset...]), offset: UInt64(offset),
                                        expecting: [FrameKind.manifestBody.rawValue])
        var r = ByteReader(raw, context: "manifest body", file: name)
        let sequence = try r.u64()
        let next = try r.u32()
        let logStart = try r.u32()
        let count = try r.length(max: 100_000)
        var runs: [RunEntry] = []
        for _ in 0..<count { runs.append(RunEntry(fileNumber: try r.u32(), fileSize: try r.u64())) }
        return ManifestData(number: number, keyBlock: keyBlock, sequence: sequence, nextFileNumber: next,
                            logStart: logStart, runs: runs)
    }
}
