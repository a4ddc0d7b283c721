import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What one durable commit cannot go below on this machine (issue 34): an 800-byte `pwrite` into
/// a file whose blocks were written and synced beforehand (so the sync writes no file size or
/// extent), then `fdatasync`, `count` times at increasing offsets, in `directory` (the folder of
/// the store being measured, so the same file system). A store's commit is at least this; the
/// store benchmark reports each local write's median as a multiple of it, measured in the same
/// worker process.
public enum SyncFloor {
    public static let writeBytes = 800

    /// The latencies in seconds, sorted. Throws when the file cannot be made or written.
    public static func measure(directory: String, count: Int = 500) throws -> [Double] {
        let path = directory + "/sync-floor.bin"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchError("sync floor: cannot create \(path): errno \(errno)") }
        defer {
            close(fd)
            unlink(path)
        }
        let size = (count + 8) * writeBytes
        let zeros = [UInt8](repeating: 0, count: size)
        guard zeros.withUnsafeBytes({ pwrite(fd, $0.baseAddress, size, 0) }) == size, fdatasync(fd) == 0 else {
            throw BenchError("sync floor: cannot prepare \(path): errno \(errno)")
        }
        let record = [UInt8](repeating: 0x5A, count: writeBytes)
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        for i in 0..<count {
            let start = now()
            guard record.withUnsafeBytes({ pwrite(fd, $0.baseAddress, writeBytes, off_t(i * writeBytes)) }) == writeBytes,
                  fdatasync(fd) == 0 else {
                throw BenchError("sync floor: write \(i) failed: errno \(errno)")
            }
            latencies.append(now() - start)
        }
        return latencies.sorted()
    }
}
