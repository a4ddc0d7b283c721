import Foundation
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// Media crash test (issue 33): a child process (`offline-odata store-crash-worker --media`)
/// replaces the stream of Photos(1) again and again, small (one commit), medium (staged through
/// the log) and long (a run of its own); the parent kills it with SIGKILL at a random instant.
/// After reopening, the stream is exactly one whole version, the last acknowledged one or the
/// one after it (never a mix or a truncation), no staged chunk of an unfinished write is left,
/// and the engine check is clean. `OODATA_MEDIA_CRASH_KILLS` (default 10), `OODATA_MEDIA_CRASH_SEED`.
@Suite(.serialized) struct MediaCrashTests {
    @Test func killsDuringStreamWritesLeaveOneWholeVersion() async throws {
        let run = try StoreCrashWorkerCommandMirror.prepare("MediaCrashTests", envName: "MEDIA_CRASH", defaultKills: 10, dirLabel: "media-crash")
        defer { try? FileManager.default.removeItem(atPath: run.dir) }
        var rng = SplitMix64(state: run.seed)
        var lastAcknowledged = 0
        var versionsSeen = Set<Int>()
        var written = 0
        for round in 0..<run.kills {
            // The worker writes versions (round + 1) × 1000 + 1, + 2, … (sizes cycling with the version).
            let lines = try await StoreCrashTests.runUntilKilled(run.binary, ["store-crash-worker", run.dir, "--media", "--seed", String(round + 1)],
                                                                 afterReadyMs: Int(rng.next() % 2500) + 20)
            #expect(lines.first == "READY", "round \(round): worker did not get ready: \(lines.prefix(3))")
            var inFlight = (round + 1) * 1000 + 1
            for line in lines where line.hasPrefix("ACK ") {
                let acknowledged = Int(line.dropFirst(4)) ?? 0
                lastAcknowledged = acknowledged
                inFlight = acknowledged + 1
            }
            let parameters = OfflineStoreParameters(storeName: "media", storePath: run.dir,
                                                    encryption: .key(StoreCrashWorkerCommandMirror.key), durability: .full,
                                                    keyDerivation: .minimum)
            let store = try await OfflineStore.open(metadata: MediaFixtures.photosMetadata, parameters: parameters)
            defer { try? store.close() }
            let exists = (try? store.execute(.get, "Photos(1)"))?.status == 200
            if exists, let info = try store.mediaInfo(set: "Photos", key: [.int32(1)]) {
                let stored = Int(info.contentType.split(separator: "v").last ?? "") ?? -1
                #expect(stored == lastAcknowledged || stored == inFlight,
                        "round \(round): version \(stored) stored, \(lastAcknowledged) acknowledged last, \(inFlight) in flight")
                var bytes: [UInt8] = []
                for try await piece in try store.readMedia(set: "Photos", key: [.int32(1)]) { bytes += piece }
                #expect(bytes == MediaFixtures.version(stored), "round \(round): version \(stored) does not read back whole")
                lastAcknowledged = stored
                versionsSeen.insert(stored % 3)
                written += 1
                // Only the named stream's chunks are left: nothing of an interrupted write.
                var chunks = 0, pending = 0
                var cursor = try store.storage.reader().systemScan(tree: "media.chunks")
                while try cursor.next() != nil { chunks += 1 }
                var pendingCursor = try store.storage.reader().systemScan(tree: "media.pending")
                while try pendingCursor.next() != nil { pending += 1 }
                #expect(pending == 0 && chunks == (bytes.count + 65535) / 65536, "round \(round): \(chunks) chunks, \(pending) pending")
            } else {
                #expect(lastAcknowledged == 0, "round \(round): the stream is gone after \(lastAcknowledged) acknowledged versions")
            }
            try store.close()
            let check = try CLIRunner.run(["check", run.dir + "/media.oostore", "--key-file", run.keyFile], passphrase: nil)
            #expect(check.status == 0, "round \(round): check failed: \(check.stdout) \(check.stderr)")
        }
        print("MediaCrashTests: \(run.kills) kills, a stream found after \(written), size classes stored \(versionsSeen.sorted())")
        #expect(written > 0, "no write ever completed: the kills came too early to test anything")
    }
}
