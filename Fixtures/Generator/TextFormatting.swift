/// Small text helpers: ASCII folding for e-mail addresses and domains,
/// UUID formatting and FNV-1a hashing.
enum TextFormatting {
    private static let folds: [Unicode.Scalar: String] = [
        "ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "ae", "Ö": "oe", "Ü": "ue",
        "ø": "oe", "Ø": "oe", "å": "aa", "Å": "aa", "æ": "ae", "Æ": "ae",
        "á": "a", "à": "a", "â": "a", "ã": "a", "Á": "a", "Ā": "a", "ā": "a",
        "é": "e", "è": "e", "ê": "e", "ë": "e", "É": "e", "È": "e",
        "í": "i", "ì": "i", "î": "i", "ï": "i", "Í": "i",
        "ó": "o", "ò": "o", "ô": "o", "õ": "o", "Ó": "o", "ō": "o", "Ō": "o",
        "ú": "u", "ù": "u", "û": "u", "Ú": "u", "ū": "u",
        "ñ": "n", "Ñ": "n", "ç": "c", "Ç": "c", "ł": "l", "Ł": "l", "ś": "s", "Ś": "s",
        "ń": "n", "ź": "z", "ż": "z", "Ż": "z", "ę": "e", "ą": "a", "ć": "c", "ý": "y", "č": "c",
    ]

    /// Lower-case ASCII letters and digits of `text`, with accented letters folded
    /// (`Müller` → `mueller`, `Søren` → `soeren`) and everything else dropped (`O'Neil` → `oneil`).
    static func asciiSlug(_ text: String) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                let value = UInt8(truncatingIfNeeded: scalar.value)
                switch value {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    result.append(value)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    result.append(value + 32)
                default:
                    break
                }
            } else if let folded = folds[scalar] {
                result.append(contentsOf: folded.utf8)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Sixteen bytes shaped like a random (version 4, RFC 4122 variant) UUID. `high` is kept
    /// whole (bytes 0–5, 7 and 9), so distinct `high` values give distinct UUIDs; `low` fills
    /// the rest around the version and variant bits. Layout: Fixtures/README.md, "Key layout".
    static func uuidBytes(high: UInt64, low: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        for position in 0..<6 {
            bytes[position] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(position)))
        }
        bytes[6] = 0x40 | UInt8(truncatingIfNeeded: low & 0x0F)
        bytes[7] = UInt8(truncatingIfNeeded: high >> 8)
        bytes[8] = 0x80 | UInt8(truncatingIfNeeded: (low >> 4) & 0x3F)
        bytes[9] = UInt8(truncatingIfNeeded: high)
        for position in 10..<16 {
            bytes[position] = UInt8(truncatingIfNeeded: low >> (16 + 8 * UInt64(position - 10)))
        }
        return bytes
    }

    private static let hexBytes: [UInt8] = Array("0123456789abcdef".utf8)

    /// Lower-case `8-4-4-4-12` text of 16 bytes.
    static func uuidText(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (position, byte) in bytes.enumerated() {
            if position == 4 || position == 6 || position == 8 || position == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hexBytes[Int(byte >> 4)])
            text.append(hexBytes[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// 16 lower-case hex digits.
    static func hex64(_ value: UInt64) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(16)
        for shift in stride(from: 60, through: 0, by: -4) {
            text.append(hexBytes[Int((value >> UInt64(shift)) & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// FNV-1a, 64 bit.
    static func fnv1a<C: Collection<UInt8>>(_ bytes: C) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        CivilTime.pad(value, width)
    }
}
