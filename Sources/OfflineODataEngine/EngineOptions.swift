/// How a store is opened. A value type: copy, adjust, pass to `StorageEngine.open`.
public struct EngineOptions: Sendable {
    /// Encryption at rest. On by default; an unencrypted store only by explicit opt-out.
    public enum Encryption: Sendable {
        /// The data key is wrapped by a key derived from the passphrase with Argon2id.
        case passphrase(String)
        /// The app supplies a 256-bit key (32 bytes); no key derivation.
        case key([UInt8])
        /// Explicit opt-out: nothing is encrypted (frames still carry CRC-32C checksums).
        case unencrypted
    }

    /// When a commit returns.
    public enum Durability: Sendable {
        /// After the commit is on stable storage (`fdatasync`); survives power loss.
        case full
        /// After the commit is written to the OS (no sync per commit). Survives a crash of the
        /// process, not of the machine: a power loss can lose commits since the last checkpoint
        /// (runs and manifests are always synced).
        case relaxed
    }

    /// Argon2id cost. `.interactive` ≈ 60 ms on the reference machine, `.moderate` ≈ 400 ms.
    public struct KeyDerivation: Sendable, Equatable {
        public var opsLimit: UInt64
        public var memLimit: UInt64
        public init(opsLimit: UInt64, memLimit: UInt64) {
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }
        public static var interactive: KeyDerivation { .init(opsLimit: Sodium.opsLimitInteractive, memLimit: Sodium.memLimitInteractive) }
        public static var moderate: KeyDerivation { .init(opsLimit: Sodium.opsLimitModerate, memLimit: Sodium.memLimitModerate) }
        /// The weakest libsodium allows; for tests only.
        public static var minimum: KeyDerivation { .init(opsLimit: Sodium.opsLimitMin, memLimit: Sodium.memLimitMin) }
    }

    public var encryption: Encryption
    public var durability: Durability = .full
    public var keyDerivation: KeyDerivation = .interactive
    /// nil: AES-256-GCM where the CPU has it, else XChaCha20-Poly1305. Fixed at creation.
    public var cipher: CipherSuite?
    /// Bytes of decoded blocks kept in memory.
    public var cacheSize: Int = 32 << 20
    /// Bytes of recent writes kept in memory before they are written into a run.
    public var memTableSize: Int = 8 << 20
    /// Target raw size of a run block (the unit of compression and encryption).
    public var blockSize: Int = 16 << 10
    /// LZ4 on blocks and commits (a block that does not shrink is stored as is).
    public var compression = true
    /// Merge runs in the background when the tiering rule or the garbage estimate asks for it.
    public var autoCompaction = true
    /// How long `open` waits for the writer lock before it reports `storeLocked`. A store held
    /// by another handle or process is reported after this wait; a lock held only for an
    /// instant (a child process being spawned elsewhere in the app briefly shares every open
    /// descriptor) is simply waited out. Zero: fail at once.
    public var lockWait: Duration = .milliseconds(500)
    /// Create the store if the directory holds none.
    public var createIfMissing = true
    /// The file-system seam (tests inject faults here).
    public var fileSystem: any FileSystem = PosixFileSystem()

    public init(encryption: Encryption) {
        self.encryption = encryption
    }

    func validate() throws(EngineError) {
        if case .key(let k) = encryption, k.count != 32 {
            throw EngineError(.invalidArgument, "an encryption key must be 32 bytes, got \(k.count)")
        }
        if case .passphrase(let p) = encryption, p.isEmpty {
            throw EngineError(.invalidArgument, "the passphrase is empty")
        }
        guard lockWait >= .zero else { throw EngineError(.invalidArgument, "lockWait must not be negative") }
        guard cacheSize >= 0, memTableSize >= 4096, blockSize >= 512, blockSize <= 4 << 20 else {
            throw EngineError(.invalidArgument, "cacheSize must be ≥ 0, memTableSize ≥ 4096, blockSize within 512 B…4 MiB")
        }
        if cipher == CipherSuite.none {
            guard case .unencrypted = encryption else {
                throw EngineError(.invalidArgument, "cipher .none requires encryption: .unencrypted")
            }
        }
        if let cipher, !cipher.isSupportedHere {
            throw EngineError(.notSupported, "cipher \(cipher) is not available on this CPU")
        }
        guard keyDerivation.opsLimit >= Sodium.opsLimitMin, keyDerivation.memLimit >= Sodium.memLimitMin else {
            throw EngineError(.invalidArgument, "key derivation limits below libsodium's minimum")
        }
    }
}

/// A named, ordered keyspace. Obtain one with `StorageEngine.tree(_:)`.
public struct Tree: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    let id: UInt32

    public var description: String { "tree \(name) (#\(id))" }

    // Hashing the id alone: trees key per-write dictionaries (a batch's overlay), where hashing
    // the name string too would cost a full string hash per record. Equal trees have equal ids.
    public static func == (a: Tree, b: Tree) -> Bool { a.id == b.id && a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Appends the tree's 4-byte prefix of internal keys (its id, big-endian).
    @inline(__always) func appendPrefix(to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: id >> 24))
        buffer.append(UInt8(truncatingIfNeeded: id >> 16))
        buffer.append(UInt8(truncatingIfNeeded: id >> 8))
        buffer.append(UInt8(truncatingIfNeeded: id))
    }

    /// Internal keys are the tree id (4 bytes, big-endian) followed by the user key
    /// (docs/StorageFormat.md, "Keys").
    /// The same, written into `buffer` (its contents replaced, its capacity kept).
    @inline(__always) func internalKey(_ key: [UInt8], into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        appendPrefix(to: &buffer)
        buffer.append(contentsOf: key)
    }

    @inline(__always) func internalKey(_ key: [UInt8]) -> [UInt8] {
        var k = [UInt8]()
        k.reserveCapacity(key.count + 4)
        appendPrefix(to: &k)
        k.append(contentsOf: key)
        return k
    }

    var prefix: [UInt8] { internalKey([]) }

    /// The first internal key after this tree.
    var upperBound: [UInt8] { Tree(name: "", id: id &+ 1).prefix }

    static let catalog = Tree(name: "$catalog", id: 0)
}

/// A set of writes applied atomically by `StorageEngine.commit`.
public struct WriteBatch: Sendable {
    var records: [LogRecord] = []
    var byteSize = 0

    public init() {}

    public static let maxKeySize = 16 << 10
    public static let maxValueSize = 64 << 20

    public var count: Int { records.count }
    public var isEmpty: Bool { records.isEmpty }

    public mutating func put(_ key: [UInt8], _ value: [UInt8], in tree: Tree) {
        records.append(LogRecord(key: tree.internalKey(key), value: value))
        byteSize += key.count + value.count
    }

    public mutating func delete(_ key: [UInt8], in tree: Tree) {
        records.append(LogRecord(key: tree.internalKey(key), value: nil))
        byteSize += key.count
    }

    func validate() throws(EngineError) {
        for r in records {
            if r.key.count - 4 > Self.maxKeySize {
                throw EngineError(.invalidArgument, "key of \(r.key.count - 4) bytes exceeds \(Self.maxKeySize)")
            }
            if let v = r.value, v.count > Self.maxValueSize {
                throw EngineError(.invalidArgument, "value of \(v.count) bytes exceeds \(Self.maxValueSize)")
            }
        }
    }
}
