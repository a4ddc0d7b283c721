import BenchCommon
import Foundation
import Synchronization
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataStore
import QueryBenchKit

/// store-bench's `ours` (encrypted with a raw 256-bit key) and `ours-plain` (the explicit
/// `.unencrypted` opt-out) peers, otherwise identical: durability `.full`, `cacheBytes` of cache,
/// the same indexes, download through `applyDownload`, updates through `execute(.patch)`.
/// Prints `METRIC name value` lines (the same names as `TypedStoreWorker`).
enum OursWorker {
    static let key = [UInt8](repeating: 0x5A, count: 32)

    static func metric(_ name: String, _ value: Double) { print("METRIC \(name) \(value)") }

    static func parameters(directory dir: String, encrypted: Bool, cacheBytes: Int) -> OfflineStoreParameters {
        let indexes = SecondaryIndex.all.filter { $0.set != .salesOrderItems }.map {
            IndexDefinition(name: $0.name, entitySet: $0.set.name, properties: [$0.property])
        }
        return OfflineStoreParameters(
            storeName: "bench", storePath: dir, encryption: encrypted ? .key(key) : .unencrypted,
            definingQueries: SalesEntitySet.allCases.map { DefiningQuery(name: $0.name, url: $0.name) },
            // `STORE_BENCH_DURABILITY=relaxed` (profiling only, never in a report): no sync per
            // commit, so an update's latency is its CPU path alone.
            durability: ProcessInfo.processInfo.environment["STORE_BENCH_DURABILITY"] == "relaxed" ? .relaxed : .full, cacheSize: cacheBytes,
            indexes: indexes, keyDerivation: .minimum,
            downloadBatchBytes: Int(ProcessInfo.processInfo.environment["STORE_BENCH_DOWNLOAD_BATCH_BYTES"] ?? "") ?? OfflineStoreParameters.defaultDownloadBatchBytes)
    }

    /// `store-bench reopen-once`: the first open of a process (the `$metadata` parsed, no model
    /// kept from an earlier open) and one key read, in a process of its own.
    static func reopenOnce(orders: Int, directory dir: String, encrypted: Bool, cacheBytes: Int) async throws {
        let g = SalesServiceGenerator(seed: QueryDataSet.seed, scale: .entities(salesOrders: orders))
        let metadata = Array(g.metadataXML().utf8)
        let start = now()
        let store = try await OfflineStore.open(metadata: metadata, parameters: parameters(directory: dir, encrypted: encrypted, cacheBytes: cacheBytes))
        let first = try store.query("SalesOrders('05\(TypedStoreWorker.pad8(orders / 3))')")
        let elapsed = now() - start
        guard first.entities.count == 1 else { throw BenchError("first query found \(first.entities.count) entities") }
        try store.close()
        metric("reopen_cold_s", elapsed)
    }

    static func run(orders: Int, directory dir: String, encrypted: Bool, updates: Int, cacheBytes: Int) async throws {
        let g = SalesServiceGenerator(seed: QueryDataSet.seed, scale: .entities(salesOrders: orders))
        let metadata = Array(g.metadataXML().utf8)
        let parameters = parameters(directory: dir, encrypted: encrypted, cacheBytes: cacheBytes)
        // The pages first, so the peak RSS of the download is not the generator's.
        let files = try SalesEntitySet.allCases.map { try PageFile.write(g, $0, to: dir + "-pages-\($0.name).bin") }
        defer { for file in files { try? FileManager.default.removeItem(atPath: file.path) } }
        metric("generated_rss", Double(ProcStats.peakRSS))
        var store = try await OfflineStore.open(metadata: metadata, parameters: parameters)
        // 1. Download apply (pages are generated before the clock starts).
        var total = 0.0
        var entities = 0
        for (set, body) in zip(SalesEntitySet.allCases, files) {
            let start = now()
            let summary = try await store.applyDownload(definingQuery: set.name, pages: body)
            let elapsed = now() - start
            total += elapsed
            entities += summary.entitiesApplied
            if ProcessInfo.processInfo.environment["STORE_BENCH_TRACE"] != nil {
                FileHandle.standardError.write(Data("after \(set.name): \(summary.entitiesApplied) entities in \(Int(elapsed * 1000)) ms, peak RSS \(ProcStats.peakRSS / 1_048_576) MiB\n".utf8))
            }
        }
        metric("download_s", total)
        metric("download_entities", Double(entities))
        metric("download_rss", Double(ProcStats.peakRSS))
        // 2. Local updates with queueing, one durable commit each.
        var latencies: [Double] = []
        let updateStart = now()
        for i in 0..<updates {
            let id = TypedStoreWorker.updateKey(i, orders: orders)
            let t = now()
            let response = try store.execute(.patch, "SalesOrders('\(id)')", body: #"{"Note":"bench \#(i)"}"#)
            latencies.append(now() - t)
            guard response.status == 204 || response.status == 200 else { throw BenchError("PATCH returned \(response.status)") }
        }
        metric("update_total_s", now() - updateStart)
        metric("update_median_s", TypedStoreWorker.percentile(latencies, 0.5))
        metric("update_p99_s", TypedStoreWorker.percentile(latencies, 0.99))
        metric("queue_rows", Double(try store.requestQueue().count))
        // 2b. A burst: `burstUpdates` updates issued at once from `burstThreads` threads, each
        // acknowledged only once durable; commits made meanwhile share a sync (group commit).
        let syncsBefore = try store.stats().logSyncs
        let burstStart = now()
        let failures = Mutex(0)
        let shared = store
        DispatchQueue.concurrentPerform(iterations: TypedStoreWorker.burstThreads) { worker in
            for n in stride(from: worker, to: TypedStoreWorker.burstUpdates, by: TypedStoreWorker.burstThreads) {
                let id = TypedStoreWorker.updateKey(updates + n, orders: orders)
                let status = (try? shared.execute(.patch, "SalesOrders('\(id)')", body: #"{"Note":"burst \#(n)"}"#))?.status
                if status != 204 && status != 200 { failures.withLock { $0 += 1 } }
            }
        }
        metric("burst_s", now() - burstStart)
        guard failures.withLock({ $0 }) == 0 else { throw BenchError("burst: \(failures.withLock { $0 }) updates failed") }
        metric("burst_syncs", Double(try store.stats().logSyncs - syncsBefore))
        // 2c. Local creates with queueing: a new SalesOrder (an existing one's properties under
        // a new key), each its own durable commit.
        latencies = []
        for i in 0..<updates {
            let body = TypedStoreWorker.createBody(g, i, orders: orders)
            let t = now()
            let response = try store.execute(.post, "SalesOrders", body: body)
            latencies.append(now() - t)
            guard response.status == 201 || response.status == 204 else { throw BenchError("POST returned \(response.status)") }
        }
        metric("create_median_s", TypedStoreWorker.percentile(latencies, 0.5))
        metric("create_p99_s", TypedStoreWorker.percentile(latencies, 0.99))
        // 2d. Local deletes with queueing of downloaded orders, each its own durable commit.
        latencies = []
        for i in 0..<updates {
            let id = TypedStoreWorker.deleteKey(i, orders: orders)
            let t = now()
            let response = try store.execute(.delete, "SalesOrders('\(id)')")
            latencies.append(now() - t)
            guard response.status == 204 else { throw BenchError("DELETE returned \(response.status)") }
        }
        metric("delete_median_s", TypedStoreWorker.percentile(latencies, 0.5))
        metric("delete_p99_s", TypedStoreWorker.percentile(latencies, 0.99))
        // 2e. The floor of a durable commit on this file system, in this process.
        let floor = try SyncFloor.measure(directory: dir)
        metric("sync_floor_median_s", TypedStoreWorker.percentile(floor, 0.5))
        metric("sync_floor_p99_s", TypedStoreWorker.percentile(floor, 0.99))
        // 3. Reopen to first query, `TypedStoreWorker.reopens` times (a different key each
        // time); the median is reported.
        try store.close()
        var reopens: [Double] = []
        for i in 0..<TypedStoreWorker.reopens {
            let reopen = now()
            store = try await OfflineStore.open(metadata: metadata, parameters: parameters)
            let first = try store.query("SalesOrders('05\(TypedStoreWorker.pad8((orders / 2 + i) % orders))')")
            reopens.append(now() - reopen)
            guard first.entities.count == 1 else { throw BenchError("first query found \(first.entities.count) entities") }
            try store.close()
        }
        metric("reopen_first_query_s", TypedStoreWorker.percentile(reopens, 0.5))
        metric("reopen_first_query_min_s", reopens.min() ?? 0)
        // The first open of a new process (which parses the metadata), in a child process.
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let cold = try Workers.spawn(me, ["reopen-once", encrypted ? "ours" : "ours-plain", String(orders), dir])
        if let value = cold["reopen_cold_s"] { metric("reopen_cold_s", value) }
        metric("size_bytes", Double(directorySize(dir)))
    }
}
