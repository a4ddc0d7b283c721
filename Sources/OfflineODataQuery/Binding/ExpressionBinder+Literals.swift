import OfflineODataModel

/// Literal typing and exact conversions (docs/Query.md §2.3).
extension ExpressionBinder {
    func bindLiteral(_ value: ODataValue, at position: Int) throws(ODataError) -> BoundExpr {
        if case .enumValue(let enumValue) = value {
            let resolved = try resolveEnum(enumValue, typeName: enumValue.typeName, at: position)
            return BoundExpr(.literal(.enumValue(resolved)), type: .enumeration(resolved.typeName ?? ""), at: position)
        }
        return BoundExpr(.literal(value), type: Self.type(of: value), at: position)
    }

    /// A JSON array literal becomes a collection literal (only scalars are supported).
    func bindJSON(_ json: JSONValue, at position: Int) throws(ODataError) -> BoundExpr {
        guard case .array(let elements) = json else {
            throw .bindNotSupported("a JSON object literal", at: position)
        }
        var values: [ODataValue] = []
        var elementType: BoundType = .null
        for element in elements {
            let value: ODataValue
            switch element {
            case .null: value = .null
            case .bool(let flag): value = .boolean(flag)
            case .string(let text): value = .string(text)
            case .number(let number):
                value = try ODataValue.inferLiteral(number.text)
            case .array, .object:
                throw .bindNotSupported("a nested JSON literal", at: position)
            }
            elementType = try commonType(elementType, Self.type(of: value), at: position, what: "JSON array elements")
            values.append(value)
        }
        return BoundExpr(.literal(.collection(values)), type: .collection(of: elementType), at: position)
    }

    /// The static type of a literal value.
    static func type(of value: ODataValue) -> BoundType {
        switch value {
        case .null: return .null
        case .enumValue(let enumValue): return .enumeration(enumValue.typeName ?? "")
        case .complex(let complex): return .complex(complex.typeName ?? "")
        case .collection(let elements):
            let first = elements.first { !$0.isNull }
            return .collection(of: first.map(type(of:)) ?? .null)
        default: return .primitive(value.kind ?? .untyped)
        }
    }

    /// Checks members against the enum type and fills in the numeric value (OR of the members
    /// for flags types).
    func resolveEnum(_ value: EdmEnumValue, typeName: String?, at position: Int) throws(ODataError) -> EdmEnumValue {
        guard let name = typeName ?? value.typeName else {
            throw .bindInvalidLiteral("enum literal '\(value.memberText)' needs a type", at: position)
        }
        guard let enumType = model.enumType(qualifiedName: name) else { throw .bindUnknownType(name, at: position) }
        var number: Int64 = 0
        for member in value.members {
            if let numeric = Int64(member) {
                number |= numeric
            } else if let declared = enumType.member(named: member) {
                number |= declared.value
            } else {
                throw .bindInvalidLiteral("'\(member)' is not a member of \(enumType.qualifiedName)", at: position)
            }
        }
        if value.members.count > 1 && !enumType.isFlags {
            throw .bindInvalidLiteral("\(enumType.qualifiedName) is not a flags type; '\(value.memberText)' names several members", at: position)
        }
        do {
            return try EdmEnumValue(typeName: enumType.qualifiedName, members: value.members, numericValue: number)
        } catch {
            throw .bindInvalidLiteral(error.message, at: position)
        }
    }

    /// Converts a literal to `target` for comparison with an operand of that type: numbers
    /// when the value is exact in the target, or the target is the promoted type anyway;
    /// a string to an enum member or a duration (4.01 accepts both without prefix).
    /// nil when no conversion applies (the caller keeps the literal as it is).
    func convertLiteral(_ value: ODataValue, to target: BoundType, promoted: Bool, at position: Int) throws(ODataError) -> ODataValue? {
        switch (value, target) {
        case (.null, _): return nil
        case (.string(let text), .enumeration(let name)):
            guard let parsed = try? EdmEnumValue(typeName: name, memberText: text) else { return nil }
            return .enumValue(try resolveEnum(parsed, typeName: name, at: position))
        case (.enumValue(let enumValue), .enumeration(let name)) where enumValue.typeName == nil:
            return .enumValue(try resolveEnum(enumValue, typeName: name, at: position))
        case (.string(let text), .primitive(.duration)):
            return (try? EdmDuration(parsing: text)).map(ODataValue.duration)
        case (_, .primitive(let kind)) where value.isNumeric && BoundType.numericRank(kind) != nil:
            if value.kind == kind { return nil }
            return promoted ? NumericConversion.promote(value, to: kind) : NumericConversion.exact(value, to: kind)
        default:
            return nil
        }
    }

    /// The promoted type of two primitive kinds for arithmetic and comparison, nil when they
    /// are not both numeric. Byte and SByte together promote to Int16.
    static func promotedKind(_ a: EdmPrimitiveKind, _ b: EdmPrimitiveKind) -> EdmPrimitiveKind? {
        guard let x = BoundType.numericRank(a), let y = BoundType.numericRank(b) else { return nil }
        if a == b { return a }
        if x == 1 && y == 1 { return .int16 }
        return x >= y ? a : b
    }
}

/// Numeric conversions between EDM kinds.
enum NumericConversion {
    /// The value as `kind` when it is represented exactly; nil otherwise.
    static func exact(_ value: ODataValue, to kind: EdmPrimitiveKind) -> ODataValue? {
        switch kind {
        case .byte: return integer(value).flatMap(UInt8.init(exactly:)).map(ODataValue.byte)
        case .sbyte: return integer(value).flatMap(Int8.init(exactly:)).map(ODataValue.sbyte)
        case .int16: return integer(value).flatMap(Int16.init(exactly:)).map(ODataValue.int16)
        case .int32: return integer(value).flatMap(Int32.init(exactly:)).map(ODataValue.int32)
        case .int64: return integer(value).map(ODataValue.int64)
        case .decimal:
            return decimal(value).map(ODataValue.decimal)
        case .double:
            if case .single(let f) = value { return .double(Double(f)) }
            guard let d = double(value) else { return nil }
            return isExact(d, value) ? .double(d) : nil
        case .single:
            guard let d = double(value) else { return nil }
            let f = Float(d)
            return isExact(Double(f), value) ? .single(f) : nil
        default: return nil
        }
    }

    /// True when the binary floating value `d` equals `value` exactly.
    static func isExact(_ d: Double, _ value: ODataValue) -> Bool {
        guard let original = decimal(value) else { return false }
        if !d.isFinite { return d.isNaN ? original.nonFinite == .nan : original == nonFinite(d) }
        guard let exact = EdmDecimal(exactly: d) else { return false }
        return exact == original
    }

    /// The value converted to a wider (promoted) kind the way promotion does.
    static func promote(_ value: ODataValue, to kind: EdmPrimitiveKind) -> ODataValue? {
        switch kind {
        case .double: return double(value).map(ODataValue.double)
        case .single: return double(value).map { .single(Float($0)) }
        default: return exact(value, to: kind)
        }
    }

    static func integer(_ value: ODataValue) -> Int64? {
        value.exactInt64Value
    }

    static func decimal(_ value: ODataValue) -> EdmDecimal? {
        switch value {
        case .decimal(let d): return d
        case .single(let f): return f.isFinite ? EdmDecimal(exactly: Double(f)) : nonFinite(Double(f))
        case .double(let d): return d.isFinite ? EdmDecimal(exactly: d) : nonFinite(d)
        default: return integer(value).map { EdmDecimal($0) }
        }
    }

    static func nonFinite(_ d: Double) -> EdmDecimal {
        d.isNaN ? .nan : (d < 0 ? .negativeInfinity : .infinity)
    }

    static func double(_ value: ODataValue) -> Double? {
        switch value {
        case .byte(let v): return Double(v)
        case .sbyte(let v): return Double(v)
        case .int16(let v): return Double(v)
        case .int32(let v): return Double(v)
        case .int64(let v): return Double(v)
        case .decimal(let d): return d.doubleValue
        case .single(let f): return Double(f)
        case .double(let d): return d
        default: return nil
        }
    }
}
