// Every system call of the engine goes through this file: the `FileSystem` seam is where
// fault injection (tests) and tracing hook in. Nothing else in the engine imports Glibc/Darwin.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

@inline(__always)
func memcmpShim(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Int32 {
    memcmp(a, b, n)
}

@inline(__always)
func memcpyShim(_ dst: UnsafeMutableRawPointer, _ src: UnsafeRawPointer, _ n: Int) {
    memcpy(dst, src, n)
}

private func sysOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    path.withCString { open($0, flags, mode) }
}

private func sysClose(_ fd: Int32) { _ = close(fd) }

private func sysRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }

/// An open file. Reads are positional; writes append at `offset` (the engine never writes a
/// byte it wrote before).
public protocol EngineFile: AnyObject, Sendable {
    /// Reads exactly `count` bytes at `offset`, or fewer at end of file.
    func read(at offset: UInt64, count: Int) throws(EngineError) -> [UInt8]
    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: UInt64) throws(EngineError)
    /// Flushes data (and the metadata needed to read it) to stable storage.
    func sync() throws(EngineError)
    func size() throws(EngineError) -> UInt64
    /// The size when the file was opened, for a file that nothing writes (a run): the open
    /// already asked for it, so this asks the system nothing more. Defaults to `size()`.
    func sizeAtOpen() throws(EngineError) -> UInt64
    func truncate(to size: UInt64) throws(EngineError)
    func close()
    /// Reserves the file's blocks up to `size` (the file reads as zeros past what was written),
    /// so that writes below it do not grow the file; false where that is not done (the caller
    /// then simply appends).
    func preallocate(to size: UInt64) -> Bool
}

extension EngineFile {
    public func preallocate(to size: UInt64) -> Bool { false }
    public func sizeAtOpen() throws(EngineError) -> UInt64 { try size() }
}

/// The file-system seam. `PosixFileSystem` is the real one; tests wrap it to inject faults.
public protocol FileSystem: Sendable {
    /// Opens an existing file for reading (and writing when `writable`).
    func open(_ path: String, writable: Bool) throws(EngineError) -> any EngineFile
    /// Creates a new file with mode 0600; fails if it exists.
    func create(_ path: String) throws(EngineError) -> any EngineFile
    func remove(_ path: String) throws(EngineError)
    func rename(_ from: String, to: String) throws(EngineError)
    /// Names in a directory (not `.`/`..`).
    func list(_ directory: String) throws(EngineError) -> [String]
    /// Creates a directory (mode 0700) and any missing parents.
    func makeDirectory(_ path: String) throws(EngineError)
    func syncDirectory(_ path: String) throws(EngineError)
    /// nil if nothing is at `path`.
    func kind(of path: String) -> FileKind?
    /// Takes an exclusive, non-blocking lock; the returned token releases it when closed.
    func lock(_ path: String) throws(EngineError) -> any EngineFile
}

public enum FileKind: Sendable { case file, directory, other }

private func errnoText(_ code: Int32) -> String {
    if let s = strerror(code) { return String(cString: s) }
    return "errno \(code)"
}

func posixError(_ what: String, _ path: String, _ code: Int32) -> EngineError {
    EngineError(.ioError, "\(what) failed: \(errnoText(code))", file: path, errno: code)
}

public struct PosixFileSystem: FileSystem {
    public init() {}

    public func open(_ path: String, writable: Bool) throws(EngineError) -> any EngineFile {
        let fd = sysOpen(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC)
        if fd < 0 {
            let e = errno
            if e == EISDIR { throw EngineError(.notAStore, "expected a file, found a directory", file: path) }
            throw posixError("open", path, e)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            sysClose(fd)
            throw posixError("fstat", path, e)
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            sysClose(fd)
            throw EngineError(.notAStore, "expected a file, found a directory", file: path)
        }
        return PosixFile(fd: fd, path: path, openedSize: UInt64(st.st_size))
    }

    public func create(_ path: String) throws(EngineError) -> any EngineFile {
        let fd = sysOpen(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 { throw posixError("create", path, errno) }
        return PosixFile(fd: fd, path: path)
    }

    public func remove(_ path: String) throws(EngineError) {
        if unlink(path) != 0 && errno != ENOENT { throw posixError("unlink", path, errno) }
    }

    public func rename(_ from: String, to: String) throws(EngineError) {
        if sysRename(from, to) != 0 { throw posixError("rename to \(to)", from, errno) }
    }

    public func list(_ directory: String) throws(EngineError) -> [String] {
        guard let dir = opendir(directory) else { throw posixError("opendir", directory, errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func makeDirectory(_ path: String) throws(EngineError) {
        if kind(of: path) == .directory { return }
        var parent = path
        while parent.hasSuffix("/") && parent.count > 1 { parent.removeLast() }
        if let slash = parent.lastIndex(of: "/"), slash != parent.startIndex {
            let up = String(parent[..<slash])
            if kind(of: up) == nil { try makeDirectory(up) }
        }
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw posixError("mkdir", path, errno) }
    }

    public func syncDirectory(_ path: String) throws(EngineError) {
        let fd = sysOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw posixError("open directory", path, errno) }
        defer { sysClose(fd) }
        if fsync(fd) != 0 { throw posixError("fsync directory", path, errno) }
    }

    public func kind(of path: String) -> FileKind? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    public func lock(_ path: String) throws(EngineError) -> any EngineFile {
        let fd = sysOpen(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw posixError("open lock file", path, errno) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            sysClose(fd)
            if e == EWOULDBLOCK {
                throw EngineError(.storeLocked, "the store is already open for writing by another process or handle", file: path)
            }
            throw posixError("flock", path, e)
        }
        return PosixFile(fd: fd, path: path)
    }
}

final class PosixFile: EngineFile, @unchecked Sendable {
    // `fd` is written only by `close()`, which the owner calls once no one else uses the file.
    private var fd: Int32
    let path: String
    /// `st_size` from the `fstat` of `FileSystem.open` (nil for a file this process created).
    private let openedSize: UInt64?

    init(fd: Int32, path: String, openedSize: UInt64? = nil) {
        self.fd = fd
        self.path = path
        self.openedSize = openedSize
    }

    deinit { close() }

    func read(at offset: UInt64, count: Int) throws(EngineError) -> [UInt8] {
        guard count > 0 else { return [] }
        var done = 0
        let fd = self.fd
        var failure: Int32 = 0
        let result = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            while done < count {
                let n = pread(fd, base + done, count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                if n == 0 { break }
                done += n
            }
            initialized = done
        }
        if failure != 0 { throw posixError("pread", path, failure) }
        return result
    }

    func write(_ bytes: [UInt8], at offset: UInt64) throws(EngineError) {
        let fd = self.fd
        let failure: Int32 = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var done = 0
            while done < buffer.count {
                let n = pwrite(fd, base + done, buffer.count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += n
            }
            return 0
        }
        if failure != 0 { throw posixError("pwrite", path, failure) }
    }

    func sync() throws(EngineError) {
        #if os(Linux)
        if fdatasync(fd) != 0 { throw posixError("fdatasync", path, errno) }
        #else
        if fcntl(fd, F_FULLFSYNC) != 0 && fsync(fd) != 0 { throw posixError("fsync", path, errno) }
        #endif
    }

    func size() throws(EngineError) -> UInt64 {
        var st = stat()
        if fstat(fd, &st) != 0 { throw posixError("fstat", path, errno) }
        return UInt64(st.st_size)
    }

    func sizeAtOpen() throws(EngineError) -> UInt64 {
        if let openedSize { return openedSize }
        return try size()
    }

    func truncate(to size: UInt64) throws(EngineError) {
        if ftruncate(fd, off_t(size)) != 0 { throw posixError("ftruncate", path, errno) }
    }

    func preallocate(to size: UInt64) -> Bool {
        #if os(Linux)
        return posix_fallocate(fd, 0, off_t(size)) == 0
        #else
        return false
        #endif
    }

    func close() {
        if fd >= 0 {
            sysClose(fd)
            fd = -1
        }
    }
}

/// Monotonic clock in nanoseconds, for statistics only.
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Hands the allocator's free memory back to the system. glibc keeps what a flush freed (the
/// merge's buffers, the previous memtable) in its arenas, fragmented between live blocks, so
/// without this the process's resident memory creeps up with the amount of data written rather
/// than staying at what the options bound. Called once per flush (every `memTableSize` bytes of
/// writes), on the flush queue; it costs well under a millisecond. No-op off glibc.
func releaseFreeMemory() {
    #if canImport(Glibc)
    _ = mallocTrim?(0)
    #endif
}

/// `releaseFreeMemory`, at most once per `trimInterval` over the process: for work that frees
/// memory many times a second (the chunks of a bulk load). A trim walks every arena of the
/// process and hands back each free range with its own `madvise`, and on a process with many
/// threads each one interrupts the other processors: after every 1 MiB chunk (the store's size) of a 1M-entity
/// download that was about 28,000 calls, a tenth of the download's CPU (perf). Twenty times a
/// second (every 50 ms) a 1M-entity download over HTTP peaked at 78-82 MiB against 82-88 MiB
/// trimming four times a second, with no difference in time or CPU that five alternating runs
/// could tell; every 20 ms held no less (four runs each).
func releaseFreeMemoryThrottled() {
    let now = monotonicNanos()
    let last = lastTrim.load(ordering: .relaxed)
    guard now &- last >= trimInterval,
          lastTrim.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else { return }
    releaseFreeMemory()
}

/// See `releaseFreeMemoryThrottled`.
let trimInterval: UInt64 = 50_000_000
private let lastTrim = Atomic<UInt64>(0)

/// Blocks the calling thread for about `nanoseconds` (used while waiting for the writer lock).
func pauseThread(nanoseconds: UInt64) {
    var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}

#if canImport(Glibc)
/// glibc's `malloc_trim` (declared in <malloc.h>, which the Glibc module does not import),
/// looked up once; nil if the C library does not have it.
private let mallocTrim: (@convention(c) (Int) -> Int32)? = {
    guard let symbol = dlsym(nil, "malloc_trim") else { return nil }  // nil = RTLD_DEFAULT on glibc
    return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
}()
#endif

// MARK: anonymous memory (BlockArena)

/// `bytes` of zeroed, private, anonymous memory (page-aligned); nil when the system refuses.
func mapAnonymous(_ bytes: Int) -> UnsafeMutableRawPointer? {
    #if canImport(Darwin)
    let flags = MAP_PRIVATE | MAP_ANON
    #else
    let flags = MAP_PRIVATE | MAP_ANONYMOUS
    #endif
    guard let raw = mmap(nil, bytes, PROT_READ | PROT_WRITE, flags, -1, 0), raw != MAP_FAILED else { return nil }
    return raw
}

/// Returns memory from `mapAnonymous`.
func unmapAnonymous(_ pointer: UnsafeMutableRawPointer, _ bytes: Int) {
    _ = munmap(pointer, bytes)
}
