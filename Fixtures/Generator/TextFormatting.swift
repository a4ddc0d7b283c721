/// Small text helpers: pattern filling, ASCII folding for e-mail addresses and domains,
/// UUID formatting and FNV-1a hashing.
enum TextFormatting {
    /// Replaces every `#` in `pattern` with a random digit and every `@` with a digit 2–9
    /// (North American area codes and exchanges never start with 0 or 1).
    static func fill(_ pattern: String, _ rng: inout SplitMix64) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(pattern.unicodeScalars.count)
        for scalar in pattern.unicodeScalars {
            if scalar == "#" {
                result.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "0") + UInt8(rng.int(below: 10))))
            } else if scalar == "@" {
                result.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "2") + UInt8(rng.int(below: 8))))
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

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
        var result = ""
        for scalar in text.unicodeScalars {
            if let folded = folds[scalar] {
                result += folded
            } else if scalar.isASCII {
                let value = UInt8(truncatingIfNeeded: scalar.value)
                switch value {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    result.unicodeScalars.append(scalar)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    result.unicodeScalars.append(Unicode.Scalar(value + 32))
                default:
                    break
                }
            }
        }
        return result
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

    private static let hex: [Character] = Array("0123456789abcdef")

    /// Lower-case `8-4-4-4-12` text of 16 bytes.
    static func uuidText(_ bytes: [UInt8]) -> String {
        var text = ""
        text.reserveCapacity(36)
        for (position, byte) in bytes.enumerated() {
            if position == 4 || position == 6 || position == 8 || position == 10 { text.append("-") }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return text
    }

    /// 16 lower-case hex digits.
    static func hex64(_ value: UInt64) -> String {
        var text = ""
        text.reserveCapacity(16)
        for shift in stride(from: 60, through: 0, by: -4) {
            text.append(hex[Int((value >> UInt64(shift)) & 0x0F)])
        }
        return text
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
