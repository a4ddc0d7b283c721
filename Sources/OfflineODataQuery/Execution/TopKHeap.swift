/// Keeps the `capacity` smallest elements seen (by `areInIncreasingOrder`) in a binary max-heap:
/// O(log k) per insert, O(k) memory, whatever the number of candidates. `$orderby` with `$top`
/// (or a page size) uses it instead of sorting the whole result (docs/QueryExecution.md §3).
public struct TopKHeap<Element> {
    public let capacity: Int
    private var storage: [Element] = []
    private let areInIncreasingOrder: (Element, Element) -> Bool

    public init(capacity: Int, by areInIncreasingOrder: @escaping (Element, Element) -> Bool) {
        self.capacity = max(0, capacity)
        self.areInIncreasingOrder = areInIncreasingOrder
        storage.reserveCapacity(min(self.capacity, 4096))
    }

    public var count: Int { storage.count }
    public var isFull: Bool { storage.count >= capacity }

    /// The largest element kept (the first to be dropped), when full.
    public var worst: Element? { storage.first }

    /// Offers an element; returns false when it was not kept (the heap was full and the
    /// element is not smaller than the worst kept).
    @discardableResult
    public mutating func insert(_ element: Element) -> Bool {
        guard capacity > 0 else { return false }
        if storage.count < capacity {
            storage.append(element)
            siftUp(storage.count - 1)
            return true
        }
        guard areInIncreasingOrder(element, storage[0]) else { return false }
        storage[0] = element
        siftDown(0)
        return true
    }

    /// The kept elements in increasing order (consumes the heap).
    public consuming func sorted() -> [Element] {
        var result = storage
        result.sort(by: areInIncreasingOrder)
        return result
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard areInIncreasingOrder(storage[parent], storage[child]) else { return }
            storage.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let count = storage.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var largest = left
            let right = left + 1
            if right < count, areInIncreasingOrder(storage[left], storage[right]) { largest = right }
            guard areInIncreasingOrder(storage[parent], storage[largest]) else { return }
            storage.swapAt(parent, largest)
            parent = largest
        }
    }
}
