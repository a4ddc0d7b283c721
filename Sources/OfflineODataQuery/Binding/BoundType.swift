import OfflineODataModel

/// The static type of a bound expression (docs/Query.md §2).
public indirect enum BoundType: Sendable, Hashable, CustomStringConvertible {
    /// A primitive type; `.untyped` for values only known at run time (dynamic properties of
    /// open types), which the binder lets through every check and the evaluator checks.
    case primitive(EdmPrimitiveKind)
    /// An enumeration type, by namespace-qualified name.
    case enumeration(String)
    /// A complex type, by namespace-qualified name.
    case complex(String)
    /// An entity type, by namespace-qualified name.
    case entity(String)
    case collection(of: BoundType)
    /// The type of the `null` literal (and of an absent alias): fits every type.
    case null

    public static let boolean = BoundType.primitive(.boolean)
    public static let string = BoundType.primitive(.string)
    public static let int32 = BoundType.primitive(.int32)
    public static let int64 = BoundType.primitive(.int64)
    public static let decimal = BoundType.primitive(.decimal)
    public static let double = BoundType.primitive(.double)
    public static let untyped = BoundType.primitive(.untyped)

    public var primitiveKind: EdmPrimitiveKind? {
        if case .primitive(let kind) = self { return kind }
        return nil
    }

    public var isCollection: Bool {
        if case .collection = self { return true }
        return false
    }

    public var elementType: BoundType? {
        if case .collection(let element) = self { return element }
        return nil
    }

    public var isNull: Bool { self == .null }

    public var isUntyped: Bool { self == .untyped }

    /// Byte … Double.
    public var isNumeric: Bool { primitiveKind.flatMap(BoundType.numericRank) != nil }

    /// Promotion rank (URL §5.1.1.18): Byte/SByte 1, Int16 2, Int32 3, Int64 4, Decimal 5,
    /// Single 6, Double 7; nil for non-numeric kinds.
    public static func numericRank(_ kind: EdmPrimitiveKind) -> Int? {
        switch kind {
        case .byte, .sbyte: 1
        case .int16: 2
        case .int32: 3
        case .int64: 4
        case .decimal: 5
        case .single: 6
        case .double: 7
        default: nil
        }
    }

    /// `Edm.Int32`, `Ns.Color`, `Collection(Ns.Address)`, `null`.
    public var description: String {
        switch self {
        case .primitive(let kind): kind.rawValue
        case .enumeration(let name), .complex(let name), .entity(let name): name
        case .collection(let element): "Collection(\(element))"
        case .null: "null"
        }
    }
}
