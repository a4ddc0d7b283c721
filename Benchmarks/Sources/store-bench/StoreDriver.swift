import BenchCommon
import Foundation

/// `store-bench run`: per size and round one worker process per peer (order rotated each
/// round), medians over rounds, then the report (`StoreReport`).
struct StoreDriver {
    /// Sizes in SalesOrders, and the nominal entity counts when given with `--entities`.
    let sizes: [Int]
    let entitySizes: [Int]
    let rounds: Int
    let work: String
    let out: String
    let csvPath: String
    let command: String
    let peers: [StorePeer]
    /// The SQLCipher worker (`sqlcipher-worker`), its library and settings.
    let sqlcipher: SQLCipherPeer
    /// Peers left out and why (SQLCipher without `sqlcipher-worker`).
    let notMeasured: [StorePeer: String]
    let executable: String

    static func fromArguments() -> StoreDriver {
        // Sizes in entities (`--entities`, all five sets: 5.5 per SalesOrder) or in SalesOrders (`--orders`).
        let entitySizes = option("--entities", "").split(separator: ",").compactMap { Int($0) }
        let sizes = entitySizes.isEmpty ? option("--orders", "10000,100000").split(separator: ",").compactMap { Int($0) }
                                        : entitySizes.map { max(1, ($0 * 2 + 10) / 11) }
        guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else { fail("--orders / --entities take a comma-separated list of positive counts") }
        let work = option("--work-dir", NSTemporaryDirectory() + "offline-odata-store-bench")
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let requested = option("--peers", "").split(separator: ",").map(String.init)
        var peers: [StorePeer] = StorePeer.allCases
        if !requested.isEmpty {
            peers = requested.compactMap(StorePeer.named)
            guard peers.count == requested.count else {
                fail("--peers: known peers are \(StorePeer.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        var notMeasured: [StorePeer: String] = [:]
        var sqlcipher = SQLCipherPeer(worker: nil, description: "not requested")
        if peers.contains(.sqlcipherTyped) {
            sqlcipher = SQLCipherPeer.locate(next: me, workDirectory: work)
            if sqlcipher.worker == nil {
                if !requested.isEmpty { fail("--peers sqlcipher-typed: \(sqlcipher.description)") }
                peers.removeAll { $0 == .sqlcipherTyped }
                notMeasured[.sqlcipherTyped] = sqlcipher.description
                FileHandle.standardError.write(Data("store-bench: sqlcipher-typed \(sqlcipher.description)\n".utf8))
            }
        }
        return StoreDriver(
            sizes: sizes, entitySizes: entitySizes, rounds: Int(option("--rounds", "3")) ?? 3, work: work,
            out: option("--out", "store.md"), csvPath: option("--csv", ""), command: option("--command", "make bench-store"),
            peers: peers, sqlcipher: sqlcipher, notMeasured: notMeasured, executable: me)
    }

    /// The worker process of `peer`: store-bench itself, or `sqlcipher-worker store`.
    func worker(_ peer: StorePeer, orders: Int, dir: String) -> (String, [String]) {
        if peer == .sqlcipherTyped, let path = sqlcipher.worker {
            return (path, ["store", "--orders", String(orders), "--dir", dir, "--updates", String(updates), "--cache-bytes", String(cacheBytes)])
        }
        return (executable, ["worker", peer.rawValue, String(orders), dir, "--updates", String(updates)])
    }

    /// Rounds at a size: `rounds`, times 3 under 100,000 SalesOrders and times 5 under 10,000.
    /// A small size's run takes a second or less, where this shared machine's noise moved one
    /// peer's median by up to 30 % between runs (the encryption overhead at 100k read +12 %
    /// in one run and +31 % in the next, −13 % at 1M); more rounds cost little there.
    func rounds(orders: Int) -> Int {
        max(rounds, 1) * (orders < 10_000 ? 5 : orders < 100_000 ? 3 : 1)
    }

    func run() throws {
        var report = StoreReport(driver: self)
        for (index, orders) in sizes.enumerated() {
            // The CSV's scale: the nominal entity count when sizes were given in entities.
            let scale = entitySizes.isEmpty ? orders : entitySizes[index]
            var results: [StorePeer: [String: [Double]]] = [:]
            let rounds = rounds(orders: orders)
            for round in 0..<rounds {
                let shift = round % peers.count
                for peer in peers[shift...] + peers[..<shift] {
                    let dir = "\(work)/\(peer.rawValue)-\(orders)-\(round)"
                    try? FileManager.default.removeItem(atPath: dir)
                    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                    FileHandle.standardError.write(Data("store-bench: \(orders) round \(round + 1)/\(rounds) \(peer.rawValue)\n".utf8))
                    let (path, args) = worker(peer, orders: orders, dir: dir)
                    let metrics = try Workers.spawn(path, args)
                    try? FileManager.default.removeItem(atPath: dir)
                    for (k, v) in metrics { results[peer, default: [:]][k, default: []].append(v) }
                }
            }
            report.add(orders: orders, scale: scale, results: results)
        }
        try report.markdown().write(toFile: out, atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data("store-bench: wrote \(out)\n".utf8))
        if !csvPath.isEmpty { try report.csv.write(to: csvPath) }
    }
}
