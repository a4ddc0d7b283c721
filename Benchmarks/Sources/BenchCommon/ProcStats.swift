#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Readings from /proc/self (Linux). Zero where the file or field is missing.
public enum ProcStats {
    /// A whole small file (procfs reports size 0, so read until EOF).
    public static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func field(_ text: String, _ name: String) -> UInt64 {
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter { $0.isNumber }
            return UInt64(String(digits)) ?? 0
        }
        return 0
    }

    /// Peak resident set size (VmHWM) in bytes.
    public static var peakRSS: UInt64 { field(read("/proc/self/status"), "VmHWM") * 1024 }
    /// Current resident set size (VmRSS) in bytes.
    public static var rss: UInt64 { field(read("/proc/self/status"), "VmRSS") * 1024 }

    public struct IO: Sendable {
        /// Bytes passed to write-like system calls.
        public var wchar: UInt64
        /// Bytes sent (or to be sent) to the storage layer, minus those cancelled by truncation.
        public var writeBytes: UInt64
        public var readBytes: UInt64
    }

    /// Machine-wide CPU jiffies from /proc/stat: (idle + iowait, total).
    public static func cpuJiffies() -> (idle: Double, total: Double) {
        guard let line = read("/proc/stat").split(separator: "\n").first, line.hasPrefix("cpu ") else { return (0, 0) }
        let fields = line.split(separator: " ").dropFirst().compactMap { Double(String($0)) }
        guard fields.count >= 5 else { return (0, 0) }
        return (fields[3] + fields[4], fields.reduce(0, +))
    }

    /// Fraction of the machine's CPU time that was idle between two `cpuJiffies()` readings.
    public static func idleFraction(_ a: (idle: Double, total: Double), _ b: (idle: Double, total: Double)) -> Double? {
        let total = b.total - a.total
        return total > 0 ? (b.idle - a.idle) / total : nil
    }

    /// Resets VmHWM to the current RSS (`echo 5 > /proc/self/clear_refs`, Linux ≥ 4.0).
    public static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    public static var io: IO {
        let t = read("/proc/self/io")
        let w = field(t, "write_bytes"), c = field(t, "cancelled_write_bytes")
        return IO(wchar: field(t, "wchar"), writeBytes: w > c ? w - c : 0, readBytes: field(t, "read_bytes"))
    }
}

/// User + system CPU seconds of this process.
public func cpuTime() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// Monotonic seconds.
public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Sum of the sizes of the regular files in a directory and its subdirectories.
public func directorySize(_ path: String) -> UInt64 {
    guard let dir = opendir(path) else { return 0 }
    defer { closedir(dir) }
    var total: UInt64 = 0
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name == "." || name == ".." { continue }
        var st = stat()
        guard stat(path + "/" + name, &st) == 0 else { continue }
        if (st.st_mode & S_IFMT) == S_IFREG { total += UInt64(st.st_size) }
        // Stores that keep their files in a subfolder (ours: `<dir>/ours`) count too.
        if (st.st_mode & S_IFMT) == S_IFDIR { total += directorySize(path + "/" + name) }
    }
    return total
}

/// Size of one file, 0 if missing.
public func fileSize(_ path: String) -> UInt64 {
    var st = stat()
    return stat(path, &st) == 0 ? UInt64(st.st_size) : 0
}
