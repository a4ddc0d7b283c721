// store-bench: the offline store against SQLite and SQLCipher (issues 5 and 6). Per size and
// round, one worker process per peer runs, on the same generated sales service (Fixtures, all
// five sets), with the same indexes, cache size and durability:
//   1. download apply: the OData JSON pages (1,000 entities each) parsed and stored
//      (ours, ours-plain: `OfflineStore.applyDownload` per defining query, one atomic step each;
//      SQLite / SQLCipher typed: every entity's JSON parsed and inserted, one transaction per
//      page); wall time, entities/s, peak RSS of the worker;
//   2. local update with queueing: PATCH of one order's Note, each its own durable commit
//      (ours: `OfflineStore.execute(.patch, …)` with durability .full, which writes the entity, its
//      request-queue row and its server image in one commit; SQLite / SQLCipher: UPDATE + INSERT
//      into a RequestQueue table in one transaction, WAL + synchronous=FULL); median and p99
//      latency, updates/s;
//   3. reopen to first query: close, then open (raw key for ours and SQLCipher, no KDF) and read
//      one order by key; wall time, median of STORE_BENCH_REOPENS (default 9) reopens, each
//      reading another key (a reopen takes the model an earlier open parsed from the same
//      `$metadata`); ours also once in a new process (`store-bench reopen-once`), which parses it.
// Peers (`--peers`, default all): ours (encrypted), ours-plain (unencrypted opt-out), sqlite-typed,
// sqlcipher-typed (run by `sqlcipher-worker store`, found next to store-bench; left out with a
// note when it is not built).
// Results: Markdown (`--out`) and, with `--csv FILE`, the tables' figures as `workload,scale,peer,value,unit`
// rows (ResultsCSV); the rows between `<!-- goals:begin -->`/`<!-- goals:end -->` feed the
// summary of BENCHMARKS.md.
import BenchCommon
import Foundation
import QueryBenchKit

do {
    if arguments.first == "worker", arguments.count >= 4, let orders = Int(arguments[2]), orders > 0 {
        switch StorePeer.named(arguments[1]) {
        case .ours?: try await OursWorker.run(orders: orders, directory: arguments[3], encrypted: true, updates: updates, cacheBytes: cacheBytes)
        case .oursPlain?: try await OursWorker.run(orders: orders, directory: arguments[3], encrypted: false, updates: updates, cacheBytes: cacheBytes)
        case .sqliteTyped?: try TypedStoreWorker.run(orders: orders, directory: arguments[3], updates: updates, cacheBytes: cacheBytes)
        case .sqlcipherTyped?: fail("sqlcipher-typed runs in `sqlcipher-worker store`, not in store-bench")
        case nil: fail("worker: unknown peer \(arguments[1])")
        }
    } else if arguments.first == "reopen-once", arguments.count >= 4, let orders = Int(arguments[2]), orders > 0,
              let peer = StorePeer.named(arguments[1]), peer == .ours || peer == .oursPlain {
        try await OursWorker.reopenOnce(orders: orders, directory: arguments[3], encrypted: peer == .ours, cacheBytes: cacheBytes)
    } else if arguments.first == "run" {
        try StoreDriver.fromArguments().run()
    } else {
        fail(usage)
    }
} catch {
    fail("\(error)")
}
