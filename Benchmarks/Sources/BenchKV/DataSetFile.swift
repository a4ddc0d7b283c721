import BenchCommon
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The workload written once to a flat file (per record: 16-byte key, u32 little-endian value
/// length, value bytes), so that insert timings measure the store, not the JSON generator.
/// Workers read it back in batches with plain `read` calls: the page cache holds it, not the
/// worker's resident memory.
public enum DataSetFile {
    /// Writes the data set unless a file of the expected size is already there.
    /// Returns the data bytes (keys + values).
    @discardableResult
    public static func ensure(_ workload: Workload, at path: String) throws -> UInt64 {
        var data: UInt64 = 0
        var fileBytes: UInt64 = 0
        var values: [[UInt8]] = []
        values.reserveCapacity(workload.count)
        for i in 0..<workload.count {
            let v = workload.value(i)
            data += UInt64(16 + v.count)
            fileBytes += UInt64(20 + v.count)
            values.append(v)
        }
        if fileSize(path) == fileBytes { return data }
        let fd = open(path + ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw BenchError("cannot create \(path).tmp") }
        var buf = [UInt8]()
        buf.reserveCapacity(1 << 20)
        func drain() throws {
            let n = buf.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n == buf.count else { throw BenchError("short write to \(path).tmp") }
            buf.removeAll(keepingCapacity: true)
        }
        for i in 0..<workload.count {
            buf.append(contentsOf: workload.key(i))
            let n = UInt32(values[i].count)
            for s in stride(from: 0, to: 32, by: 8) { buf.append(UInt8(truncatingIfNeeded: n >> UInt32(s))) }
            buf.append(contentsOf: values[i])
            if buf.count >= 1 << 20 { try drain() }
        }
        try drain()
        close(fd)
        guard rename(path + ".tmp", path) == 0 else { throw BenchError("cannot rename \(path).tmp") }
        return data
    }

    /// Sequential batch reader.
    public final class Reader {
        private let fd: Int32
        private var buffer: [UInt8] = []
        private var position = 0
        private var eof = false

        public init(path: String) throws {
            fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw BenchError("cannot open \(path)") }
        }

        deinit { close(fd) }

        private func fill(_ need: Int) -> Bool {
            while buffer.count - position < need && !eof {
                if position > 0 {
                    buffer.removeFirst(position)
                    position = 0
                }
                var chunk = [UInt8](repeating: 0, count: 1 << 20)
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { eof = true } else { buffer.append(contentsOf: chunk[0..<n]) }
            }
            return buffer.count - position >= need
        }

        /// Up to `count` next records, each as an owned key and value.
        public func next(_ count: Int) -> [([UInt8], [UInt8])] {
            var out: [([UInt8], [UInt8])] = []
            out.reserveCapacity(count)
            while out.count < count, fill(20) {
                let k = Array(buffer[position..<position + 16])
                var n = 0
                for j in 0..<4 { n |= Int(buffer[position + 16 + j]) << (8 * j) }
                guard fill(20 + n) else { break }
                let v = Array(buffer[position + 20..<position + 20 + n])
                position += 20 + n
                out.append((k, v))
            }
            return out
        }
    }
}
