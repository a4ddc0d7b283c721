import BenchCommon
import Foundation
import OfflineODataFixtures

/// A download's OData JSON pages kept in a file (8-byte little-endian length, then the page),
/// written before the clock starts and read back one page at a time, so neither peer's peak
/// RSS includes the whole download (at 1M SalesOrders the pages are gigabytes). Used by every
/// store-bench peer (ours through `applyDownload`, the typed SQLite / SQLCipher peers through
/// `TypedStoreWorker`).
public struct PageFile: Sequence {
    public let path: String

    public init(path: String) { self.path = path }

    /// Generates every page of `set` (1,000 entities each) into `path`, one page in memory at a time.
    public static func write(_ g: SalesServiceGenerator, _ set: SalesEntitySet, to path: String) throws -> PageFile {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else { throw BenchError("cannot create \(path)") }
        defer { try? handle.close() }
        for index in 0..<(try g.pageCount(of: set, pageSize: 1000)) {
            let page = try g.page(set: set, index: index, pageSize: 1000)
            var length = UInt64(page.count).littleEndian
            try handle.write(contentsOf: Data(bytes: &length, count: 8))
            try handle.write(contentsOf: page)
        }
        return PageFile(path: path)
    }

    public func makeIterator() -> Iterator { Iterator(fd: open(path, O_RDONLY)) }

    /// Reads each page with one `read` into its array (Foundation's `FileHandle.read(upToCount:)`
    /// read in small pieces and copied through `Data`: about 72,000 syscalls for the pages of 1M
    /// entities, time that both peers paid on the thread that applies pages).
    public final class Iterator: IteratorProtocol {
        let fd: Int32

        init(fd: Int32) { self.fd = fd }

        deinit { if fd >= 0 { close(fd) } }

        public func next() -> [UInt8]? {
            guard fd >= 0 else { return nil }
            var header = [UInt8](repeating: 0, count: 8)
            guard readFully(&header) else { return nil }
            let length = header.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))) }
            guard length >= 0, length < 1 << 32 else { return nil }
            var body = [UInt8](repeating: 0, count: length)
            guard readFully(&body) else { return nil }
            return body
        }

        private func readFully(_ buffer: inout [UInt8]) -> Bool {
            let fd = self.fd
            return buffer.withUnsafeMutableBytes { raw -> Bool in
                guard let base = raw.baseAddress else { return true }
                var done = 0
                while done < raw.count {
                    let n = read(fd, base + done, raw.count - done)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { return false }
                    done += n
                }
                return true
            }
        }
    }
}
