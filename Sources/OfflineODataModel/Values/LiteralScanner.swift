/// A cursor over UTF-8 bytes of a literal; every read is bounds-checked and failures throw
/// `invalidLiteral` naming the whole text and the byte offset.
///
/// The bytes are the text's own (see `reading`): a copy into an array cost an allocation per
/// date or time read, about 2 % of reading a page of entities.
struct LiteralScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    /// The literal, for error messages (made only when one is thrown).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Runs `body` with a scanner over the UTF-8 of `text`, valid only during the call.
    static func reading<Result>(
        _ text: String, _ body: (inout LiteralScanner) throws(ODataError) -> Result
    ) throws(ODataError) -> Result {
        var utf8 = text
        let result = utf8.withUTF8 { bytes in
            Swift.Result { () throws(ODataError) -> Result in
                var scanner = LiteralScanner(bytes: bytes)
                return try body(&scanner)
            }
        }
        return try result.get()
    }

    /// A scanner over UTF-8 bytes the caller holds (a downloaded page's string, read in place).
    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    func fail(_ reason: String) -> ODataError { .valueInvalidLiteral(text, reason, offset: index) }

    /// Takes `char` (ASCII) when it is next. A `Unicode.Scalar` rather than a `Character`:
    /// `Character.asciiValue` is String processing, and these calls are most of the cost of
    /// reading a date or time.
    @inline(__always)
    mutating func consume(_ char: Unicode.Scalar) -> Bool {
        guard char.isASCII, peek == UInt8(truncatingIfNeeded: char.value) else { return false }
        index += 1
        return true
    }

    mutating func expect(_ char: Unicode.Scalar) throws(ODataError) {
        guard consume(char) else { throw fail("expected '\(char)'") }
    }

    /// Exactly `count` ASCII digits as a number.
    mutating func fixedDigits(_ count: Int, _ what: String) throws(ODataError) -> Int {
        var value = 0
        for _ in 0..<count {
            guard let digit = peek?.literalDigit else { throw fail("expected \(count) digits for \(what)") }
            value = value * 10 + Int(digit)
            index += 1
        }
        return value
    }

    /// One or more digits as an unsigned number, throwing `overflow` past `limit`.
    mutating func digits(upTo limit: UInt64, _ what: String) throws(ODataError) -> UInt64 {
        let start = index
        var value: UInt64 = 0
        while let digit = peek?.literalDigit {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2, sum <= limit else { throw .valueOutOfRange(text, what) }
            value = sum
            index += 1
        }
        guard index > start else { throw fail("expected digits for \(what)") }
        return value
    }

    /// `1*12DIGIT` fractional seconds as picoseconds.
    mutating func fractionPicoseconds() throws(ODataError) -> Int64 {
        let start = index
        var value: Int64 = 0
        while let digit = peek?.literalDigit {
            guard index - start < 12 else { throw fail("more than 12 fractional-second digits") }
            value = value * 10 + Int64(digit)
            index += 1
        }
        let count = index - start
        guard count > 0 else { throw fail("expected fractional-second digits") }
        for _ in count..<12 { value *= 10 }
        return value
    }

    func requireEnd() throws(ODataError) {
        guard atEnd else { throw fail("unexpected character") }
    }
}
