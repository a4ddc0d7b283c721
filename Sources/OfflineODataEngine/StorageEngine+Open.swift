extension StorageEngine {
    /// Opens (or creates) the store in directory `path`.
    ///
    /// Recovery, as a numbered recipe:
    /// 1. the path must be a directory (created when missing and allowed);
    /// 2. take the writer lock, waiting up to `options.lockWait` for a holder to let go (a second
    ///    opener still holding it then gets `storeLocked`);
    /// 3. list the files, drop temporary ones;
    /// 4. no manifest: create a new store (or refuse if data files exist without one);
    /// 5. read the newest manifest, unlock the data key (a wrong passphrase fails here, before
    ///    any data is read), open its body;
    /// 6. open the runs it names;
    /// 7. replay the logs from its `logStart` on; a torn tail of the newest log is cut off;
    /// 8. remove files no manifest names (leftovers of an interrupted flush);
    /// 9. rebuild the tree catalog.
    public static func open(path: String, options: EngineOptions) throws(EngineError) -> StorageEngine {
        try options.validate()
        let fs = options.fileSystem
        let directory = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard !directory.isEmpty else { throw EngineError(.invalidArgument, "the store path is empty") }
        // 1.
        switch fs.kind(of: directory) {
        case nil:
            guard options.createIfMissing else {
                throw EngineError(.notAStore, "no store exists at this path (createIfMissing is off)", file: directory)
            }
            try fs.makeDirectory(directory)
        case .file, .other:
            throw EngineError(.notAStore, "the path is a file, not a store directory", file: directory)
        case .directory:
            break
        }
        // 2.
        let lock = try acquireLock(fs, directory + "/" + FileNames.lock, wait: options.lockWait)
        do throws(EngineError) {
            return try recover(directory: directory, options: options, lock: lock)
        } catch {
            lock.close()
            throw error
        }
    }

    private static func recover(directory: String, options: EngineOptions, lock: any EngineFile) throws(EngineError) -> StorageEngine {
        let fs = options.fileSystem
        // 3.
        var manifests: [UInt32] = [], logs: [UInt32] = [], runFiles: [UInt32] = [], spools: [String] = []
        var highest: UInt32 = 0
        for name in try fs.list(directory) {
            switch FileNames.parse(name) {
            case .manifest(let n): manifests.append(n); highest = max(highest, n)
            case .log(let n): logs.append(n); highest = max(highest, n)
            case .run(let n): runFiles.append(n); highest = max(highest, n)
            case .spool(let name): spools.append(name)
            case .temp: try? fs.remove(directory + "/" + name)
            case .lock, .other: break
            }
        }
        manifests.sort(by: >)
        logs.sort()
        let cache = BlockCache(capacity: options.cacheSize)
        // 4.
        if manifests.isEmpty {
            guard logs.isEmpty && runFiles.isEmpty else {
                throw .corrupt("the store has data files but no manifest", file: directory, offset: nil)
            }
            guard options.createIfMissing else {
                throw EngineError(.notAStore, "the directory holds no store (createIfMissing is off)", file: directory)
            }
            let (keys, keyBlock) = try createKeys(options)
            let manifest = ManifestData(number: 1, keyBlock: keyBlock, sequence: 0, nextFileNumber: 3, logStart: 2, runs: [])
            try manifest.write(fs: fs, directory: directory, keys: keys)
            return StorageEngine(directory: directory, options: options, keys: keys, lockFile: lock, manifest: manifest,
                                 runs: [], active: MemTable(), sequence: 0, nextFileNumber: 3, cache: cache)
        }
        // 5. The newest manifest that opens; an older one only if the newest is damaged (its
        // files are kept until the newer manifest is durable, so it is still complete).
        var loaded: (ManifestData, KeyRing)?
        var firstError: EngineError?
        var unlockedKeys: (KeyBlock, KeyRing)?
        for number in manifests {
            do throws(EngineError) {
                let (header, keyBlock, bytes) = try ManifestData.readPreamble(fs: fs, directory: directory, number: number)
                let keys: KeyRing
                if let (kb, k) = unlockedKeys, kb == keyBlock {
                    keys = k
                } else {
                    keys = try unlock(keyBlock: keyBlock, cipher: header.cipher, options: options,
                                      file: FileNames.manifest(number))
                    unlockedKeys = (keyBlock, keys)
                }
                let manifest = try ManifestData.decodeBody(number: number, header: header, keyBlock: keyBlock,
                                                           bytes: bytes, keys: keys)
                loaded = (manifest, keys)
                break
            } catch {
                // Wrong passphrase, newer format, not-a-store: no fallback.
                if error.kind != .corruption { throw error }
                if firstError == nil { firstError = error }
            }
        }
        guard let (manifest, keys) = loaded else {
            throw firstError ?? .corrupt("no readable manifest", file: directory, offset: nil)
        }
        // 6.
        var runs: [RunFile] = []
        for entry in manifest.runs {
            runs.append(try RunFile.open(fs: fs, directory: directory, fileNumber: entry.fileNumber, keys: keys, cache: cache))
        }
        // 7.
        var active = MemTable()
        var sequence = manifest.sequence
        var catalog: [LogRecord] = []
        let replayLogs = logs.filter { $0 >= manifest.logStart }
        for (i, number) in replayLogs.enumerated() {
            let isLast = i == replayLogs.count - 1
            let result = try LogReplay.replay(fs: fs, directory: directory, fileNumber: number, keys: keys, isLast: isLast) { seq, records in
                for r in records {
                    active.set(r.key, r.value)
                    if r.key.starts(with: [0, 0, 0, 0]) { catalog.append(r) }
                }
                sequence = max(sequence, seq)
            }
            if isLast && (result.tornBytes > 0 || result.validEnd == 0) {
                let path = directory + "/" + FileNames.log(number)
                if result.validEnd == 0 {
                    try fs.remove(path)
                } else {
                    let file = try fs.open(path, writable: true)
                    defer { file.close() }
                    try file.truncate(to: result.validEnd)
                    try file.sync()
                }
            }
        }
        // 8.
        let named = Set(manifest.runs.map(\.fileNumber))
        for n in runFiles where !named.contains(n) { try? fs.remove(directory + "/" + FileNames.run(n)) }
        for n in logs where n < manifest.logStart { try? fs.remove(directory + "/" + FileNames.log(n)) }
        for n in manifests where n != manifest.number { try? fs.remove(directory + "/" + FileNames.manifest(n)) }
        let next = max(manifest.nextFileNumber, highest + 1)
        let engine = StorageEngine(directory: directory, options: options, keys: keys, lockFile: lock, manifest: manifest,
                                   runs: runs, active: active, sequence: sequence, nextFileNumber: next, cache: cache,
                                   spoolsAtOpen: spools.sorted())
        // 9.
        let snapshot = try engine.snapshot()
        var cursor = try snapshot.cursor(in: Tree.catalog)
        var entries: [LogRecord] = []
        while let (k, v) = try cursor.next() { entries.append(LogRecord(key: Tree.catalog.internalKey(k), value: v)) }
        engine.state.withLock { s in
            for r in entries { noteCatalog(r, into: &s) }
        }
        return engine
    }

    static func createKeys(_ options: EngineOptions) throws(EngineError) -> (KeyRing, KeyBlock) {
        switch options.encryption {
        case .unencrypted:
            return (KeyRing(suite: .none, dataKey: nil), .unencrypted)
        case .passphrase, .key:
            let suite = options.cipher ?? CipherSuite.preferred
            let dataKey = SecretKey(copying: Sodium.randomBytes(32))
            let block = try wrapKey(dataKey, encryption: options.encryption, kdf: options.keyDerivation)
            return (KeyRing(suite: suite, dataKey: dataKey), block)
        }
    }

    static func wrapKey(_ dataKey: SecretKey, encryption: EngineOptions.Encryption, kdf: EngineOptions.KeyDerivation)
        throws(EngineError) -> KeyBlock
    {
        switch encryption {
        case .unencrypted:
            throw EngineError(.notSupported, "an encrypted store cannot be made unencrypted in place")
        case .passphrase(let p):
            let salt = Sodium.randomBytes(16)
            let kek = try Sodium.deriveKey(passphrase: Array(p.utf8), salt: salt, opsLimit: kdf.opsLimit, memLimit: kdf.memLimit)
            let wrapped = Sodium.wrap(dataKey: dataKey, kek: kek, associated: Format.keyWrapLabel + [KeyBlock.Mode.passphrase.rawValue])
            return KeyBlock(mode: .passphrase, opsLimit: kdf.opsLimit, memLimit: kdf.memLimit, salt: salt, wrappedKey: wrapped)
        case .key(let k):
            guard k.count == 32 else { throw EngineError(.invalidArgument, "an encryption key must be 32 bytes, got \(k.count)") }
            let kek = SecretKey(copying: k)
            let wrapped = Sodium.wrap(dataKey: dataKey, kek: kek, associated: Format.keyWrapLabel + [KeyBlock.Mode.rawKey.rawValue])
            return KeyBlock(mode: .rawKey, opsLimit: 0, memLimit: 0, salt: [UInt8](repeating: 0, count: 16), wrappedKey: wrapped)
        }
    }

    static func unlock(keyBlock: KeyBlock, cipher: CipherSuite, options: EngineOptions, file: String) throws(EngineError) -> KeyRing {
        switch (keyBlock.mode, options.encryption) {
        case (.none, .unencrypted):
            guard cipher == .none else { throw .corrupt("unencrypted key block in an encrypted manifest", file: file, offset: 10) }
            return KeyRing(suite: .none, dataKey: nil)
        case (.none, _):
            throw EngineError(.invalidArgument, "the store is not encrypted; open it with encryption: .unencrypted", file: file)
        case (_, .unencrypted):
            throw EngineError(.wrongPassphrase, "the store is encrypted; a passphrase or key is required", file: file)
        case (.passphrase, .key):
            throw EngineError(.wrongPassphrase, "the store is protected by a passphrase, not a raw key", file: file)
        case (.rawKey, .passphrase):
            throw EngineError(.wrongPassphrase, "the store is protected by a raw key, not a passphrase", file: file)
        case (.passphrase, .passphrase(let p)):
            let kek = try Sodium.deriveKey(passphrase: Array(p.utf8), salt: keyBlock.salt, opsLimit: keyBlock.opsLimit,
                                           memLimit: keyBlock.memLimit)
            guard let key = Sodium.unwrap(keyBlock.wrappedKey, kek: kek, associated: Format.keyWrapLabel + [keyBlock.mode.rawValue]) else {
                throw EngineError(.wrongPassphrase, "the passphrase does not unlock this store", file: file)
            }
            return KeyRing(suite: cipher, dataKey: key)
        case (.rawKey, .key(let k)):
            guard let key = Sodium.unwrap(keyBlock.wrappedKey, kek: SecretKey(copying: k), associated: Format.keyWrapLabel + [keyBlock.mode.rawValue]) else {
                throw EngineError(.wrongPassphrase, "the key does not unlock this store", file: file)
            }
            return KeyRing(suite: cipher, dataKey: key)
        }
    }

    /// Protects the data key with a new passphrase or key. Rewraps the key in a new manifest;
    /// no data is rewritten. The old passphrase stops working once this returns.
    public func rekey(to encryption: EngineOptions.Encryption, keyDerivation: EngineOptions.KeyDerivation = .interactive)
        throws(EngineError)
    {
        guard let dataKey = keys.dataKey else {
            throw EngineError(.notSupported, "the store is unencrypted; encryption cannot be added in place (export and import into a new store)")
        }
        if case .passphrase(let p) = encryption, p.isEmpty { throw EngineError(.invalidArgument, "the passphrase is empty") }
        let block = try Self.wrapKey(dataKey, encryption: encryption, kdf: keyDerivation)
        var outcome: Result<Void, EngineError> = .success(())
        flushQueue.sync {
            do throws(EngineError) {
                let old = try state.withLock { s throws(EngineError) -> ManifestData in
                    if s.closed { throw EngineError(.storeClosed, "the store is closed") }
                    return s.manifest
                }
                var next = old
                next.number = allocateFileNumber()
                next.keyBlock = block
                next.nextFileNumber = fileNumbers.withLock { $0 }
                try next.write(fs: fs, directory: directory, keys: keys)
                state.withLock { $0.manifest = next }
                try? fs.remove(directory + "/" + FileNames.manifest(old.number))
            } catch {
                outcome = .failure(error)
            }
        }
        try outcome.get()
    }
}

extension StorageEngine {
    /// Takes the writer lock, retrying with growing pauses (0.1 ms doubling to 10 ms) while it is
    /// held, until `wait` has passed.
    ///
    /// Why wait at all: `flock` belongs to the open file description, and a child process that
    /// another thread of this process is spawning holds a copy of every descriptor between its
    /// fork and its exec (even close-on-exec ones). A store closed and reopened at that moment
    /// finds its own lock still held for that instant. Measured: reopening in a loop while a
    /// second thread spawns `/bin/true` failed with `storeLocked` on 575 of 3000 attempts without
    /// the wait (`EngineLockTests`).
    static func acquireLock(_ fs: any FileSystem, _ path: String, wait: Duration) throws(EngineError) -> any EngineFile {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        var pause: UInt64 = 100_000
        while true {
            do throws(EngineError) {
                return try fs.lock(path)
            } catch where error.kind == .storeLocked && clock.now < deadline {
                pauseThread(nanoseconds: pause)
                pause = min(pause * 2, 10_000_000)
            }
        }
    }
}
