import OfflineODataModel

/// Percent-decoding of one query option name or value, or one path segment (URL §2.1): each
/// `%XX` becomes its byte exactly once; the result must be UTF-8. Offsets of `;` that were
/// written as `%3B` are kept (they are data, not nested-option separators).
struct PercentDecoded {
    var bytes: [UInt8]
    var encodedSemicolons: Set<Int>

    init<C: Collection>(_ raw: C, label: String) throws(ODataError) where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var semicolons = Set<Int>()
        var index = raw.startIndex
        var offset = 0
        while index != raw.endIndex {
            let c = raw[index]
            if c == UInt8(ascii: "%") {
                let first = raw.index(after: index)
                guard first != raw.endIndex, raw.index(after: first) != raw.endIndex,
                      let high = URLPercentEncoding.hexValue(raw[first]), let low = URLPercentEncoding.hexValue(raw[raw.index(after: first)]) else {
                    throw ODataError.syntax(.invalidPercentEncoding,
                                            "'%' must be followed by two hexadecimal digits in \(ODataError.syntaxClip(String(decoding: raw, as: UTF8.self)))",
                                            option: label, position: offset)
                }
                let value = high << 4 | low
                if value == UInt8(ascii: ";") { semicolons.insert(out.count) }
                out.append(value)
                index = raw.index(index, offsetBy: 3)
                offset += 3
            } else {
                out.append(c)
                index = raw.index(after: index)
                offset += 1
            }
        }
        guard String(validating: out, as: UTF8.self) != nil else {
            throw ODataError.syntax(.invalidPercentEncoding, "the percent-decoded text is not valid UTF-8",
                                    option: label, position: 0)
        }
        bytes = out
        encodedSemicolons = semicolons
    }
}
