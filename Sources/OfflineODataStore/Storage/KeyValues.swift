import OfflineODataModel

/// Key and index values before encoding (docs/StoreFormat.md §6): every value is brought to its
/// declared kind and to one canonical representation, so that equal values give equal bytes:
/// Int64 5 for an Int32 column becomes Int32 5, decimals lose trailing fraction zeros, instants
/// are shown in UTC, -0.0 becomes 0.0.
enum KeyValues {
    /// The value as `kind` (nil kind: enum/untyped, only canonicalized), or nil when it cannot be
    /// represented exactly in that kind (5.5 as Int32, a string as Int32).
    static func normalize(_ value: ODataValue, to kind: EdmPrimitiveKind?) -> ODataValue? {
        if value.isNull { return .null }
        guard let kind, kind != .untyped else { return canonical(value) }
        if value.kind == kind { return canonical(value) }
        guard value.isNumeric else { return nil }
        switch kind {
        case .byte: return integer(value).flatMap { UInt8(exactly: $0) }.map { .byte($0) }
        case .sbyte: return integer(value).flatMap { Int8(exactly: $0) }.map { .sbyte($0) }
        case .int16: return integer(value).flatMap { Int16(exactly: $0) }.map { .int16($0) }
        case .int32: return integer(value).flatMap { Int32(exactly: $0) }.map { .int32($0) }
        case .int64: return integer(value).map { .int64($0) }
        case .decimal: return decimal(value).map { .decimal($0.normalized) }
        case .double: return double(value).map { canonical(.double($0)) }
        case .single:
            guard let d = double(value), let f = Float(exactly: d) else { return nil }
            return canonical(.single(f))
        default: return nil
        }
    }

    /// One representation per value (decimal scale, UTC, positive zero).
    static func canonical(_ value: ODataValue) -> ODataValue {
        switch value {
        case .decimal(let d): return .decimal(d.normalized)
        case .dateTimeOffset(let t): return .dateTimeOffset(t.utc)
        case .double(let d): return d == 0 ? .double(0) : value
        case .single(let f): return f == 0 ? .single(0) : value
        default: return value
        }
    }

    static func integer(_ value: ODataValue) -> Int64? {
        switch value {
        case .byte(let v): return Int64(v)
        case .sbyte(let v): return Int64(v)
        case .int16(let v): return Int64(v)
        case .int32(let v): return Int64(v)
        case .int64(let v): return v
        case .decimal(let d): return d.int64Value
        case .single(let f): return Int64(exactly: f)
        case .double(let d): return Int64(exactly: d)
        default: return nil
        }
    }

    static func decimal(_ value: ODataValue) -> EdmDecimal? {
        if let i = integer(value), !(value.isFloating) { return EdmDecimal(i) }
        switch value {
        case .decimal(let d): return d
        case .single(let f): return EdmDecimal(exactly: Double(f))
        case .double(let d): return EdmDecimal(exactly: d)
        default: return nil
        }
    }

    static func double(_ value: ODataValue) -> Double? {
        switch value {
        case .double(let d): return d
        case .single(let f): return Double(f)
        case .decimal(let d):
            let x = d.doubleValue
            guard let back = EdmDecimal(exactly: x), back == d else { return nil }
            return x
        default: return integer(value).flatMap { Double(exactly: $0) }
        }
    }

    static func describe(_ value: ODataValue) -> String {
        if value.isNull { return "null" }
        if let kind = value.kind { return kind.rawValue }
        switch value {
        case .enumValue: return "an enum value"
        case .complex: return "a complex value"
        case .collection: return "a collection"
        default: return "a value"
        }
    }
}

extension ODataValue {
    var isFloating: Bool {
        switch self {
        case .single, .double: return true
        default: return false
        }
    }
}

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
        bytes.withUnsafeBytes { b in
            var p = 0
            for _ in 0..<count {
                guard let next = skip(b, from: p) else { return nil }
                p = next
            }
            return p
        }
    }
}
