import Synchronization

/// Fans the store's state out to every `states` stream: each new stream starts with the
/// current state; `closed` finishes them all.
final class StateBroadcaster: Sendable {
    private struct Box {
        var state: OfflineStoreState
        var next = 0
        var continuations: [Int: AsyncStream<OfflineStoreState>.Continuation] = [:]
    }

    private let box: Mutex<Box>

    init(_ initial: OfflineStoreState) { box = Mutex(Box(state: initial)) }

    var current: OfflineStoreState { box.withLock { $0.state } }

    func stream() -> AsyncStream<OfflineStoreState> {
        let (stream, continuation) = AsyncStream<OfflineStoreState>.makeStream(bufferingPolicy: .unbounded)
        let id = box.withLock { b -> Int? in
            continuation.yield(b.state)
            if b.state == .closed { return nil }
            let id = b.next
            b.next += 1
            b.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.box.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func set(_ state: OfflineStoreState) {
        let finishing = box.withLock { b -> [AsyncStream<OfflineStoreState>.Continuation] in
            guard b.state != state else { return [] }
            b.state = state
            for c in b.continuations.values { c.yield(state) }
            guard state == .closed else { return [] }
            defer { b.continuations = [:] }
            return Array(b.continuations.values)
        }
        for c in finishing { c.finish() }
    }
}
