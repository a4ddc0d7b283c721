/// Finds where components of an ordered key end without decoding them (the format of
/// docs/EntityEncoding.md §1), to split an index key into its values and the primary key.
enum OrderedKeySkipper {
    /// The offset just after the component that starts at `start`; nil when malformed.
    static func skip(_ b: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var p = start
        func need(_ n: Int) -> Bool { p + n <= b.count }
        func escaped() -> Bool {
            while p < b.count {
                let byte = b[p]
                p += 1
                if byte == 0 {
                    guard p < b.count else { return false }
                    let next = b[p]
                    p += 1
                    if next == 0x01 { return true }
                    if next != 0xFF { return false }
                }
            }
            return false
        }
        guard need(1) else { return nil }
        let tag = b[p]
        p += 1
        switch tag {
        case 0x01: return p
        case 0x10: return need(1) ? p + 1 : nil
        case 0x20:
            guard need(1) else { return nil }
            let valueClass = b[p]
            p += 1
            if valueClass == 0x02 || valueClass == 0x04 {
                let terminator: UInt8 = valueClass == 0x02 ? 0xFF : 0x00
                guard need(2) else { return nil }
                p += 2
                while true {
                    guard p < b.count else { return nil }
                    let byte = b[p]
                    p += 1
                    if byte == terminator { break }
                }
            }
            guard need(1) else { return nil }
            let kind = b[p]
            p += 1
            switch kind {
            case 1...5: return p
            case 6: return need(2) ? p + 2 : nil
            case 7, 8: return need(1) ? p + 1 : nil
            default: return nil
            }
        case 0x30, 0x40: return escaped() ? p : nil
        case 0x50: return need(16) ? p + 16 : nil
        case 0x60: return need(6) ? p + 6 : nil
        case 0x70: return need(16) ? p + 16 : nil
        case 0x80: return need(9) ? p + 9 : nil
        case 0x90: return need(14) ? p + 14 : nil
        case 0xA0:
            guard need(1) else { return nil }
            let numberFlag = b[p]
            p += 1
            if numberFlag == 0x01 { guard need(8) else { return nil }; p += 8 } else if numberFlag != 0x02 { return nil }
            guard need(1) else { return nil }
            let typeFlag = b[p]
            p += 1
            if typeFlag == 1 { guard escaped() else { return nil } } else if typeFlag != 0 { return nil }
            return escaped() ? p : nil
        case 0xB0:
            guard escaped(), escaped() else { return nil }
            return p
        default: return nil
        }
    }

    /// The offset after `count` components.
    static func skip(_ bytes: [UInt8], components count: Int) -> Int? {
        bytes.withUnsafeBytes { skip($0, components: count) }
    }

    /// The same on borrowed bytes.
    static func skip(_ b: UnsafeRawBufferPointer, components count: Int) -> Int? {
        var p = 0
        for _ in 0..<count {
            guard let next = skip(b, from: p) else { return nil }
            p = next
        }
        return p
    }
}
