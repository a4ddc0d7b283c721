import Foundation

/// The machine-readable twin of a benchmark's Markdown section (`--csv PATH`): one row per figure
/// the section's tables show (medians over rounds), in the columns
///
///     workload,scale,peer,value,unit
///
/// `workload` a stable id (`insert.full_close`, `query.eq-indexed`, …; listed in
/// Benchmarks/README.md), `scale` the benchmark's size parameter (records for the engine,
/// SalesOrders for the query and store benchmarks), `peer` a stable peer id (`ours-enc`,
/// `ours-plain`, `sqlite`, `sqlcipher`, `sqlite-json`, …), `value` a plain decimal number in
/// `unit` (`rows/s`, `us`, `ms`, `s`, `MB`, `MiB`, `ratio`, `entities/s`, …).
/// `scripts/plot.py` draws the growth curves from these files.
public struct ResultsCSV: Sendable {
    public static let header = "workload,scale,peer,value,unit"

    public private(set) var rows: [String] = []

    public init() {}

    /// Adds one figure; non-finite values (a peer not measured) are skipped.
    public mutating func add(_ workload: String, scale: Int, peer: String, value: Double?, unit: String) {
        guard let value, value.isFinite else { return }
        rows.append([Self.field(workload), String(scale), Self.field(peer), Self.number(value), Self.field(unit)].joined(separator: ","))
    }

    public var text: String { ([Self.header] + rows).joined(separator: "\n") + "\n" }

    public func write(to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data("wrote \(path) (\(rows.count) rows)\n".utf8))
    }

    /// Enough significant digits for plotting, no exponent for ordinary magnitudes.
    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(format: "%.6g", v)
    }

    /// Quotes a field holding a comma or quote (RFC 4180).
    static func field(_ s: String) -> String {
        guard s.contains(",") || s.contains("\"") || s.contains("\n") else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
