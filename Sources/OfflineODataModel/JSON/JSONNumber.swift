/// A JSON number kept as its exact literal text.
///
/// The reader never converts numbers: `2296.90`, `14.0000`, `1e400`, `-0` and 19-digit integers
/// keep every character, so an `Edm.Decimal` or `Edm.Int64` can be read without loss by the
/// OData layer. Equality is textual: `1.0` and `1.00` are different numbers here.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal exactly as it appeared in (or will be written to) the document.
    public let text: String

    /// Wraps text already known to match the RFC 8259 number grammar.
    init(unchecked text: String) {
        self.text = text
    }

    /// Validates `text` against the RFC 8259 number grammar
    /// (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`).
    /// - Throws: `jsonInvalidNumber` (1203) naming the text.
    public init(validating text: String) throws(ODataError) {
        var copy = text
        let valid = copy.withUTF8 { bytes -> Bool in
            guard !bytes.isEmpty else { return false }
            do {
                let end = try JSONScanner.scanNumber(bytes, from: 0, isFinal: true)
                return end == bytes.count
            } catch {
                return false
            }
        }
        guard valid else {
            throw JSONErrorKind.invalidNumber.error(
                "\"\(JSONScanner.escapedForMessage(text))\" is not a valid JSON number")
        }
        self.text = text
    }

    /// The number of an integer.
    public init(_ value: Int64) { text = String(value) }

    /// The number of an integer.
    public init(_ value: Int) { text = String(value) }

    /// The shortest text that reads back as `value`; nil for NaN and ±infinity, which JSON
    /// cannot represent.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        text = value.description
    }

    /// True when the literal has neither a fraction nor an exponent (`12`, `-0`, `12345678901234567890`).
    public var isInteger: Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The exact value when the literal is an integer (see `isInteger`) within Int64's range,
    /// else nil. `1.0` and `1e2` give nil: they are not integer literals.
    public var int64Value: Int64? {
        guard isInteger else { return nil }
        return Int64(text)
    }

    /// The nearest Double, or nil when the literal overflows Double's range (`1e400`).
    /// Tiny values underflow to ±0 as IEEE 754 prescribes.
    public var doubleValue: Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    public var description: String { text }
}
