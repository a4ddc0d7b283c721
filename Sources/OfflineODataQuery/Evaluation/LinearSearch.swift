/// Substring search in time linear in the text plus the needle (Knuth–Morris–Pratt), for
/// `contains`, `indexof`, `$search` words and the store's compiled filters: the naive search
/// took minutes on a 30 KB `contains('a…a','a…ab')`.
public enum LinearSearch {
    /// The offset of the first occurrence of `needle` in `hay`, or nil. An empty needle is found
    /// at 0. `equal` decides element equality (it may throw, for ODataValue comparison).
    static func firstOffset<T, E: Error>(of needle: [T], in hay: [T], equal: (T, T) throws(E) -> Bool) throws(E) -> Int? {
        let m = needle.count
        if m == 0 { return 0 }
        guard m <= hay.count else { return nil }
        var failure = [Int](repeating: 0, count: m)
        var k = 0
        for i in 1..<max(m, 1) {
            while k > 0, try !equal(needle[i], needle[k]) { k = failure[k - 1] }
            if try equal(needle[i], needle[k]) { k += 1 }
            failure[i] = k
        }
        var matched = 0
        for (index, element) in hay.enumerated() {
            while matched > 0, try !equal(element, needle[matched]) { matched = failure[matched - 1] }
            if try equal(element, needle[matched]) { matched += 1 }
            if matched == m { return index - m + 1 }
        }
        return nil
    }

    /// The first offset, in Unicode scalars, of `needle` in `text` (ordinal, case-sensitive).
    public static func firstScalarOffset(of needle: String, in text: String) -> Int? {
        Needle(needle.unicodeScalars.map(\.value)).firstOffset(in: text.unicodeScalars.lazy.map(\.value))
    }
}

/// A needle prepared once (its failure table) and searched for in many texts in linear time:
/// a filter's literal is searched for in every row.
public struct Needle<Element: Equatable & Sendable>: Sendable {
    public let elements: [Element]
    /// failure[i]: the length of the longest proper prefix of elements[0...i] that is also its suffix.
    private let failure: [Int]

    public init(_ elements: [Element]) {
        self.elements = elements
        var failure = [Int](repeating: 0, count: elements.count)
        var k = 0
        if elements.count > 1 {
            for i in 1..<elements.count {
                while k > 0, elements[i] != elements[k] { k = failure[k - 1] }
                if elements[i] == elements[k] { k += 1 }
                failure[i] = k
            }
        }
        self.failure = failure
    }

    /// The offset of the first occurrence in `hay`, or nil; an empty needle is found at 0.
    public func firstOffset<C: Sequence>(in hay: C) -> Int? where C.Element == Element {
        let m = elements.count
        if m == 0 { return 0 }
        var matched = 0
        var index = 0
        for element in hay {
            while matched > 0, element != elements[matched] { matched = failure[matched - 1] }
            if element == elements[matched] { matched += 1 }
            if matched == m { return index - m + 1 }
            index += 1
        }
        return nil
    }
}
