import BenchCommon
import Foundation

/// One variant, one parse, in a fresh process. Prints `METRIC name value` lines:
/// `parse_s` (wall clock), `parse_cpu_s` (user + system), `payload_rss` (resident bytes before the parse, payload loaded), `peak_above_payload`
/// (VmHWM after the parse minus that; VmHWM reset just before the parse), `rss_after`, `machine_idle` (fraction of all cores idle during the parse and the counting after it;
/// one busy core of two leaves 0.5 on a quiet machine).
struct Worker {
    let variant: Variant
    let file: String
    let orders: Int
    let items: Int

    func run() throws {
        let url = URL(fileURLWithPath: file)
        let foundation = variant == .jsonSerialization || variant == .jsonDecoder
        // Each variant holds exactly one copy of the payload: ours as [UInt8], Foundation's as Data.
        let data = foundation ? try Data(contentsOf: url) : Data()
        let bytes = foundation ? [] : [UInt8](try Data(contentsOf: url))
        let reset = ProcStats.resetPeak()
        let before = Double(ProcStats.rss)
        let j0 = ProcStats.cpuJiffies()
        var seconds = 0.0, cpu = 0.0
        var peak = 0.0
        let found = try variant.run(bytes: bytes, data: data) { t, c in
            seconds = t
            cpu = c
            peak = Double(ProcStats.peakRSS)
        }
        let idle = ProcStats.idleFraction(j0, ProcStats.cpuJiffies())
        guard found.orders == orders, found.items == items else {
            throw BenchError("\(variant.rawValue) read \(found.orders) orders / \(found.items) items, expected \(orders) / \(items)")
        }
        print("METRIC parse_s \(seconds)")
        print("METRIC parse_cpu_s \(cpu)")
        print("METRIC payload_rss \(before)")
        if reset { print("METRIC peak_above_payload \(max(0, peak - before))") }
        print("METRIC rss_after \(Double(ProcStats.rss))")
        if let idle { print("METRIC machine_idle \(idle)") }
        print("METRIC payload_bytes \(bytes.count + data.count)")
    }
}
