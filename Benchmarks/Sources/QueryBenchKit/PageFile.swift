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

    public func makeIterator() -> Iterator { Iterator(handle: FileHandle(forReadingAtPath: path)) }

    public struct Iterator: IteratorProtocol {
        let handle: FileHandle?

        public mutating func next() -> [UInt8]? {
            guard let handle, let header = try? handle.read(upToCount: 8), header.count == 8 else { return nil }
            let length = header.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))) }
            guard let body = try? handle.read(upToCount: length), body.count == length else { return nil }
            return [UInt8](body)
        }
    }
}
