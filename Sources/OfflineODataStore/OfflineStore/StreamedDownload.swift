import Dispatch
import OfflineODataModel
import Synchronization

// The initial download, applied while it is received (docs/Sync.md §2.1, "The initial download").
//
// Every later download receives its pages under no lock and applies them afterwards, so that
// local reads and writes go on while the network is slow (§2.1). The first download of a store
// is different: the store was created by the `open` that downloads, and nothing else holds it
// until that download is complete, so no reader or writer can wait on its lock. There the
// pages go from the network to the apply through a `PageChannel` of a few pages: the apply
// (checks, bulk load, commits) runs while the next pages arrive, instead of after all of them
// were spooled to disk and read back.
//
// Crash safety is the initial download's own: the store counts as made only once the provider
// marks its initial download complete; a store killed before that is cleared and made again by
// the next `open` (OfflineODataProvider.open).

/// Pages handed from an asynchronous producer (the network) to a consumer on its own thread
/// (the apply), at most `capacity` at a time. The producer waits for room without blocking a
/// thread; the consumer blocks until a page, the end or a failure arrives. Either side can stop
/// the other with an error.
package final class PageChannel: Sendable {
    private struct State {
        var pages: [[UInt8]] = []
        var head = 0
        var finished = false
        var failure: ODataError?
        /// The consumer's error: the producer's next `send` throws it.
        var stopped: ODataError?
        var waitingProducer: CheckedContinuation<Void, Never>?
        var trailingState: SyncQueryState?
        var queued: Int { pages.count - head }
    }

    private let state = Mutex(State())
    /// One signal per page and one for the end (or a failure): what the consumer waits for.
    private let available = DispatchSemaphore(value: 0)
    let capacity: Int

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Hands over one page; waits while `capacity` pages are waiting. Throws the consumer's
    /// error when it stopped.
    package func send(_ page: [UInt8]) async throws(ODataError) {
        while true {
            let stopped = state.withLock { s -> ODataError?? in
                if let stopped = s.stopped { return .some(stopped) }
                guard s.queued < capacity else { return nil }
                s.pages.append(page)
                return .some(nil)
            }
            switch stopped {
            case .some(.some(let error)):
                throw error
            case .some(.none):
                available.signal()
                return
            case .none:
                // Full: wait until the consumer takes a page (or stops).
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { s -> Bool in
                        if s.stopped != nil || s.queued < capacity { return true }
                        s.waitingProducer = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// The producer is done; `state` is what the consumer commits with the data.
    package func finish(state trailing: SyncQueryState?) {
        let signal = state.withLock { s -> Bool in
            guard !s.finished, s.failure == nil else { return false }
            s.finished = true
            s.trailingState = trailing
            return true
        }
        if signal { available.signal() }
    }

    /// The producer failed: the consumer's next `receive` throws `error` (pages still waiting
    /// are dropped: the download is abandoned).
    package func fail(_ error: ODataError) {
        let signal = state.withLock { s -> Bool in
            guard !s.finished, s.failure == nil else { return false }
            s.failure = error
            return true
        }
        if signal { available.signal() }
    }

    /// The next page (blocking), nil at the end; throws the producer's failure.
    func receive() throws(ODataError) -> [UInt8]? {
        available.wait()
        let (page, failure, producer) = state.withLock { s -> ([UInt8]?, ODataError?, CheckedContinuation<Void, Never>?) in
            if let failure = s.failure { return (nil, failure, nil) }
            if s.head < s.pages.count {
                var page: [UInt8] = []
                swap(&page, &s.pages[s.head])
                s.head += 1
                if s.head == s.pages.count {
                    s.pages.removeAll(keepingCapacity: true)
                    s.head = 0
                }
                let producer = s.waitingProducer
                s.waitingProducer = nil
                return (page, nil, producer)
            }
            return (nil, nil, nil)
        }
        producer?.resume()
        if let page { return page }
        if let failure {
            // Seen again by a later call.
            available.signal()
            throw failure
        }
        available.signal()
        return nil
    }

    /// The consumer stopped with `error`: a waiting or later `send` throws it.
    func stop(_ error: ODataError) {
        let producer = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.stopped == nil { s.stopped = error }
            let producer = s.waitingProducer
            s.waitingProducer = nil
            return producer
        }
        producer?.resume()
    }

    /// The state the producer finished with.
    var trailingState: SyncQueryState? { state.withLock { $0.trailingState } }
}

/// Buffers of pages the apply is done with, handed back for the next pages to be received
/// into. A download of 1M entities receives about 280 MB in pages of 1.4 MB; each one freshly
/// allocated, then freed on another thread, made the allocator give its memory back to the
/// system and take it again at every page (`madvise`, page faults, TLB shootdowns: about a
/// tenth of the download's CPU, perf). At most `limit` free buffers are kept.
package final class PageBufferPool: Sendable {
    private let buffers = Mutex<[[UInt8]]>([])
    let limit: Int
    /// Buffers smaller than this are not worth keeping, larger ones not worth holding.
    static let keptCapacity = (64 << 10)...(64 << 20)

    package init(limit: Int = 2) {
        self.limit = limit
    }

    /// An empty buffer with room for `capacity` bytes: a kept one when there is one (its
    /// storage is reused when nothing else still refers to it).
    package func take(capacity: Int) -> [UInt8] {
        var buffer = buffers.withLock { $0.popLast() } ?? []
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(capacity)
        return buffer
    }

    /// Keeps `page`'s buffer for a later `take`.
    func give(_ page: [UInt8]) {
        guard Self.keptCapacity.contains(page.capacity) else { return }
        buffers.withLock { if $0.count < limit { $0.append(page) } }
    }
}

/// A `PageChannel` read as the apply's page source.
struct ChannelPageSource: DownloadPageSource {
    let channel: PageChannel
    mutating func nextPage() throws(ODataError) -> [UInt8]? { try channel.receive() }
}

extension OfflineStore {
    /// Applies one defining query's full download while its pages arrive through `channel`:
    /// only for the first download of a store that no one else holds yet (the initial
    /// download is not complete), because the writer lock is held while the network is
    /// waited for. The data and the state the producer finishes with commit together; a
    /// failure on either side changes nothing (the staged pages are discarded) and stops the
    /// other side.
    /// `pageBuffers`: where the buffers of applied pages go, for the producer's next pages.
    package func applyInitialDownload(definingQuery name: String, channel: PageChannel, pageBuffers: PageBufferPool? = nil,
                                      progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws(ODataError) -> DownloadSummary {
        do throws(ODataError) {
            try ensureOpen()
            guard try !isInitialDownloadComplete() else {
                throw ODataError.offlineInvalidParameter("definingQuery", "'\(name)': a download applied while it is received is only for a store's initial download")
            }
            guard let query = try definingQuery(named: name) else { throw ODataError.offlineDefiningQueryNotFound(name) }
            _ = try validate(query)
        } catch {
            channel.stop(error)
            throw error
        }
        broadcaster.set(.downloading)
        defer { if isOpen.withLock({ $0 }) { broadcaster.set(.open) } }
        // On a thread of its own: the apply blocks while it waits for pages, and the pages come
        // from tasks of the cooperative pool.
        let result: Result<DownloadSummary, ODataError> = await withCheckedContinuation { continuation in
            DispatchQueue(label: "OfflineODataStore.download.initial").async {
                do throws(ODataError) {
                    let summary = try self.applyReceived(definingQuery: name, channel: channel, pageBuffers: pageBuffers,
                                                         progress: progress)
                    continuation.resume(returning: .success(summary))
                } catch {
                    channel.stop(error)
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    private func applyReceived(definingQuery name: String, channel: PageChannel, pageBuffers: PageBufferPool?,
                               progress: (@Sendable (DownloadProgress) -> Void)?) throws(ODataError) -> DownloadSummary {
        guard let query = try definingQuery(named: name) else { throw ODataError.offlineDefiningQueryNotFound(name) }
        let set = try validate(query)
        var source = ChannelPageSource(channel: channel)
        return try applyFull(name, set: set, pages: &source, progress: progress) { apply in
            apply.eventDetails = " mode=full"
            apply.trailingSyncState = { channel.trailingState }
            apply.pageBuffers = pageBuffers
            apply.stagingAhead = 1
        }
    }
}
