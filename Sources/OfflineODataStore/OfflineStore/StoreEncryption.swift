import OfflineODataEngine
import OfflineODataModel
import Synchronization

/// How a store's files are encrypted (docs/OfflineStore.md §2.2). Encrypted by default; an
/// unencrypted store only by explicit opt-out.
public enum StoreEncryption: Sendable {
    /// The data key is wrapped by a key derived from the passphrase (Argon2id).
    case passphrase(String)
    /// The app's 256-bit key (32 bytes).
    case key([UInt8])
    /// A key generated on first open (32 random bytes) and kept by the app's key store, under
    /// the store's folder path (`<storePath>/<storeName>.oostore`).
    case keyStore(any StoreKeyStore)
    /// Explicit opt-out: nothing is encrypted (frames still carry checksums).
    case unencrypted
}

/// Where the app keeps generated store keys (the platform keychain, a secure enclave wrapper…).
public protocol StoreKeyStore: Sendable {
    func key(forStore name: String) throws -> [UInt8]?
    func setKey(_ key: [UInt8], forStore name: String) throws
    func removeKey(forStore name: String) throws
}

/// A key store in memory (tests, tools; the keys are lost with the process).
public final class InMemoryStoreKeyStore: StoreKeyStore {
    private let keys = Mutex<[String: [UInt8]]>([:])

    public init() {}

    public func key(forStore name: String) throws -> [UInt8]? { keys.withLock { $0[name] } }
    public func setKey(_ key: [UInt8], forStore name: String) throws { keys.withLock { $0[name] = key } }
    public func removeKey(forStore name: String) throws { _ = keys.withLock { $0.removeValue(forKey: name) } }
    /// Names with a key, sorted.
    public var storeNames: [String] { keys.withLock { $0.keys.sorted() } }
}

extension StoreEncryption {
    /// Length of a raw or generated key in bytes.
    public static let keyLength = 32

    /// The engine's encryption for the store at `storeFolder`; generates and saves a key in the
    /// key store when it has none yet.
    func engineEncryption(storeFolder: String) throws(ODataError) -> EngineOptions.Encryption {
        switch self {
        case .passphrase(let text):
            guard !text.isEmpty else { throw .offlineInvalidParameter("encryption", "has an empty passphrase") }
            return .passphrase(text)
        case .key(let bytes):
            guard bytes.count == Self.keyLength else {
                throw .offlineInvalidParameter("encryption", "has a key of \(bytes.count) bytes (expected \(Self.keyLength))")
            }
            return .key(bytes)
        case .keyStore(let store):
            let existing: [UInt8]?
            do { existing = try store.key(forStore: storeFolder) } catch {
                throw .offlineKeyStoreFailed(storeFolder, "reading the key: \(error)")
            }
            if let existing {
                guard existing.count == Self.keyLength else {
                    throw .offlineKeyStoreFailed(storeFolder, "the kept key has \(existing.count) bytes (expected \(Self.keyLength))")
                }
                return .key(existing)
            }
            var generator = SystemRandomNumberGenerator()
            var key: [UInt8] = []
            key.reserveCapacity(Self.keyLength)
            for _ in 0..<(Self.keyLength / 8) {
                let word = generator.next() as UInt64
                for shift in stride(from: 0, to: 64, by: 8) { key.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
            }
            do { try store.setKey(key, forStore: storeFolder) } catch {
                throw .offlineKeyStoreFailed(storeFolder, "saving the generated key: \(error)")
            }
            return .key(key)
        case .unencrypted:
            return .unencrypted
        }
    }
}
