/// Byte-level scanning shared by `JSONReader` (whole document) and `JSONStreamReader` (chunks):
/// strings with escapes and UTF-8 validation, numbers, and message helpers.
/// Functions return nil when the buffer ends before the token does ("need more input").
enum JSONScanner {
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C

    // MARK: Strings

    /// Decodes the string whose content starts at `start` (just after the opening quote).
    /// Returns the string and the index just after the closing quote, or nil when the buffer
    /// ends first.
    static func scanString(
        _ buf: UnsafeBufferPointer<UInt8>, from start: Int, scratch: inout [UInt8]
    ) throws(JSONScanFailure) -> (String, Int)? {
        let end = buf.count
        var i = start
        var nonASCII = false
        while true {
            i = skipPlainASCII(buf, from: i)
            guard i < end else { return nil }
            let byte = buf[i]
            if byte == quote {
                let slice = UnsafeBufferPointer(rebasing: buf[start..<i])
                return (try makeString(slice, nonASCII: nonASCII, buf, start, i), i + 1)
            }
            if byte == backslash {
                return try scanEscapedString(buf, from: start, escapeAt: i, nonASCII: nonASCII, scratch: &scratch)
            }
            if byte < 0x20 { throw controlCharacter(byte, at: i) }
            if byte >= 0x80 { nonASCII = true }
            i &+= 1
        }
    }

    /// Like `skipPlainASCII`, but past bytes of 0x80 and above too: the end of the run of bytes
    /// from `from` that are neither a quote, a backslash nor a control character, and whether
    /// the run holds a byte of 0x80 or above (then it is UTF-8 only if `firstInvalidUTF8` finds
    /// nothing in it). Kept apart from `skipPlainASCII`, which the readers call for every key
    /// and number: one function for both, with a flag, measured slower (store-bench worker at
    /// 1M, six alternating runs).
    @inline(__always)
    static func skipPlainBytes(_ buf: UnsafeBufferPointer<UInt8>, from: Int) -> (end: Int, ascii: Bool) {
        let end = buf.count
        var i = from
        var high: UInt64 = 0
        guard let base = buf.baseAddress else { return (i, true) }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* 0x22
        let slashes = ones &* 0x5C
        let spaces = ones &* 0x20
        while i &+ 8 <= end {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let q = word ^ quotes
            let s = word ^ slashes
            // Per byte, its high bit set where the byte is 0 (after the xor) or below 0x20; a
            // byte of 0x80 or above is neither (`& ~x`). Exact up to the first such byte, which
            // is all the loop needs: it stops at that word.
            let flags = (((q &- ones) & ~q) | ((s &- ones) & ~s) | ((word &- spaces) & ~word)) & highs
            if flags != 0 { break }
            high |= word & highs
            i &+= 8
        }
        while i < end {
            let b = buf[i]
            if b == quote || b == backslash || b < 0x20 { break }
            high |= UInt64(b & 0x80)
            i &+= 1
        }
        return (i, high == 0)
    }

    /// The index of the first byte at or after `from` that is not plain ASCII (a quote, a
    /// backslash, a control character or a non-ASCII byte), or `buf.count`. Eight bytes at a
    /// time while none of them is.
    static func skipPlainASCII(_ buf: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        let end = buf.count
        var i = from
        guard let base = buf.baseAddress else { return i }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* 0x22
        let slashes = ones &* 0x5C
        let spaces = ones &* 0x20
        while i &+ 8 <= end {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let q = word ^ quotes
            let s = word ^ slashes
            let flags = ((q &- ones) & ~q) | ((s &- ones) & ~s) | (word &- spaces) | word
            if flags & highs != 0 { break }
            i &+= 8
        }
        while i < end {
            let b = buf[i]
            if b == quote || b == backslash || b < 0x20 || b >= 0x80 { break }
            i &+= 1
        }
        return i
    }

    /// The slow path once a backslash was seen: decodes into `scratch`, copying runs in bulk.
    private static func scanEscapedString(
        _ buf: UnsafeBufferPointer<UInt8>, from start: Int, escapeAt first: Int, nonASCII: Bool,
        scratch: inout [UInt8]
    ) throws(JSONScanFailure) -> (String, Int)? {
        let end = buf.count
        var nonASCII = nonASCII
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buf[start..<first]))
        var i = first
        while i < end {
            let byte = buf[i]
            if byte == quote {
                let string = try scratch.withUnsafeBufferPointer { decoded throws(JSONScanFailure) in
                    try makeString(decoded, nonASCII: nonASCII, buf, start, i)
                }
                return (string, i + 1)
            }
            if byte == backslash {
                guard i + 1 < end else { return nil }
                let escaped = buf[i + 1]
                switch escaped {
                case 0x22, 0x5C, 0x2F: scratch.append(escaped)
                case 0x62: scratch.append(0x08)
                case 0x66: scratch.append(0x0C)
                case 0x6E: scratch.append(0x0A)
                case 0x72: scratch.append(0x0D)
                case 0x74: scratch.append(0x09)
                case 0x75:
                    guard let (scalar, next) = try scanUnicodeEscape(buf, at: i) else { return nil }
                    appendUTF8(scalar, to: &scratch)
                    if scalar >= 0x80 { nonASCII = true }
                    i = next
                    continue
                default:
                    throw JSONScanFailure(
                        .invalidEscape, at: i, "invalid escape \"\\\(describeCharacter(escaped))\" in string")
                }
                i += 2
                continue
            }
            let runStart = i
            while i < end {
                let b = buf[i]
                if b == quote || b == backslash { break }
                if b < 0x20 { throw controlCharacter(b, at: i) }
                if b >= 0x80 { nonASCII = true }
                i += 1
            }
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buf[runStart..<i]))
        }
        return nil
    }

    /// Decodes `\u` and four hex digits (and its low-surrogate partner) at `at`; returns the scalar and the index
    /// after the escape(s), or nil when the buffer ends inside them.
    private static func scanUnicodeEscape(
        _ buf: UnsafeBufferPointer<UInt8>, at: Int
    ) throws(JSONScanFailure) -> (UInt32, Int)? {
        guard let high = try hex4(buf, at: at + 2, escapeAt: at) else { return nil }
        if high >= 0xDC00 && high <= 0xDFFF {
            throw JSONScanFailure(.invalidSurrogate, at: at, "lone low surrogate \\u\(hex(high)) in string")
        }
        guard high >= 0xD800 && high <= 0xDBFF else { return (high, at + 6) }
        let next = at + 6
        let hasBackslash = next < buf.count ? buf[next] == backslash : true
        let hasU = next + 1 < buf.count ? buf[next + 1] == 0x75 : true
        guard hasBackslash && hasU else {
            throw JSONScanFailure(
                .invalidSurrogate, at: at, "lone high surrogate \\u\(hex(high)) not followed by a low surrogate")
        }
        guard let low = try hex4(buf, at: next + 2, escapeAt: next) else { return nil }
        guard low >= 0xDC00 && low <= 0xDFFF else {
            throw JSONScanFailure(
                .invalidSurrogate, at: at,
                "high surrogate \\u\(hex(high)) followed by \\u\(hex(low)), not by a low surrogate")
        }
        return (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), next + 6)
    }

    private static func hex4(
        _ buf: UnsafeBufferPointer<UInt8>, at: Int, escapeAt: Int
    ) throws(JSONScanFailure) -> UInt32? {
        var value: UInt32 = 0
        for k in 0..<4 {
            guard at + k < buf.count else { return nil }
            let b = buf[at + k]
            let digit: UInt32
            switch b {
            case 0x30...0x39: digit = UInt32(b - 0x30)
            case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
            default:
                let shown = String(decoding: UnsafeBufferPointer(rebasing: buf[at..<(at + k + 1)]), as: UTF8.self)
                throw JSONScanFailure(
                    .invalidEscape, at: escapeAt,
                    "invalid escape \"\\u\(escapedForMessage(shown))\": expected four hex digits")
            }
            value = value << 4 | digit
        }
        return value
    }

    private static func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            bytes.append(UInt8(scalar))
        case 0x80..<0x800:
            bytes.append(UInt8(0xC0 | scalar >> 6))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            bytes.append(UInt8(0xE0 | scalar >> 12))
            bytes.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        default:
            bytes.append(UInt8(0xF0 | scalar >> 18))
            bytes.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
            bytes.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Makes the String of decoded content; on invalid UTF-8 reports the first bad byte of the
    /// source range `sourceStart..<sourceEnd` (escapes are ASCII, so they never hide one).
    private static func makeString(
        _ content: UnsafeBufferPointer<UInt8>, nonASCII: Bool,
        _ source: UnsafeBufferPointer<UInt8>, _ sourceStart: Int, _ sourceEnd: Int
    ) throws(JSONScanFailure) -> String {
        guard nonASCII else { return String(decoding: content, as: UTF8.self) }
        // Escapes decode to well-formed UTF-8 and never complete a raw sequence, so the decoded
        // content is valid exactly when the raw source is; check the source to name the byte.
        if let (offset, message) = firstInvalidUTF8(source, from: sourceStart, to: sourceEnd) {
            throw JSONScanFailure(.invalidUTF8, at: offset, message)
        }
        return String(decoding: content, as: UTF8.self)
    }

    /// Finds the closing quote of a string whose content is scanned from `from` (never in the
    /// middle of an escape). Returns the quote's index, or nil and the index to resume from;
    /// `isBroken` when an unescaped control character shows the string is invalid anyway.
    static func findStringEnd(
        _ buf: UnsafeBufferPointer<UInt8>, from: Int
    ) -> (end: Int?, resume: Int, isBroken: Bool) {
        var i = from
        let end = buf.count
        while i < end {
            let b = buf[i]
            if b == quote { return (i, i, false) }
            if b < 0x20 { return (nil, i, true) }
            if b == backslash {
                if i + 1 >= end { return (nil, i, false) }
                i += 2
                continue
            }
            i += 1
        }
        return (nil, end, false)
    }

    // MARK: Comparison

    /// True when `a` and `b` hold the same bytes; eight at a time (the module imports no libc
    /// for `memcmp`).
    static func bytesEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = a.count
        guard count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return true }
        let ra = UnsafeRawPointer(pa)
        let rb = UnsafeRawPointer(pb)
        var i = 0
        while i &+ 8 <= count {
            if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i &+= 8
        }
        while i < count {
            if pa[i] != pb[i] { return false }
            i &+= 1
        }
        return true
    }

    /// True when `string`'s UTF-8 is `bytes`.
    @inline(__always)
    static func utf8(of string: String, equals bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let utf8 = string.utf8
        guard utf8.count == bytes.count else { return false }
        // Native strings are contiguous; a bridged one (never made by the readers) is reported
        // unequal, which only costs a cache miss.
        return utf8.withContiguousStorageIfAvailable { bytesEqual($0, bytes) } ?? false
    }

    // MARK: UTF-8

    /// The first ill-formed UTF-8 sequence in `from..<to` (strict: no overlongs, no surrogates,
    /// nothing above U+10FFFF, no truncation), with a message naming its bytes.
    static func firstInvalidUTF8(
        _ buf: UnsafeBufferPointer<UInt8>, from: Int, to: Int
    ) -> (Int, String)? {
        var i = from
        while i < to {
            let lead = buf[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default:
                return (i, "invalid UTF-8 byte 0x\(hex(UInt32(lead), width: 2))")
            }
            var k = 1
            while k < length {
                guard i + k < to else {
                    return (i, "truncated UTF-8 sequence \(hexBytes(buf, i, i + k))")
                }
                let b = buf[i + k]
                let (lo, hi) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
                guard b >= lo && b <= hi else {
                    return (i, "invalid UTF-8 sequence \(hexBytes(buf, i, i + k + 1))")
                }
                k += 1
            }
            i += length
        }
        return nil
    }

    // MARK: Numbers

    /// Scans an RFC 8259 number starting at `start`; returns the index after it. When the buffer
    /// ends where the number could go on, returns nil unless `isFinal`.
    static func scanNumber(
        _ buf: UnsafeBufferPointer<UInt8>, from start: Int, isFinal: Bool
    ) throws(JSONScanFailure) -> Int? {
        let end = buf.count
        var i = start
        @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
        if i < end && buf[i] == 0x2D { i += 1 }
        guard i < end else {
            if !isFinal { return nil }
            throw JSONScanFailure(.invalidNumber, at: start, "invalid number: expected a digit after '-'")
        }
        if buf[i] == 0x30 {
            i += 1
            if i < end && isDigit(buf[i]) {
                throw JSONScanFailure(.invalidNumber, at: start, "invalid number: leading zero")
            }
        } else if isDigit(buf[i]) {
            i += 1
            while i < end && isDigit(buf[i]) { i += 1 }
        } else {
            throw JSONScanFailure(.invalidNumber, at: start, "invalid number: expected a digit after '-'")
        }
        if i == end { return isFinal ? i : nil }
        if buf[i] == 0x2E {
            i += 1
            guard i < end else {
                if !isFinal { return nil }
                throw JSONScanFailure(.invalidNumber, at: start, "invalid number: expected a digit after '.'")
            }
            guard isDigit(buf[i]) else {
                throw JSONScanFailure(.invalidNumber, at: start, "invalid number: expected a digit after '.'")
            }
            while i < end && isDigit(buf[i]) { i += 1 }
            if i == end { return isFinal ? i : nil }
        }
        if buf[i] == 0x65 || buf[i] == 0x45 {
            i += 1
            if i < end && (buf[i] == 0x2B || buf[i] == 0x2D) { i += 1 }
            guard i < end else {
                if !isFinal { return nil }
                throw JSONScanFailure(.invalidNumber, at: start, "invalid number: expected a digit in the exponent")
            }
            guard isDigit(buf[i]) else {
                throw JSONScanFailure(.invalidNumber, at: start, "invalid number: expected a digit in the exponent")
            }
            while i < end && isDigit(buf[i]) { i += 1 }
            if i == end { return isFinal ? i : nil }
        }
        return i
    }

    // MARK: Messages

    static func controlCharacter(_ byte: UInt8, at offset: Int) -> JSONScanFailure {
        JSONScanFailure(
            .controlCharacter, at: offset,
            "unescaped control character U+\(hex(UInt32(byte))) in string")
    }

    /// `'x'` for printable ASCII, else `byte 0xNN`.
    static func describeByte(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(hex(UInt32(byte), width: 2))"
    }

    /// The character for printable ASCII, else `\u{NN}`-style hex.
    static func describeCharacter(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return String(Character(Unicode.Scalar(byte))) }
        return "x\(hex(UInt32(byte), width: 2))"
    }

    /// Text made safe for a one-line message: quotes, backslashes and control characters
    /// escaped, cut at 40 characters.
    static func escapedForMessage(_ text: String) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == 40 {
                result += "…"
                break
            }
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u\(hex(scalar.value))"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
            count += 1
        }
        return result
    }

    /// Up to 20 bytes of the input at `offset`, up to the end of the line, for a message.
    static func snippet(_ buf: UnsafeBufferPointer<UInt8>, at offset: Int) -> String {
        guard offset >= 0 && offset < buf.count else { return "" }
        var end = offset
        while end < buf.count && end - offset < 20 && buf[end] != 0x0A && buf[end] != 0x0D { end += 1 }
        return escapedForMessage(String(decoding: UnsafeBufferPointer(rebasing: buf[offset..<end]), as: UTF8.self))
    }

    static func hex(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func hexBytes(_ buf: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        buf[from..<min(to, buf.count)].map { "0x" + hex(UInt32($0), width: 2) }.joined(separator: " ")
    }
}
