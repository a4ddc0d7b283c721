import OfflineODataModel

/// The control links of one downloaded page, read without decoding its entities (the store
/// decodes them once, when it applies the page): `@odata.nextLink` / `@odata.deltaLink` (and the
/// 4.01 short forms) at the top level, V2's `__next` / `__delta` inside `d`. The scan also
/// checks the page's shape: a JSON object with a `value` array (V4) or `d` holding `results` or
/// an array (V2), complete to its last byte. Anything else is `invalidPayload` with the offset.
struct PageScan {
    var nextLink: String?
    var deltaLink: String?
    var hasCollection = false

    static func scan(_ bytes: [UInt8], what: String) throws(ODataError) -> PageScan {
        var scanner = Scanner(bytes: bytes, what: what)
        var result = PageScan()
        try scanner.skipSpace()
        try scanner.object { (key, scanner) throws(ODataError) in
            switch key {
            case "@odata.nextLink", "@nextLink", "odata.nextLink": result.nextLink = try scanner.string()
            case "@odata.deltaLink", "@deltaLink", "odata.deltaLink": result.deltaLink = try scanner.string()
            case "value":
                guard scanner.peek == UInt8(ascii: "[") else { throw scanner.fail("'value' is not an array") }
                result.hasCollection = true
                try scanner.skipValue()
            case "d":
                if scanner.peek == UInt8(ascii: "[") {
                    result.hasCollection = true
                    try scanner.skipValue()
                } else {
                    try scanner.object { (inner, scanner) throws(ODataError) in
                        switch inner {
                        case "__next": result.nextLink = try scanner.string()
                        case "__delta": result.deltaLink = try scanner.string()
                        case "results":
                            guard scanner.peek == UInt8(ascii: "[") else { throw scanner.fail("'d.results' is not an array") }
                            result.hasCollection = true
                            try scanner.skipValue()
                        default: try scanner.skipValue()
                        }
                    }
                }
            default: try scanner.skipValue()
            }
        }
        try scanner.skipSpace()
        guard scanner.atEnd else { throw scanner.fail("text after the end of the JSON object") }
        guard result.hasCollection else { throw scanner.fail("no 'value' array (V4) or 'd.results' (V2): not an OData collection") }
        return result
    }

    struct Scanner {
        let bytes: [UInt8]
        let what: String
        var pos = 0

        init(bytes: [UInt8], what: String) {
            self.bytes = bytes
            self.what = what
        }

        var atEnd: Bool { pos >= bytes.count }
        var peek: UInt8? { pos < bytes.count ? bytes[pos] : nil }

        func fail(_ message: String) -> ODataError {
            let shown = bytes.isEmpty ? "an empty body" : "byte \(pos) of \(bytes.count)"
            return SyncErrorCode.invalidPayload.error("\(what): \(message) (\(shown))", at: "offset \(pos)")
        }

        mutating func skipSpace() throws(ODataError) {
            while let c = peek, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { pos += 1 }
        }

        mutating func expect(_ c: UInt8, _ what: String) throws(ODataError) {
            try skipSpace()
            guard peek == c else { throw atEnd ? fail("the body ends before \(what) (truncated)") : fail("expected \(what)") }
            pos += 1
        }

        /// Members of the object at the cursor; `body` reads or skips each value.
        mutating func object(_ body: (String, inout Scanner) throws(ODataError) -> Void) throws(ODataError) {
            try expect(UInt8(ascii: "{"), "'{'")
            try skipSpace()
            if peek == UInt8(ascii: "}") {
                pos += 1
                return
            }
            while true {
                try skipSpace()
                let key = try string()
                try expect(UInt8(ascii: ":"), "':'")
                try skipSpace()
                try body(key, &self)
                try skipSpace()
                guard let c = peek else { throw fail("the body ends inside an object (truncated)") }
                pos += 1
                if c == UInt8(ascii: "}") { return }
                guard c == UInt8(ascii: ",") else {
                    pos -= 1
                    throw fail("expected ',' or '}'")
                }
            }
        }

        /// A JSON string at the cursor, unescaped by the model's strict JSON reader (its escapes,
        /// surrogate pairs and UTF-8 checks).
        mutating func string() throws(ODataError) -> String {
            try skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw atEnd ? fail("the body ends before a string (truncated)") : fail("expected a string") }
            let start = pos
            try skipString()
            let value: JSONValue
            do {
                value = try JSONReader.parse(Array(bytes[start..<pos]))
            } catch {
                pos = start
                throw fail("an invalid string: \(error.message)")
            }
            guard let text = value.stringValue else { throw fail("expected a string") }
            return text
        }

        /// Skips one JSON value at the cursor: strings with their escapes, nested objects and
        /// arrays by depth, literals and numbers to the next delimiter. Checks nesting, not
        /// every token (the store's reader checks the entities).
        mutating func skipValue() throws(ODataError) {
            try skipSpace()
            guard let first = peek else { throw fail("the body ends before a value (truncated)") }
            switch first {
            case UInt8(ascii: "\""):
                _ = try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                try skipContainer()
            default:
                let start = pos
                while let c = peek, c != UInt8(ascii: ","), c != UInt8(ascii: "}"), c != UInt8(ascii: "]"),
                      c != 0x20, c != 0x0A, c != 0x0D, c != 0x09 {
                    pos += 1
                }
                guard pos > start else { throw fail("expected a value") }
                if atEnd { throw fail("the body ends after a value (truncated)") }
            }
        }

        /// Skips the object or array at the cursor, by depth, in one pass over the borrowed bytes
        /// (a page is almost all of its `value` array: at 1M entities, indexing the array byte
        /// by byte through `peek` was a tenth of the receiving thread's samples, perf).
        mutating func skipContainer() throws(ODataError) {
            // The closing bracket expected at each open level; `depth` levels are open.
            var stack = [UInt8](repeating: 0, count: 64)
            var depth = 0
            let start = pos
            // (end position, error: 0 none, 1 truncated, 2 a close that closes nothing open,
            // 3 truncated inside a string)
            let (end, problem): (Int, Int) = bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return (0, 1) }
                var i = start
                let n = buffer.count
                while i < n {
                    let c = base[i]
                    if c == 0x22 {
                        // A string: to its closing quote, escapes skipped, eight bytes at a time
                        // (strings are most of a page's bytes, and most are short).
                        guard let close = Self.stringEnd(base, from: i + 1, count: n) else { return (n, 3) }
                        i = close
                    } else if c == 0x7B || c == 0x5B {
                        if depth == stack.count { stack.append(0) }
                        stack[depth] = c + 2    // '{' + 2 = '}', '[' + 2 = ']'
                        depth += 1
                    } else if c == 0x7D || c == 0x5D {
                        guard depth > 0, stack[depth - 1] == c else { return (i, 2) }
                        depth -= 1
                        if depth == 0 { return (i + 1, 0) }
                    }
                    i += 1
                }
                return (n, 1)
            }
            pos = min(end, bytes.count)
            switch problem {
            case 0: return
            case 2: throw fail("a '\(Character(Unicode.Scalar(bytes[pos])))' that closes nothing open")
            case 3: throw fail("the body ends inside a string (truncated)")
            default: throw fail("the body ends inside \(depth > 0 && stack[depth - 1] == UInt8(ascii: "}") ? "an object" : "an array") (truncated)")
            }
        }

        /// The index of the quote that closes a string whose content starts at `from`, nil
        /// when the bytes end first. Words of eight bytes are tested for a quote or a backslash
        /// at once (the lowest flagged byte of the usual zero-byte test is exact).
        @inline(__always)
        static func stringEnd(_ base: UnsafePointer<UInt8>, from start: Int, count n: Int) -> Int? {
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            let quotes = ones &* 0x22, backslashes = ones &* 0x5C
            let raw = UnsafeRawPointer(base)
            var j = start
            while true {
                while j + 8 <= n {
                    let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: j, as: UInt64.self))
                    let q = word ^ quotes, b = word ^ backslashes
                    let hits = ((q &- ones) & ~q | (b &- ones) & ~b) & highs
                    if hits == 0 {
                        j += 8
                        continue
                    }
                    j += hits.trailingZeroBitCount >> 3
                    break
                }
                while j < n, base[j] != 0x22, base[j] != 0x5C { j += 1 }
                guard j < n else { return nil }
                if base[j] == 0x22 { return j }
                j += 2    // an escape: the backslash and the byte it escapes
            }
        }

        /// Skips a string (cursor on its opening quote).
        mutating func skipString() throws(ODataError) {
            pos += 1
            while let c = peek {
                pos += 1
                if c == UInt8(ascii: "\"") { return }
                if c == UInt8(ascii: "\\") {
                    guard !atEnd else { break }
                    pos += 1
                }
            }
            throw fail("the body ends inside a string (truncated)")
        }
    }
}
