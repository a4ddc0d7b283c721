import Glibc

/// /proc/self readings (Linux; zero where unavailable) and a monotonic clock.
enum Proc {
    static func read(_ path: String) -> String {
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

    static func statusField(_ name: String) -> Double {
        for line in read("/proc/self/status").split(separator: "\n") where line.hasPrefix(name + ":") {
            return (Double(String(line.dropFirst(name.count + 1).filter(\.isNumber))) ?? 0) * 1024
        }
        return 0
    }

    /// Machine-wide CPU jiffies from /proc/stat: (idle + iowait, total).
    static func cpuJiffies() -> (idle: Double, total: Double) {
        guard let line = read("/proc/stat").split(separator: "\n").first, line.hasPrefix("cpu ") else { return (0, 0) }
        let fields = line.split(separator: " ").dropFirst().compactMap { Double(String($0)) }
        guard fields.count >= 5 else { return (0, 0) }
        return (fields[3] + fields[4], fields.reduce(0, +))
    }

    /// Fraction of the machine's CPU time that was idle between two `cpuJiffies()` readings.
    static func idleFraction(_ a: (idle: Double, total: Double), _ b: (idle: Double, total: Double)) -> Double? {
        let total = b.total - a.total
        return total > 0 ? (b.idle - a.idle) / total : nil
    }

    static var rss: Double { statusField("VmRSS") }
    static var peakRSS: Double { statusField("VmHWM") }

    /// Resets VmHWM to the current RSS (`echo 5 > /proc/self/clear_refs`, Linux ≥ 4.0).
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }
}

/// User + system CPU seconds of this process.
func cpuTime() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
