/// The store's key material and cipher choice; hands out per-file frame codecs.
/// Dropping the last reference wipes the data key (`SecretKey` zeroes itself).
final class KeyRing: Sendable {
    let suite: CipherSuite
    let dataKey: SecretKey?

    init(suite: CipherSuite, dataKey: SecretKey?) {
        self.suite = suite
        self.dataKey = dataKey
    }

    /// Zeroes the data key (on close). Per-file keys are wiped when their files are released.
    func wipe() { dataKey?.wipe() }

    var isWiped: Bool { dataKey?.isAllZero ?? true }

    func newHeader(type: FileType, fileNumber: UInt32) -> FileHeader {
        FileHeader(type: type, version: Format.formatVersion, cipher: suite, fileNumber: fileNumber,
                   salt: Sodium.randomBytes(16))
    }

    private func cipher(for header: FileHeader) -> FileCipher? {
        guard header.cipher != .none, let dataKey else { return nil }
        return FileCipher(suite: header.cipher,
                          key: Sodium.fileKey(dataKey: dataKey, salt: header.salt, fileNumber: header.fileNumber))
    }

    func codec(for header: FileHeader, fileName: String, compress: Bool) -> FrameCodec {
        FrameCodec(fileNumber: header.fileNumber, cipher: cipher(for: header), compress: compress, fileName: fileName)
    }

    /// A codec for reading a file written earlier; refuses a file whose cipher differs from the
    /// store's (an unencrypted file slipped into an encrypted store is damage, not data).
    func codecForExisting(_ header: FileHeader, fileName: String) throws(EngineError) -> FrameCodec {
        guard header.cipher == suite else {
            throw .corrupt("file is sealed with cipher \(header.cipher) but the store uses \(suite)", file: fileName, offset: 10)
        }
        guard suite.isSupportedHere else {
            throw EngineError(.notSupported, "the store is encrypted with AES-256-GCM, which this CPU does not support in libsodium", file: fileName)
        }
        return codec(for: header, fileName: fileName, compress: false)
    }
}
