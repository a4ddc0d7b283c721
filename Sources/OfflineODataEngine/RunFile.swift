import Synchronization

/// Summary of a run, kept in its footer and in the manifest (docs/StorageFormat.md, "Run files").
struct RunInfo: Sendable, Equatable {
    var fileNumber: UInt32
    var fileSize: UInt64
    var entryCount: UInt64
    var tombstoneCount: UInt64
    var leafCount: UInt64
    /// Sum of key and value bytes of every entry.
    var rawBytes: UInt64
    var height: Int
    var minKey: [UInt8]
    var maxKey: [UInt8]
    var rootOffset: UInt64
    var rootLength: Int
    /// The Bloom filter frame (length 0: none).
    var filterOffset: UInt64 = 0
    var filterLength: Int = 0
    /// The trees the run holds keys of (each key's 4-byte tree prefix, big-endian, as a number),
    /// ascending; empty when not recorded (runs written before the list existed, or holding more
    /// than `maxListedTrees` trees). A read of a tree the list does not name skips the run without
    /// reading its filter or blocks.
    var trees: [UInt32] = []

    /// At most this many trees are listed in a footer (4 bytes each).
    static let maxListedTrees = 1024

    /// The tree prefix of an internal key as a number; nil for a key shorter than a prefix.
    @inline(__always) static func treePrefix(_ key: [UInt8]) -> UInt32? {
        key.withUnsafeBytes { treePrefix($0) }
    }

    @inline(__always) static func treePrefix(_ key: UnsafeRawBufferPointer) -> UInt32? {
        guard key.count >= 4 else { return nil }
        return UInt32(key[0]) << 24 | UInt32(key[1]) << 16 | UInt32(key[2]) << 8 | UInt32(key[3])
    }

    func encodeFooter() -> [UInt8] {
        var w = ByteWriter()
        w.u64(rootOffset)
        w.u32(UInt32(rootLength))
        w.u8(UInt8(height))
        w.u64(entryCount)
        w.u64(tombstoneCount)
        w.u64(leafCount)
        w.u64(rawBytes)
        w.lengthPrefixed(minKey)
        w.lengthPrefixed(maxKey)
        w.u64(filterOffset)
        w.u32(UInt32(filterLength))
        if !trees.isEmpty {
            w.u32(UInt32(trees.count))
            for t in trees { w.u32(t) }
        }
        return w.bytes
    }

    static func decodeFooter(_ raw: [UInt8], fileNumber: UInt32, fileSize: UInt64, file: String) throws(EngineError) -> RunInfo {
        var r = ByteReader(raw, context: "run footer", file: file)
        let rootOffset = try r.u64()
        let rootLength = Int(try r.u32())
        let height = Int(try r.u8())
        let entries = try r.u64()
        let tombstones = try r.u64()
        let leaves = try r.u64()
        let rawBytes = try r.u64()
        let minKey = try r.lengthPrefixed()
        let maxKey = try r.lengthPrefixed()
        let filterOffset = try r.u64()
        let filterLength = Int(try r.u32())
        guard height >= 1, height <= 32, rootOffset + UInt64(rootLength) <= fileSize,
              filterOffset + UInt64(filterLength) <= fileSize else {
            throw .corrupt("run footer has an invalid root or filter pointer or height", file: file, offset: nil)
        }
        // The tree list, when the footer has one (runs written before it have none).
        var trees: [UInt32] = []
        if !r.isAtEnd {
            let count = Int(try r.u32())
            guard count >= 1, count <= maxListedTrees, r.remaining == count * 4 else {
                throw .corrupt("run footer's tree list has \(count) trees and \(r.remaining) bytes", file: file, offset: nil)
            }
            trees.reserveCapacity(count)
            for _ in 0..<count {
                let t = try r.u32()
                guard trees.last.map({ $0 < t }) ?? true else {
                    throw .corrupt("run footer's tree list is not ascending", file: file, offset: nil)
                }
                trees.append(t)
            }
            guard trees.first == treePrefix(minKey), trees.last == treePrefix(maxKey) else {
                throw .corrupt("run footer's tree list does not match its key range", file: file, offset: nil)
            }
        }
        return RunInfo(fileNumber: fileNumber, fileSize: fileSize, entryCount: entries, tombstoneCount: tombstones,
                       leafCount: leaves, rawBytes: rawBytes, height: height, minKey: minKey, maxKey: maxKey,
                       rootOffset: rootOffset, rootLength: rootLength, filterOffset: filterOffset, filterLength: filterLength,
                       trees: trees)
    }
}

/// Writes one immutable run: sorted entries into leaf blocks, a B+tree of index blocks above
/// them, a footer frame and a plaintext trailer pointing at the footer.
final class RunWriter: @unchecked Sendable {  // owned by one flush at a time
    let fileNumber: UInt32
    let name: String
    private let path: String
    private let fs: any FileSystem
    private let file: any EngineFile
    private let codec: FrameCodec
    private let blockSize: Int
    // Owned by one thread at a time, so the runtime exclusivity checks on the state `add`
    // touches for every entry are skipped (with those of `BulkLoad`, about 14 % of a bulk
    // download's puts).
    @exclusivity(unchecked) private var pending: [UInt8] = []
    @exclusivity(unchecked) private var written: UInt64 = 0
    @exclusivity(unchecked) private var leaf: BlockBuilder
    @exclusivity(unchecked) private var levels: [BlockBuilder] = []
    @exclusivity(unchecked) private var levelBlockCounts: [Int] = []
    @exclusivity(unchecked) private var lastKey: [UInt8] = []
    @exclusivity(unchecked) private var info: RunInfo
    /// Hashes of the keys of the filter partition being filled (at most `BloomFilter.partitionKeys`).
    @exclusivity(unchecked) private var partitionHashes: [UInt64] = []
    /// Per written partition: its last key and its filter frame.
    @exclusivity(unchecked) private var filterIndex = BlockBuilder(isLeaf: false, capacity: 4096)
    /// The trees of the keys added, in order (`RunInfo.trees`); `treesUnlisted` once they cannot
    /// be listed (too many, or a key without a tree prefix).
    @exclusivity(unchecked) private var trees: [UInt32] = []
    @exclusivity(unchecked) private var treesUnlisted = false

    /// `expectedEntries` is no longer needed to size the filter (partitions are sized when they
    /// are cut); it reserves the partition buffer.
    init(fs: any FileSystem, directory: String, fileNumber: UInt32, keys: KeyRing, compress: Bool, blockSize: Int,
         expectedEntries: Int, acceleration: Int32 = 1) throws(EngineError) {
        partitionHashes.reserveCapacity(min(max(expectedEntries, 1), BloomFilter.partitionKeys))
        self.fs = fs
        self.fileNumber = fileNumber
        self.name = FileNames.run(fileNumber)
        self.path = directory + "/" + name
        self.blockSize = blockSize
        let header = keys.newHeader(type: .run, fileNumber: fileNumber)
        var codec = keys.codec(for: header, fileName: name, compress: compress)
        codec.acceleration = acceleration
        self.codec = codec
        file = try fs.create(path)
        pending = header.encoded()
        // Room for a chunk and the frame that crosses its end, so the buffer never doubles.
        pending.reserveCapacity(Self.writeChunk + 2 * blockSize + 4096)
        leaf = BlockBuilder(isLeaf: true, capacity: blockSize)
        info = RunInfo(fileNumber: fileNumber, fileSize: 0, entryCount: 0, tombstoneCount: 0, leafCount: 0, rawBytes: 0,
                       height: 1, minKey: [], maxKey: [], rootOffset: 0, rootLength: 0)
    }

    var entryCount: UInt64 { info.entryCount }

    /// Adds the next entry; keys must arrive strictly increasing. `value == nil` is a tombstone.
    func add(key: [UInt8], value: [UInt8]?) throws(EngineError) {
        let r: Result<Void, EngineError> = key.withUnsafeBytes { k in
            guard let value else { return Result { () throws(EngineError) in try add(key: k, value: nil) } }
            return value.withUnsafeBytes { v in Result { () throws(EngineError) in try add(key: k, value: v) } }
        }
        try r.get()
    }

    /// Borrowed form of `add` (no copies of key or value).
    func add(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) throws(EngineError) {
        if info.entryCount == 0 { info.minKey = Array(key) }
        if !treesUnlisted {
            if let t = RunInfo.treePrefix(key) {
                if trees.last != t {
                    if trees.count == RunInfo.maxListedTrees { treesUnlisted = true } else { trees.append(t) }
                }
            } else {
                treesUnlisted = true
            }
        }
        info.entryCount += 1
        info.rawBytes += UInt64(key.count + (value?.count ?? 0))
        if value == nil { info.tombstoneCount += 1 }
        partitionHashes.append(BloomFilter.hash(key))
        leaf.addLeaf(key: key, value: value)
        if partitionHashes.count >= BloomFilter.partitionKeys { try flushFilterPartition(lastKey: Array(key)) }
        if leaf.estimatedSize >= blockSize { try flushLeaf() }
    }

    /// Writes the filter of the keys added since the last partition; `lastKey` is the last of them.
    private func flushFilterPartition(lastKey: [UInt8]) throws(EngineError) {
        guard !partitionHashes.isEmpty else { return }
        let filter = BloomFilter(hashes: partitionHashes)
        partitionHashes.removeAll(keepingCapacity: true)
        let (offset, length) = try emit(kind: .runFilterPartition, raw: filter.encoded)
        filterIndex.addIndex(lastKey: lastKey, childOffset: offset, childLength: length)
    }

    private func emit(kind: FrameKind, raw: [UInt8]) throws(EngineError) -> (UInt64, Int) {
        let offset = written + UInt64(pending.count)
        let before = pending.count
        raw.withUnsafeBytes { codec.encode(kind: kind, raw: $0, offset: offset, into: &pending) }
        let length = pending.count - before
        if pending.count >= Self.writeChunk { try flushPending() }
        return (offset, length)
    }

    /// Frames are written to the file in chunks of about this size. A flush and a compaction
    /// can write at once, each holding one chunk; 256 KiB writes cost no more than 1 MiB ones
    /// (a flush of 8 MiB is a few dozen writes) and hold a quarter of the memory.
    static let writeChunk = 256 << 10

    private func flushPending() throws(EngineError) {
        guard !pending.isEmpty else { return }
        try file.write(pending, at: written)
        written += UInt64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }

    private func flushLeaf() throws(EngineError) {
        guard !leaf.isEmpty else { return }
        lastKey = leaf.lastKey
        let (offset, length) = try emit(kind: .runLeaf, raw: leaf.finish())
        info.leafCount += 1
        try addToIndex(level: 0, lastKey: lastKey, offset: offset, length: length)
    }

    private func addToIndex(level: Int, lastKey: [UInt8], offset: UInt64, length: Int) throws(EngineError) {
        if levels.count <= level {
            levels.append(BlockBuilder(isLeaf: false, capacity: blockSize))
            levelBlockCounts.append(0)
        }
        levels[level].addIndex(lastKey: lastKey, childOffset: offset, childLength: length)
        if levels[level].estimatedSize >= blockSize { try flushIndex(level: level, lastKey: lastKey) }
    }

    private func flushIndex(level: Int, lastKey: [UInt8]) throws(EngineError) {
        guard !levels[level].isEmpty else { return }
        let (offset, length) = try emit(kind: .runIndex, raw: levels[level].finish())
        levelBlockCounts[level] += 1
        try addToIndex(level: level + 1, lastKey: lastKey, offset: offset, length: length)
    }

    /// Writes the index levels, footer and trailer, syncs, and returns the run's summary.
    func finish() throws(EngineError) -> RunInfo {
        try flushLeaf()
        info.maxKey = lastKey
        if info.leafCount == 1 && levels.count == 1 {
            // A single leaf is its own root.
            let leafOnly = levels[0].finish()
            var r = ByteReader(leafOnly, context: "index", file: name)
            _ = try r.lengthPrefixed()
            info.rootOffset = try r.u64()
            info.rootLength = Int(try r.u32())
            info.height = 1
        } else {
            var level = 0
            while level < levels.count {
                let isTop = level == levels.count - 1
                if isTop && levelBlockCounts[level] == 0 {
                    let (offset, length) = try emit(kind: .runIndex, raw: levels[level].finish())
                    info.rootOffset = offset
                    info.rootLength = length
                    info.height = level + 2
                    break
                }
                try flushIndex(level: level, lastKey: lastKey)
                level += 1
            }
        }
        try flushFilterPartition(lastKey: lastKey)
        info.trees = treesUnlisted ? [] : trees
        if !filterIndex.isEmpty {
            (info.filterOffset, info.filterLength) = try emit(kind: .runFilterIndex, raw: filterIndex.finish())
        }
        let (footerOffset, footerLength) = try emit(kind: .runFooter, raw: info.encodeFooter())
        var trailer = ByteWriter(capacity: Format.runTrailerSize)
        trailer.u64(footerOffset)
        trailer.u32(UInt32(footerLength))
        trailer.u32(Format.runTrailerMagic)
        pending.append(contentsOf: trailer.bytes)
        try flushPending()
        try file.sync()
        info.fileSize = written
        file.close()
        return info
    }

    func abandon() {
        file.close()
        try? fs.remove(path)
    }
}

/// A run's filter once read: a version 1 run's whole filter, or a version 2 run's filter index.
final class LoadedFilter: Sendable {
    let whole: BloomFilter?
    let partitions: Block?
    /// A small run's partitions, all read with the index and kept back to back (partition i is
    /// `bits[starts[i]..<starts[i + 1]]`): a probe then touches the bits it tests and nothing
    /// else, where one through the block cache touched the cache's table, slot and block too.
    let bits: [UInt8]
    let starts: [Int]
    /// Partitions through the block cache for now, to be read and pinned after a few probes
    /// (`RunFile.probesBeforePinning`).
    let pinnable: Bool
    init(whole: BloomFilter?, partitions: Block?, bits: [UInt8] = [], starts: [Int] = [], pinnable: Bool = false) {
        self.whole = whole
        self.partitions = partitions
        self.bits = bits
        self.starts = starts
        self.pinnable = pinnable
    }
    var pinnedBytes: Int { (whole?.byteSize ?? 0) + (partitions?.memoryCost ?? 0) + bits.count + starts.count * 8 }
}

/// An open, immutable run file.
final class RunFile: @unchecked Sendable {
    // Immutable after open; `EngineFile.read` is thread-safe (pread).
    let info: RunInfo
    let name: String
    let number: UInt32
    private let file: any EngineFile
    private let codec: FrameCodec
    private let cache: BlockCache
    /// The file's format version: 1 = one whole-run filter frame, 2 = partitioned filters.
    private let version: UInt16
    /// The run's filter (a version 1 run's whole filter, or a version 2 run's filter index),
    /// read on the first point read that needs it and pinned while the run is open; a version 2
    /// run's partitions go through the block cache. Opening a run reads nothing of it.
    /// Held as the bit pattern of an unmanaged reference that the run retains once (released in
    /// deinit), so a probe costs one atomic load and no reference counting: an
    /// `AtomicLazyReference` retained and released the filter on every probe, 4 % of a point read
    /// on a store with three runs. 0 until loaded.
    private let loadedFilter = Atomic<UInt>(0)
    /// A small run's filter (partitions within `pinFilterBytes`) answers its first
    /// `probesBeforePinning` probes through the block cache, a partition at a time, and only then
    /// reads all its partitions and pins them: the first query after an open reads one partition
    /// (about 4 KiB) of each run it probes, where reading each run's whole filter (up to
    /// 256 KiB, every frame decrypted) had made the first query after a 1M-entity download 4.3 ms.
    private let filterProbes = Atomic<Int>(0)
    static let probesBeforePinning = 64
    /// The filter that the pinned one replaced (same bit pattern form as `loadedFilter`): a probe
    /// may still be using it, so it is released in deinit.
    private let retiredFilter = Atomic<UInt>(0)
    /// Index blocks stay in memory once read (they are about 0.2% of the data and on every
    /// lookup's path), so a small block cache holds only leaves.
    private let indexBlocks = Mutex(PinnedBlocks())
    /// Index blocks by file offset (the cache's one-multiply table, not a SipHash `Dictionary`).
    struct PinnedBlocks: ~Copyable {
        var slots = SlotIndex<Int>()
        var blocks: [Block] = []
        func get(_ offset: UInt64) -> Block? { slots.find(offset).map { blocks[$0] } }
        /// False when a block is already there for this offset (another reader loaded it too).
        mutating func add(_ offset: UInt64, _ block: Block) -> Bool {
            guard slots.find(offset) == nil else { return false }
            slots.insert(offset, blocks.count)
            blocks.append(block)
            return true
        }
        var memoryCost: Int { blocks.reduce(0) { $0 + $1.memoryCost } }
    }
    private let pinFilterBytes: Int
    /// `open`'s read of the file's end, until `releaseTailIfDone`.
    private let tail: Mutex<Tail?>
    // Copies of hot `info` fields, so lookups do not copy the struct.
    private let minKey: [UInt8], maxKey: [UInt8], height: Int, fileSize: UInt64, isEmpty: Bool
    /// `info.trees` (empty: not listed, every tree in the key range may be there).
    private let trees: [UInt32]

    private init(info: RunInfo, name: String, file: any EngineFile, codec: FrameCodec, cache: BlockCache, version: UInt16,
                 pinFilterBytes: Int, tail: Tail? = nil) {
        self.pinFilterBytes = pinFilterBytes
        self.tail = Mutex(tail)
        if let tail { cache.pin(tail.bytes.count) }
        self.info = info
        self.name = name
        self.number = info.fileNumber
        self.file = file
        self.codec = codec
        self.cache = cache
        self.version = version
        minKey = info.minKey
        maxKey = info.maxKey
        height = info.height
        fileSize = info.fileSize
        isEmpty = info.entryCount == 0
        trees = info.trees
    }

    /// False when the run's tree list says it holds no key of `key`'s tree.
    @inline(__always) private func mayHoldTree(of key: [UInt8]) -> Bool {
        guard !trees.isEmpty, let t = RunInfo.treePrefix(key) else { return true }
        return holdsTree(in: t...t)
    }

    /// Whether a listed tree lies in `range` (true when the trees are not listed).
    private func holdsTree(in range: ClosedRange<UInt32>) -> Bool {
        if trees.isEmpty { return true }
        // The first listed tree ≥ range.lowerBound.
        var lo = 0, hi = trees.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if trees[mid] < range.lowerBound { lo = mid + 1 } else { hi = mid }
        }
        return lo < trees.count && trees[lo] <= range.upperBound
    }

    deinit {
        var filterBytes = 0
        if let raw = UnsafeRawPointer(bitPattern: loadedFilter.load(ordering: .acquiring)) {
            let filter = Unmanaged<LoadedFilter>.fromOpaque(raw)
            filterBytes = filter._withUnsafeGuaranteedRef { $0.pinnedBytes }
            filter.release()
        }
        if let raw = UnsafeRawPointer(bitPattern: retiredFilter.load(ordering: .acquiring)) {
            Unmanaged<LoadedFilter>.fromOpaque(raw).release()
        }
        cache.unpin(filterBytes + indexBlocks.withLock { $0.memoryCost } + (tail.withLock { $0 }?.bytes.count ?? 0))
        file.close()
    }

    /// How much of a run's end `open` reads at once: the trailer, the footer, and behind them
    /// the filter index and often the top index block, which the first lookup of the run reads
    /// next (a run this small is read whole, header included). Reading the header, the trailer and
    /// the footer apart, then the filter index and the root on the first lookup, took four
    /// `pread`s and an `fstat` more per run: with 15 runs, about 75 of the 130 system calls of
    /// reopening a 100k-entity store and reading one entity (perf trace).
    static let openReadBytes = 4 << 10

    /// `pinFilterBytes`: the largest filter (partitions on disk) kept whole (`pinnedFilterLimit`).
    static func open(fs: any FileSystem, directory: String, fileNumber: UInt32, keys: KeyRing, cache: BlockCache,
                     pinFilterBytes: Int = pinnedFilterLimit) throws(EngineError) -> RunFile {
        let name = FileNames.run(fileNumber)
        let file = try fs.open(directory + "/" + name, writable: false)
        let size = try file.sizeAtOpen()
        guard size >= UInt64(Format.fileHeaderSize + Format.runTrailerSize) else {
            throw .corrupt("run file truncated (\(size) bytes)", file: name, offset: 0)
        }
        let tailLength = Int(min(size, UInt64(openReadBytes)))
        let tail = Tail(offset: size - UInt64(tailLength), bytes: try file.read(at: size - UInt64(tailLength), count: tailLength))
        guard tail.bytes.count == tailLength else {
            throw .corrupt("run file ends at \(tail.offset + UInt64(tail.bytes.count)), before its size \(size)", file: name, offset: tail.offset)
        }
        func read(at offset: UInt64, count: Int) throws(EngineError) -> [UInt8] {
            try tail.read(at: offset, count: count, else: file)
        }
        let header = try FileHeader.decode(try read(at: 0, count: Format.fileHeaderSize), expected: .run, file: name)
        guard header.fileNumber == fileNumber else {
            throw .corrupt("run file header names file \(header.fileNumber)", file: name, offset: 12)
        }
        let codec = try keys.codecForExisting(header, fileName: name)
        let trailerOffset = size - UInt64(Format.runTrailerSize)
        let trailer = try read(at: trailerOffset, count: Format.runTrailerSize)
        var r = ByteReader(trailer, context: "run trailer", file: name, baseOffset: trailerOffset)
        let footerOffset = try r.u64()
        let footerLength = Int(try r.u32())
        guard try r.u32() == Format.runTrailerMagic, footerOffset + UInt64(footerLength) <= trailerOffset,
              footerLength <= Format.maxFramePayload + Format.frameHeaderSize else {
            throw .corrupt("run trailer is damaged", file: name, offset: trailerOffset)
        }
        let frame = try read(at: footerOffset, count: footerLength)
        let (_, raw) = try codec.decode(frame, offset: footerOffset, expecting: [FrameKind.runFooter.rawValue])
        let info = try RunInfo.decodeFooter(raw, fileNumber: fileNumber, fileSize: size, file: name)
        return RunFile(info: info, name: name, file: file, codec: codec, cache: cache, version: header.version,
                       pinFilterBytes: pinFilterBytes, tail: tail)
    }

    /// The last bytes of the file as `open` read them, until the filter index and the root
    /// block (which lie there, in the common case) have been read from them; counted against
    /// the block cache's budget (`BlockCache.pin`) while held.
    struct Tail: Sendable {
        let offset: UInt64
        let bytes: [UInt8]
        func slice(at start: UInt64, count: Int) -> [UInt8]? {
            guard start >= offset, count >= 0, start - offset <= UInt64(bytes.count),
                  UInt64(count) <= UInt64(bytes.count) - (start - offset) else { return nil }
            let from = Int(start - offset)
            return Array(bytes[from..<(from + count)])
        }

        /// The bytes from these when they lie in them, else from `file`.
        func read(at start: UInt64, count: Int, else file: any EngineFile) throws(EngineError) -> [UInt8] {
            if let bytes = slice(at: start, count: count) { return bytes }
            return try file.read(at: start, count: count)
        }
    }

    /// Reads `count` bytes at `offset`, from the tail that `open` read when they lie in it.
    private func read(at offset: UInt64, count: Int) throws(EngineError) -> [UInt8] {
        guard let tail = tail.withLock({ $0 }) else { return try file.read(at: offset, count: count) }
        return try tail.read(at: offset, count: count, else: file)
    }

    /// Drops the tail once the blocks that `open` read it for are pinned: the filter index (or
    /// the run has none) and the root block.
    private func releaseTailIfDone() {
        guard loadedFilter.load(ordering: .acquiring) != 0 || info.filterLength == 0,
              indexBlocks.withLock({ $0.get(info.rootOffset) != nil }) || height == 1 else { return }
        let released = tail.withLock { t -> Int in
            defer { t = nil }
            return t?.bytes.count ?? 0
        }
        if released > 0 { cache.unpin(released) }
    }

    /// The run's filter, read on first use (nil: the run has none).
    /// Unretained: valid while this run is alive (the run holds the one reference).
    private func filter() throws(EngineError) -> Unmanaged<LoadedFilter>? {
        guard info.filterLength > 0 else { return nil }
        if let raw = UnsafeRawPointer(bitPattern: loadedFilter.load(ordering: .acquiring)) {
            return Unmanaged.fromOpaque(raw)
        }
        let offset = info.filterOffset
        let frame = try read(at: offset, count: info.filterLength)
        let loaded: LoadedFilter
        if version < 2 {
            let (_, bits) = try codec.decode(frame, offset: offset, expecting: [FrameKind.runFilter.rawValue])
            guard let whole = BloomFilter(encoded: bits) else {
                throw .corrupt("run filter has an invalid size", file: name, offset: offset)
            }
            loaded = LoadedFilter(whole: whole, partitions: nil)
        } else {
            let (_, raw) = try codec.decode(frame, offset: offset, expecting: [FrameKind.runFilterIndex.rawValue])
            let index = try Block(data: raw, isLeaf: false, file: name, offset: offset, verifyOrder: !codec.isAuthenticated,
                                  arena: cache.arena)
            var total = 0
            for i in 0..<index.count { total += index.child(i).length }
            loaded = LoadedFilter(whole: nil, partitions: index, pinnable: total <= pinFilterBytes)
        }
        // Another reader may have loaded it at the same time: only the stored one is kept and counted.
        let candidate = Unmanaged.passRetained(loaded)
        let (exchanged, original) = loadedFilter.compareExchange(
            expected: 0, desired: UInt(bitPattern: candidate.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged {
            cache.pin(loaded.pinnedBytes)
            releaseTailIfDone()
            return candidate
        }
        candidate.release()
        return UnsafeRawPointer(bitPattern: original).map { Unmanaged.fromOpaque($0) }
    }

    /// A run whose filter partitions take at most this many bytes on disk (about 200,000 keys)
    /// keeps them all in memory with the filter index (`LoadedFilter.bits`, counted as pinned)
    /// once it served `probesBeforePinning` probes; a larger run's partitions always go through
    /// the block cache.
    static let pinnedFilterLimit = 256 << 10

    /// Reads every partition of the cache-mode filter `current` and publishes them pinned in its
    /// place. A read error leaves the filter as it is (the probes that read partitions report it).
    private func pinPartitions(_ current: LoadedFilter) {
        guard let index = current.partitions, current.starts.isEmpty else { return }
        var bits: [UInt8] = []
        var starts = [0]
        starts.reserveCapacity(index.count + 1)
        do throws(EngineError) {
            for i in 0..<index.count {
                let pointer = index.child(i)
                bits += try readFilterPartition(at: pointer.offset, length: pointer.length)
                starts.append(bits.count)
            }
        } catch {
            return
        }
        let pinned = LoadedFilter(whole: nil, partitions: index, bits: bits, starts: starts)
        let candidate = Unmanaged.passRetained(pinned)
        let old = Unmanaged.passUnretained(current)
        let (exchanged, _) = loadedFilter.compareExchange(
            expected: UInt(bitPattern: old.toOpaque()), desired: UInt(bitPattern: candidate.toOpaque()), ordering: .acquiringAndReleasing)
        guard exchanged else {
            candidate.release()
            return
        }
        // The run's one reference to the old filter moves to `retiredFilter` (only one probe
        // reaches the count, so only one swap happens).
        retiredFilter.store(UInt(bitPattern: old.toOpaque()), ordering: .releasing)
        cache.pin(pinned.pinnedBytes)
        cache.unpin(current.pinnedBytes)
    }

    /// One partition's filter bits, read from the file and checked.
    private func readFilterPartition(at offset: UInt64, length: Int) throws(EngineError) -> [UInt8] {
        guard length >= Format.frameHeaderSize, offset + UInt64(length) <= fileSize else {
            throw .corrupt("filter partition pointer out of range", file: name, offset: offset)
        }
        let frame = try read(at: offset, count: length)
        let (_, bits) = try codec.decode(frame, offset: offset, expecting: [FrameKind.runFilterPartition.rawValue])
        guard bits.count >= 64, bits.count % 64 == 0 else {
            throw .corrupt("filter partition has an invalid size (\(bits.count) bytes)", file: name, offset: offset)
        }
        return bits
    }

    /// One partition's filter bits, through the block cache.
    private func filterPartition(at offset: UInt64, length: Int, fillCache: Bool) throws(EngineError) -> Block {
        let key = BlockCache.key(file: number, offset: offset)
        if let b = cache.get(key) { return b }
        let block = Block(filterBits: try readFilterPartition(at: offset, length: length), arena: cache.arena)
        if fillCache { cache.insert(key, block) }
        return block
    }

    /// Loads the block at a child pointer: index blocks from the run's pinned set, leaves
    /// through the shared cache (`fillCache` false: a leaf read from the file is not added to
    /// it, so a compaction's sequential reads do not evict what readers use).
    /// `pointIndex`: a leaf read from the file gets its point index (`Block.find`).
    func block(at offset: UInt64, length: Int, leaf: Bool, fillCache: Bool = true, pointIndex: Bool = false) throws(EngineError) -> Block {
        if !leaf, let b = indexBlocks.withLock({ $0.get(offset) }) { return b }
        let key = BlockCache.key(file: number, offset: offset)
        if leaf, let b = cache.get(key) { return b }
        guard length >= Format.frameHeaderSize, offset + UInt64(length) <= fileSize else {
            throw .corrupt("block pointer out of range", file: name, offset: offset)
        }
        let frame = try read(at: offset, count: length)
        let block = try Block.decoding(frame: frame, codec: codec, offset: offset, kind: leaf ? .runLeaf : .runIndex, isLeaf: leaf,
                                       file: name, verifyOrder: !codec.isAuthenticated, pointIndex: pointIndex, arena: cache.arena)
        if leaf {
            if fillCache { cache.insert(key, block) }
        } else {
            let added = indexBlocks.withLock { $0.add(offset, block) }
            if added {
                cache.pin(block.memoryCost)
                if offset == info.rootOffset { releaseTailIfDone() }
            }
        }
        return block
    }

    var root: (offset: UInt64, length: Int) { (info.rootOffset, info.rootLength) }

    /// False when no key of the run lies in the range a cursor seeks: going forward, keys at or
    /// after `target` and before `end`; going backward, keys at or before `target` and at or
    /// after `end` (nil `end`: no bound on that side).
    func mayHoldKeys(from target: [UInt8], to end: [UInt8]?, forward: Bool) -> Bool {
        if isEmpty { return false }
        if forward {
            if compareBytes(maxKey, target) < 0 { return false }
            if let end, compareBytes(minKey, end) >= 0 { return false }
        } else {
            if compareBytes(minKey, target) > 0 { return false }
            if let end, compareBytes(maxKey, end) < 0 { return false }
        }
        if trees.isEmpty { return true }
        // The trees the range can reach: from the tree of its lower bound to that of its upper
        // bound (a bound shorter than a tree prefix leaves that side open). Going forward the
        // end is exclusive: an end that is a tree's bare prefix (a whole tree's range ends there)
        // reaches only the trees before it.
        let low = forward ? RunInfo.treePrefix(target) : end.flatMap { RunInfo.treePrefix($0) }
        var high = forward ? end.flatMap { RunInfo.treePrefix($0) } : RunInfo.treePrefix(target)
        if forward, let end, end.count == 4, let h = high {
            guard h > 0 else { return false }
            high = h - 1
        }
        let from = low ?? 0, to = high ?? UInt32.max
        guard from <= to else { return false }
        return holdsTree(in: from...to)
    }

    /// False when the run certainly does not hold `key` (outside its key range, or its filter
    /// says no); reads the filter on first use (`fillCache: false`: a partition read from the
    /// file does not enter the block cache).
    func mayContain(_ key: [UInt8], fillCache: Bool = true) throws(EngineError) -> Bool {
        guard !isEmpty, compareBytes(key, minKey) >= 0, compareBytes(key, maxKey) <= 0, mayHoldTree(of: key) else { return false }
        return try filterMayContain(key, hash: key.withUnsafeBytes { BloomFilter.hash($0) }, fillCache: fillCache)
    }

    /// The filter's answer for a key inside the run's key range.
    private func filterMayContain(_ key: [UInt8], hash h: UInt64, fillCache: Bool = true) throws(EngineError) -> Bool {
        guard let loaded = try filter() else { return true }
        let answer = loaded._withUnsafeGuaranteedRef { filter -> Result<Bool, EngineError> in
            if let whole = filter.whole { return .success(whole.mayContain(hash: h)) }
            guard let index = filter.partitions else { return .success(true) }
            let i = index.lowerBound(key)
            // The last partition ends at the run's max key, so a key in range always has one.
            guard i < index.count else {
                return .failure(.corrupt("filter index ends before the run's last key", file: name, offset: info.filterOffset))
            }
            if !filter.starts.isEmpty {
                return .success(filter.bits.withUnsafeBytes { all in
                    BloomFilter.mayContain(hash: h, encoded: UnsafeRawBufferPointer(rebasing: all[filter.starts[i]..<filter.starts[i + 1]]))
                })
            }
            let pointer = index.child(i)
            if filter.pinnable, filterProbes.wrappingAdd(1, ordering: .relaxed).newValue == Self.probesBeforePinning {
                pinPartitions(filter)
            }
            return Result { () throws(EngineError) -> Bool in
                let bits = try filterPartition(at: pointer.offset, length: pointer.length, fillCache: fillCache)
                return BloomFilter.mayContain(hash: h, encoded: bits.bytes)
            }
        }
        return try answer.get()
    }

    /// The newest entry for `key` in this run, its value copied (`entry` without the copy).
    func get(_ key: [UInt8], filterFirst: Bool = false) throws(EngineError) -> MemTable.Lookup {
        guard let (leaf, i) = try entry(key, hash: key.withUnsafeBytes { BloomFilter.hash($0) }, filterFirst: filterFirst) else {
            return .absent
        }
        if let v = leaf.value(i) { return .value(v) }
        return .tombstone
    }

    /// The newest entry for `key` in this run: the leaf holding it and its index there (a value
    /// or a tombstone), nil when the run does not hold the key. The value is read in the leaf
    /// (`Block.value`, `Block.withValue`), not copied here. `hash`: `BloomFilter.hash` of `key`,
    /// computed once for all the runs a read passes (the filters and the leaf's point index use
    /// the same hash). `filterFirst`: ask the filter before anything else (for runs that newer
    /// data shadows, which most point reads pass through without a hit: their filter bits are
    /// about 1/30 of their decoded leaves, so probes stay in the CPU caches while the leaves do
    /// not). Otherwise (the oldest run, which holds most keys) the filter is asked only before a
    /// leaf would be read from the file: a cached leaf answers as cheaply as a filter probe, so
    /// asking the filter first cost every warm read of a key the run holds a second cache lookup
    /// for nothing (8 of the 9 scattered loads a filter probe makes). The index blocks on the way
    /// down are pinned, so the descent itself reads nothing.
    /// `fillCache` false: a leaf read from the file is decoded without its point index (it is
    /// searched once) and not added to the cache.
    func entry(_ key: [UInt8], hash: UInt64, filterFirst: Bool = false, fillCache: Bool = true) throws(EngineError) -> (Block, Int)? {
        guard !isEmpty, compareBytes(key, minKey) >= 0, compareBytes(key, maxKey) <= 0, mayHoldTree(of: key) else { return nil }
        if filterFirst, try !filterMayContain(key, hash: hash) { return nil }
        var pointer = root
        var level = height - 1
        while level > 0 {
            let b = try block(at: pointer.offset, length: pointer.length, leaf: false)
            let i = b.lowerBound(key)
            guard i < b.count else { return nil }
            pointer = b.child(i)
            level -= 1
        }
        let leaf: Block
        if let cached = cache.get(BlockCache.key(file: number, offset: pointer.offset)) {
            leaf = cached
        } else {
            if !filterFirst, try !filterMayContain(key, hash: hash) { return nil }
            leaf = try block(at: pointer.offset, length: pointer.length, leaf: true, fillCache: fillCache, pointIndex: fillCache)
        }
        guard let i = leaf.find(key, hash: hash) else { return nil }
        return (leaf, i)
    }
}

/// Bidirectional cursor over a run (a class, so stepping never copies its path).
///
/// The current leaf is kept apart from the index levels: held strongly by `leafOwner` and used
/// through `leaf` (unmanaged), so a step inside a leaf and a key or value access do no
/// reference counting. (The cursor used to copy a `(Block, Int)` path entry for every key,
/// value and step, which retained and released the block each time: an index `$count` spent
/// about a third of its time there.)
final class RunCursor {
    let run: RunFile
    /// Whether leaves this cursor reads from the file enter the block cache.
    let fillCache: Bool
    private let height: Int
    /// Index levels from the root (index 0) down to the leaf's parent. One cursor is used by one
    /// thread at a time.
    @exclusivity(unchecked) private var path: [(block: Block, index: Int)] = []
    @exclusivity(unchecked) private var leafOwner: Block
    @exclusivity(unchecked) private var leaf: Unmanaged<Block>
    /// Entry of `leaf`; `leafCount` is 0 when the cursor is not positioned.
    @exclusivity(unchecked) private var position = 0
    @exclusivity(unchecked) private var leafCount = 0

    /// The leaf of a cursor that is not positioned (no entries).
    private static let noLeaf = Block(filterBits: [])

    init(run: RunFile, fillCache: Bool = true) {
        self.run = run
        self.fillCache = fillCache
        height = run.info.height
        leafOwner = Self.noLeaf
        leaf = .passUnretained(Self.noLeaf)
    }

    @inline(__always) private func setLeaf(_ block: Block, _ i: Int) {
        leafOwner = block
        leaf = .passUnretained(block)
        position = i
        leafCount = block.count
    }

    private func reset() {
        path.removeAll(keepingCapacity: true)
        setLeaf(Self.noLeaf, 0)
    }

    func withKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let i = position
        return try leaf._withUnsafeGuaranteedRef { block in
            try body(UnsafeRawBufferPointer(rebasing: block.bytes[block.keyRange(i)]))
        }
    }

    func withValue<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let i = position
        return try leaf._withUnsafeGuaranteedRef { block in
            guard let range = block.valueRange(i) else { return try body(nil) }
            return try body(UnsafeRawBufferPointer(rebasing: block.bytes[range]))
        }
    }

    /// Key and value (nil: tombstone) of the current entry in one call.
    func withEntry<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let i = position
        return try leaf._withUnsafeGuaranteedRef { block in
            try block.withBytes { all in
                let key = UnsafeRawBufferPointer(rebasing: all[block.keyRange(i)])
                guard let range = block.valueRange(i) else { return try body(key, nil) }
                return try body(key, UnsafeRawBufferPointer(rebasing: all[range]))
            }
        }
    }

    var isTombstone: Bool {
        let i = position
        return leaf._withUnsafeGuaranteedRef { $0.isTombstone(i) }
    }

    var isValid: Bool { position >= 0 && position < leafCount }

    var key: [UInt8] { leafOwner.key(position) }
    var value: [UInt8]? { leafOwner.value(position) }

    private func load(_ pointer: (offset: UInt64, length: Int), depth: Int) throws(EngineError) -> Block {
        try run.block(at: pointer.offset, length: pointer.length, leaf: depth == height - 1, fillCache: fillCache)
    }

    func seek(_ key: [UInt8]) throws(EngineError) {
        // A target strictly inside the leaf the cursor stands on (after its first entry, at or
        // before its last) has its lower bound in that leaf: no descent, and the index path
        // above the leaf stays right. Elsewhere, or at the leaf's first entry (an earlier leaf
        // may end just below it), the search starts from the root.
        if leafCount > 0 {
            let i = leaf._withUnsafeGuaranteedRef { $0.lowerBound(key) }
            if i > 0 && i < leafCount {
                position = i
                return
            }
        }
        reset()
        guard run.info.entryCount > 0 else { return }
        var pointer = run.root
        for depth in 0..<height {
            let b = try load(pointer, depth: depth)
            let i = b.lowerBound(key)
            if i >= b.count { reset(); return }
            if depth < height - 1 {
                path.append((b, i))
                pointer = b.child(i)
            } else {
                setLeaf(b, i)
            }
        }
    }

    func seekToFirst() throws(EngineError) {
        try seek(run.info.minKey)
    }

    func seekToLast() throws(EngineError) {
        reset()
        guard run.info.entryCount > 0 else { return }
        var pointer = run.root
        for depth in 0..<height {
            let b = try load(pointer, depth: depth)
            if depth < height - 1 {
                path.append((b, b.count - 1))
                pointer = b.child(b.count - 1)
            } else {
                setLeaf(b, b.count - 1)
            }
        }
    }

    /// Last entry ≤ key.
    func seekForPrev(_ key: [UInt8]) throws(EngineError) {
        try seek(key)
        if !isValid { try seekToLast(); return }
        if withKey({ k in key.withUnsafeBytes { compareBytes(k, $0) } }) > 0 { try previous() }
    }

    func next() throws(EngineError) {
        guard leafCount > 0 else { return }
        position += 1
        if position < leafCount { return }
        try leaveLeaf(1)
    }

    func previous() throws(EngineError) {
        guard leafCount > 0 else { return }
        position -= 1
        if position >= 0 { return }
        try leaveLeaf(-1)
    }

    /// The step fell off the current leaf: climb the index levels while the position falls off
    /// their blocks too, then descend to the leaf along the first (forward) or last (backward)
    /// children. Past either end the cursor is no longer positioned.
    private func leaveLeaf(_ delta: Int) throws(EngineError) {
        var depth = path.count - 1
        while true {
            if depth < 0 { reset(); return }
            path[depth].index += delta
            if path[depth].index >= 0 && path[depth].index < path[depth].block.count { break }
            depth -= 1
        }
        while depth < path.count - 1 {
            let b = try load(path[depth].block.child(path[depth].index), depth: depth + 1)
            path[depth + 1] = (b, delta > 0 ? 0 : b.count - 1)
            depth += 1
        }
        let b = try load(path[depth].block.child(path[depth].index), depth: height - 1)
        setLeaf(b, delta > 0 ? 0 : b.count - 1)
    }
}
