/// Moving the top of a value stack into a new array without retain/release traffic.
enum JSONStack {
    /// Removes `stack[start...]` and returns it as a new array. Elements are moved, not copied:
    /// the vacated slots are refilled with `filler` (a trivial value such as `.null` or `""`), so
    /// the final `removeSubrange` releases nothing.
    @inline(__always)
    static func popTail<T>(_ stack: inout [T], from start: Int, filler: T) -> [T] {
        let count = stack.count - start
        guard count > 0 else { return [] }
        // Allocated by reserveCapacity, which is specialized here: `Array(unsafeUninitializedCapacity:)`
        // allocates through the standard library's unspecialized code, which looked up the
        // storage class's generic metadata in the runtime's table on every call (about 4 % of
        // reading a page of entities). The fillers are trivial, so overwriting them without
        // releasing them below is a plain move.
        var result: [T] = []
        result.reserveCapacity(count)
        result.append(contentsOf: repeatElement(filler, count: count))
        result.withUnsafeMutableBufferPointer { destination in
            stack.withUnsafeMutableBufferPointer { source in
                guard let to = destination.baseAddress, let from = source.baseAddress else { return }
                to.moveInitialize(from: from + start, count: count)
                (from + start).initialize(repeating: filler, count: count)
            }
        }
        stack.removeSubrange(start...)
        return result
    }
}
