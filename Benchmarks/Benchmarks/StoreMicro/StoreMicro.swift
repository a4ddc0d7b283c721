import BenchCommon
import Benchmark
import Foundation
import OfflineODataModel
import OfflineODataStore
import QueryBenchKit

// Micro-benchmarks of the OData layer's hot paths with allocation counts (package-benchmark),
// on a small generated store (StoreFixture: 2,000 SalesOrders, 11,000 entities):
//   - JSON parse: one SalesOrder's OData JSON → `ODataEntity` (`ODataJSONReader.readEntity`)
//   - encode: `EntityWriteBatch.put` of SalesOrders (the store's entity conversion, `EntityCodec`
//     encoding, key encoding, index entries; the batch is discarded, not committed), and
//     `EntityCodec.encode` alone
//   - decode: `EntityCodec.decode` of encoded SalesOrders, and a point read
//     (`EntityReader.entity(in:key:)` + `StoredEntity.toODataEntity()`)
//   - scan: every SalesOrder through `EntityReader.scan` + `toODataEntity()`
//   - queries: `QueryExecutor(reader:model:pageSize:).execute(url)` for the query benchmark's
//     indexed equality, indexed range, non-indexed compound filter, `$orderby`+`$top` and `$expand`
//     workloads (`QueryWorkload.all(orders:)`)
//
// Names hold no '/' or ' ': package-benchmark looks thresholds up as `TARGET.NAME.p90.json` without
// the escaping it applies when writing them.
// Allocation counts are deterministic for a given build, so they have checked-in thresholds
// (Benchmarks/Thresholds/, `make bench-micro-check`): the check fails when an allocation count
// moves by more than `mallocTolerance` (relative, p90) in either direction.
//
//   swift package --package-path Benchmarks --allow-writing-to-directory /tmp benchmark --target StoreMicro

let benchmarks: @Sendable () -> Void = {
    // ±3 % on the p90 of `mallocCountTotal` (the counts repeat exactly between runs; the slack
    // covers an occasional extra allocation, e.g. a cache or array growing at another iteration);
    // `instructions` (when the machine exposes the counter) ±5 %.
    let thresholds: [BenchmarkMetric: BenchmarkThresholds] = [
        .mallocCountTotal: BenchmarkThresholds(relative: [.p90: 3.0]),
        .instructions: BenchmarkThresholds(relative: [.p90: 5.0]),
    ]
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .instructions]
    func config(_ scaling: BenchmarkScalingFactor = .one, iterations: Int = 1000, seconds: Int = 2) -> Benchmark.Configuration {
        Benchmark.Configuration(metrics: metrics, warmupIterations: 3, scalingFactor: scaling,
                                maxDuration: .seconds(seconds), maxIterations: iterations, thresholds: thresholds)
    }
    let cursor = Cursor()

    // JSON → entity, one SalesOrder per inner iteration (100 per measured iteration).
    Benchmark("JSON_readEntity_SalesOrder_x100", configuration: config()) { benchmark in
        let f = try StoreFixture.shared()
        benchmark.startMeasurement()
        for json in f.sampleJSON { blackHole(try f.jsonReader.readEntity(json, entitySet: "SalesOrders")) }
    }

    // Entity → stored bytes through the store's write path, without the commit.
    Benchmark("Encode_EntityWriteBatch.put_SalesOrder_x100", configuration: config()) { benchmark in
        let f = try StoreFixture.shared()
        let entities = f.sampleEntities
        benchmark.startMeasurement()
        do throws(ODataError) {
            try f.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                for entity in entities { try batch.put(entity, in: "SalesOrders") }
                blackHole(batch.recordCount)
                throw discardBatch
            }
        } catch {
            guard error == discardBatch else { throw error }
        }
    }

    Benchmark("Encode_EntityCodec.encode_SalesOrder_x100", configuration: config()) { benchmark in
        let f = try StoreFixture.shared()
        benchmark.startMeasurement()
        for record in f.sampleRecords { blackHole(try f.codec.encode(record)) }
    }

    Benchmark("Decode_EntityCodec.decode_SalesOrder_x100", configuration: config()) { benchmark in
        let f = try StoreFixture.shared()
        benchmark.startMeasurement()
        for bytes in f.sampleEncoded { blackHole(try f.codec.decode(bytes)) }
    }

    // Point read by key and full decode into an ODataEntity, 100 different orders per iteration.
    Benchmark("Decode_pointRead_toODataEntity_x100", configuration: config()) { benchmark in
        let f = try StoreFixture.shared()
        let reader = try f.storage.reader()
        let start = cursor.advance(by: 100)
        benchmark.startMeasurement()
        for i in 0..<100 {
            guard let stored = try reader.entity(in: "SalesOrders", key: f.orderKeys[(start + i) % f.orderKeys.count]) else {
                throw BenchError("point read: order missing")
            }
            blackHole(try stored.toODataEntity())
        }
    }

    Benchmark("Scan_EntityReader.scan_SalesOrders_toODataEntity", configuration: config(iterations: 200)) { benchmark in
        let f = try StoreFixture.shared()
        let reader = try f.storage.reader()
        benchmark.startMeasurement()
        var cursor = try reader.scan("SalesOrders")
        var n = 0
        while let stored = try cursor.next() {
            blackHole(try stored.toODataEntity())
            n += 1
        }
        guard n == StoreFixture.orders else { throw BenchError("scan: \(n) orders") }
    }

    for id in ["eq-indexed", "range-indexed", "filter-nonindexed", "top-nonindexed", "expand-items"] {
        Benchmark("Query_\(id)", configuration: config(iterations: 200)) { benchmark in
            let f = try StoreFixture.shared()
            guard let workload = QueryWorkload.all(orders: StoreFixture.orders).first(where: { $0.id == id }) else {
                throw BenchError("no workload \(id)")
            }
            let executor = QueryExecutor(reader: try f.storage.reader(), model: f.model, pageSize: nil)
            benchmark.startMeasurement()
            let result = try executor.execute(workload.url)
            benchmark.stopMeasurement()
            guard !result.entities.isEmpty else { throw BenchError("\(id): no result") }
            blackHole(result)
        }
    }
}
