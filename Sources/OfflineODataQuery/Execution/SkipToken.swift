import OfflineODataModel

/// The opaque `$skiptoken` of server-driven paging (docs/QueryExecution.md §4): where the
/// previous page ended — the `$orderby` values and the primary key of its last entity — plus
/// a fingerprint of the request it belongs to, so a token used with another query, a different
/// `$orderby`, or edited by hand is rejected instead of silently returning wrong rows.
///
/// Bytes (then base64url without padding): `0x01` (format version), 4-byte little-endian
/// FNV-1a fingerprint of the request shape, then `OrderedKeyEncoding` of the sort values
/// followed by the key values, then a 4-byte FNV-1a of everything before it.
public struct SkipToken: Sendable, Hashable {
    public static let formatVersion: UInt8 = 1

    /// `$orderby` values of the last entity of the page, then its key values.
    public var position: [ODataValue]
    public var fingerprint: UInt32

    public init(position: [ODataValue], fingerprint: UInt32) {
        self.position = position
        self.fingerprint = fingerprint
    }

    /// A fingerprint of the parts of a request that decide the order and the membership of
    /// rows: resource path, filter, search, orderby (their canonical text).
    public static func fingerprint(of parts: [String]) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for part in parts {
            for byte in part.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
            hash = (hash ^ 0xFF) &* 0x0100_0193
        }
        return hash
    }

    public func encoded() throws(ODataError) -> String {
        var bytes: [UInt8] = [Self.formatVersion]
        Self.appendUInt32(fingerprint, to: &bytes)
        bytes += try OrderedKeyEncoding.encode(position)
        Self.appendUInt32(Self.fingerprint(bytes: bytes), to: &bytes)
        return Base64URL.encode(bytes)
    }

    /// Decodes a token and checks it belongs to the request with `expectedFingerprint`.
    public static func decode(_ text: String, expectedFingerprint: UInt32) throws(ODataError) -> SkipToken {
        guard let bytes = Base64URL.decode(text), bytes.count >= 9 else {
            throw .invalidSkipToken("'\(text.prefix(40))' is not a skip token issued by this store")
        }
        let body = Array(bytes[..<(bytes.count - 4)])
        guard readUInt32(bytes, at: bytes.count - 4) == fingerprint(bytes: body) else {
            throw .invalidSkipToken("the skip token is damaged (checksum mismatch)")
        }
        guard bytes[0] == formatVersion else {
            throw .invalidSkipToken("skip token format \(bytes[0]) is not supported")
        }
        let fingerprint = readUInt32(bytes, at: 1)
        guard fingerprint == expectedFingerprint else {
            throw .invalidSkipToken("the skip token belongs to a different request (other path, $filter, $search or $orderby)")
        }
        let position: [ODataValue]
        do {
            position = try OrderedKeyEncoding.decode(Array(body[5...]))
        } catch {
            throw .invalidSkipToken("the skip token's position does not decode: \(error.message)")
        }
        return SkipToken(position: position, fingerprint: fingerprint)
    }

    static func fingerprint(bytes: [UInt8]) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return hash
    }

    static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[offset + i]) << UInt32(8 * i) }
        return value
    }
}

/// RFC 4648 §5 base64url without padding (URL-safe: no `+`, `/`, `=`, `&`).
enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int((n >> UInt32(shift)) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let n = UInt32(bytes[index]) << 16
            for shift in [18, 12] { out.append(alphabet[Int((n >> UInt32(shift)) & 63)]) }
        } else if rest == 2 {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            for shift in [18, 12, 6] { out.append(alphabet[Int((n >> UInt32(shift)) & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt32] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(UInt32(byte - UInt8(ascii: "A")))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(UInt32(byte - UInt8(ascii: "a")) + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(UInt32(byte - UInt8(ascii: "0")) + 52)
            case UInt8(ascii: "-"): values.append(62)
            case UInt8(ascii: "_"): values.append(63)
            default: return nil
            }
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var index = 0
        while index + 4 <= values.count {
            let n = values[index] << 18 | values[index + 1] << 12 | values[index + 2] << 6 | values[index + 3]
            out += [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            index += 4
        }
        let rest = values.count - index
        // Canonical form only: the unused low bits of the last character must be zero, so each
        // byte string has exactly one text.
        if rest == 2 {
            guard values[index + 1] & 0x0F == 0 else { return nil }
            let n = values[index] << 18 | values[index + 1] << 12
            out.append(UInt8(n >> 16 & 0xFF))
        } else if rest == 3 {
            guard values[index + 2] & 0x03 == 0 else { return nil }
            let n = values[index] << 18 | values[index + 1] << 12 | values[index + 2] << 6
            out += [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF)]
        }
        return out
    }
}
