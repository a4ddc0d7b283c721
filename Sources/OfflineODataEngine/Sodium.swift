// Every libsodium call of the engine goes through this file (docs/StorageFormat.md, "Encryption").
import CSodium

/// The AEAD that seals a store's files; its id is recorded in every file header.
public enum CipherSuite: UInt8, Sendable, CaseIterable {
    /// No encryption (explicit opt-out only).
    case none = 0
    /// AES-256-GCM, used when the CPU has AES-NI/PCLMUL (libsodium's requirement).
    case aes256gcm = 1
    /// XChaCha20-Poly1305 (IETF), the portable fallback.
    case xchacha20poly1305 = 2

    /// The fastest suite this CPU supports.
    public static var preferred: CipherSuite {
        Sodium.ready
        return crypto_aead_aes256gcm_is_available() == 1 ? .aes256gcm : .xchacha20poly1305
    }

    var isSupportedHere: Bool {
        // CPU features are only detected by `sodium_init`: without it AES-GCM reads as missing
        // (a fresh process that opens an AES-GCM store with a raw key made no other call yet).
        Sodium.ready
        switch self {
        case .none, .xchacha20poly1305: return true
        case .aes256gcm: return crypto_aead_aes256gcm_is_available() == 1
        }
    }
}

enum Sodium {
    /// `sodium_init` runs once; libsodium makes repeated calls safe too.
    static let ready: Void = { _ = sodium_init() }()

    static let tagBytes = 16
    static let keyBytes = 32

    static func randomBytes(_ count: Int) -> [UInt8] {
        ready
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { if let base = $0.baseAddress { randombytes_buf(base, $0.count) } }
        return out
    }

    /// Argon2id (`crypto_pwhash`) of a passphrase into a 256-bit key-encryption key.
    static func deriveKey(passphrase: [UInt8], salt: [UInt8], opsLimit: UInt64, memLimit: UInt64)
        throws(EngineError) -> SecretKey
    {
        ready
        let key = SecretKey()
        // A zero byte after the passphrase keeps the pointer valid for an empty passphrase.
        let padded = passphrase.map { CChar(bitPattern: $0) } + [0]
        let rc = key.withMutableBytes { out in
            padded.withUnsafeBufferPointer { pw in
                salt.withUnsafeBufferPointer { s -> Int32 in
                    guard let pwp = pw.baseAddress, let sp = s.baseAddress else { return -1 }
                    return crypto_pwhash(out, 32, pwp, UInt64(passphrase.count), sp,
                                         opsLimit, Int(memLimit), crypto_pwhash_ALG_ARGON2ID13)
                }
            }
        }
        if rc != 0 {
            throw EngineError(.ioError, "Argon2id key derivation failed (out of memory for memLimit \(memLimit)?)")
        }
        return key
    }

    static var pwhashSaltBytes: Int { Int(crypto_pwhash_SALTBYTES) }
    static var opsLimitMin: UInt64 { UInt64(crypto_pwhash_OPSLIMIT_MIN) }
    static var memLimitMin: UInt64 { UInt64(crypto_pwhash_MEMLIMIT_MIN) }
    static var opsLimitInteractive: UInt64 { UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE) }
    static var memLimitInteractive: UInt64 { UInt64(crypto_pwhash_MEMLIMIT_INTERACTIVE) }
    static var opsLimitModerate: UInt64 { UInt64(crypto_pwhash_OPSLIMIT_MODERATE) }
    static var memLimitModerate: UInt64 { UInt64(crypto_pwhash_MEMLIMIT_MODERATE) }

    /// Wraps the data key with XChaCha20-Poly1305 under `kek`: returns nonce (24) + ciphertext (48).
    static func wrap(dataKey: SecretKey, kek: SecretKey, associated: [UInt8]) -> [UInt8] {
        let nonce = randomBytes(24)
        var out = [UInt8](repeating: 0, count: 32 + 16)
        dataKey.withBytes { m in
            kek.withBytes { k in
                out.withUnsafeMutableBufferPointer { c in
                    associated.withUnsafeBufferPointer { ad in
                        var clen: UInt64 = 0
                        guard let cp = c.baseAddress else { return }
                        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                            cp, &clen, m, 32, ad.baseAddress, UInt64(ad.count), nil, nonce, k)
                    }
                }
            }
        }
        return nonce + out
    }

    /// Unwraps a data key; nil when the tag does not verify (wrong passphrase or damaged bytes).
    static func unwrap(_ wrapped: [UInt8], kek: SecretKey, associated: [UInt8]) -> SecretKey? {
        guard wrapped.count == 24 + 48 else { return nil }
        let key = SecretKey()
        let nonce = Array(wrapped[0..<24])
        let cipher = Array(wrapped[24...])
        let rc = key.withMutableBytes { m in
            kek.withBytes { k in
                associated.withUnsafeBufferPointer { ad in
                    var mlen: UInt64 = 0
                    return crypto_aead_xchacha20poly1305_ietf_decrypt(
                        m, &mlen, nil, cipher, UInt64(cipher.count), ad.baseAddress, UInt64(ad.count), nonce, k)
                }
            }
        }
        return rc == 0 ? key : nil
    }

    /// A per-file key: BLAKE2b keyed with the data key over (label, salt, file number).
    static func fileKey(dataKey: SecretKey, salt: [UInt8], fileNumber: UInt32) -> SecretKey {
        var input: [UInt8] = Array("OfflineOData file key v1".utf8) + salt
        withUnsafeBytes(of: fileNumber.littleEndian) { input.append(contentsOf: $0) }
        let out = SecretKey()
        out.withMutableBytes { o in
            dataKey.withBytes { k in
                _ = crypto_generichash(o, 32, input, UInt64(input.count), k, 32)
            }
        }
        return out
    }

    static func wipe(_ pointer: UnsafeMutableRawPointer, _ count: Int) { sodium_memzero(pointer, count) }
}

/// A 32-byte BLAKE2b digest (libsodium's `crypto_generichash`, unkeyed): for recognising bytes
/// seen before without keeping or reading them again (the store's `$metadata`).
public enum ContentDigest {
    public static func blake2b256(_ bytes: [UInt8]) -> [UInt8] {
        _ = sodium_init()
        var out = [UInt8](repeating: 0, count: 32)
        out.withUnsafeMutableBufferPointer { o in
            guard let output = o.baseAddress else { return }
            bytes.withUnsafeBufferPointer { b in
                _ = crypto_generichash(output, 32, b.baseAddress, UInt64(b.count), nil, 0)
            }
        }
        return out
    }
}

/// 32 bytes of key material in memory the engine owns; wiped with `sodium_memzero` on deinit,
/// so closing a store (which drops every reference) erases its keys.
final class SecretKey: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<UInt8>

    init() {
        pointer = .allocate(capacity: 32)
        pointer.initialize(repeating: 0, count: 32)
    }

    convenience init(copying bytes: [UInt8]) {
        self.init()
        for i in 0..<min(32, bytes.count) { pointer[i] = bytes[i] }
    }

    deinit {
        Sodium.wipe(pointer, 32)
        pointer.deallocate()
    }

    func withBytes<R>(_ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R { try body(pointer) }
    func withMutableBytes<R>(_ body: (UnsafeMutablePointer<UInt8>) throws -> R) rethrows -> R { try body(pointer) }
    /// Zeroes the key now (it also happens on deinit).
    func wipe() { Sodium.wipe(pointer, 32) }

    /// Test hook: whether every byte is zero (after wiping).
    var isAllZero: Bool { (0..<32).allSatisfy { pointer[$0] == 0 } }
}

/// Seals and opens the frames of one file. The nonce is the frame's offset in the file (unique,
/// because files are append-only, never reopened for writing, and each has its own random salt
/// and therefore its own key); the associated data binds file number, offset and frame header.
final class FileCipher: @unchecked Sendable {
    let suite: CipherSuite
    private let key: SecretKey
    private let aesState: UnsafeMutableRawPointer?

    init(suite: CipherSuite, key: SecretKey) {
        self.suite = suite
        self.key = key
        if suite == .aes256gcm {
            let state = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
            key.withBytes { k in
                _ = crypto_aead_aes256gcm_beforenm(state.assumingMemoryBound(to: crypto_aead_aes256gcm_state.self), k)
            }
            aesState = state
        } else {
            aesState = nil
        }
    }

    deinit {
        if let aesState {
            Sodium.wipe(aesState, 512)
            aesState.deallocate()
        }
    }

    static let overhead = Sodium.tagBytes

    private func nonce(offset: UInt64) -> [UInt8] {
        var n = [UInt8](repeating: 0, count: suite == .aes256gcm ? 12 : 24)
        for i in 0..<8 { n[i] = UInt8(truncatingIfNeeded: offset >> UInt64(8 * i)) }
        return n
    }

    /// Appends ciphertext+tag of `plain` to `out`.
    func seal(_ plain: UnsafeRawBufferPointer, associated: [UInt8], offset: UInt64, into out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: plain.count + Self.overhead))
        let npub = nonce(offset: offset)
        out.withUnsafeMutableBufferPointer { o in
            guard let c = o.baseAddress?.advanced(by: start) else { return }
            let m = plain.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var clen: UInt64 = 0
            associated.withUnsafeBufferPointer { ad in
                if let aesState {
                    _ = crypto_aead_aes256gcm_encrypt_afternm(
                        c, &clen, m, UInt64(plain.count), ad.baseAddress, UInt64(ad.count), nil, npub,
                        aesState.assumingMemoryBound(to: crypto_aead_aes256gcm_state.self))
                } else {
                    key.withBytes { k in
                        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                            c, &clen, m, UInt64(plain.count), ad.baseAddress, UInt64(ad.count), nil, npub, k)
                    }
                }
            }
        }
    }

    /// Opens ciphertext+tag; nil when the tag does not verify.
    func open(_ sealed: UnsafeRawBufferPointer, associated: [UInt8], offset: UInt64) -> [UInt8]? {
        guard sealed.count >= Self.overhead else { return nil }
        let plainCount = sealed.count - Self.overhead
        let npub = nonce(offset: offset)
        var ok = false
        let result = [UInt8](unsafeUninitializedCapacity: max(plainCount, 1)) { buffer, initialized in
            var mlen: UInt64 = 0
            guard let c = sealed.baseAddress?.assumingMemoryBound(to: UInt8.self),
                  let mp = buffer.baseAddress else { initialized = 0; return }
            let rc: Int32 = associated.withUnsafeBufferPointer { ad in
                if let aesState {
                    return crypto_aead_aes256gcm_decrypt_afternm(
                        mp, &mlen, nil, c, UInt64(sealed.count), ad.baseAddress, UInt64(ad.count),
                        npub, aesState.assumingMemoryBound(to: crypto_aead_aes256gcm_state.self))
                }
                return key.withBytes { k in
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        mp, &mlen, nil, c, UInt64(sealed.count), ad.baseAddress, UInt64(ad.count), npub, k)
                }
            }
            ok = rc == 0
            initialized = ok ? plainCount : 0
        }
        return ok ? result : nil
    }
}
