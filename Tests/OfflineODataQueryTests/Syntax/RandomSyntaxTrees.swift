import OfflineODataModel
@testable import OfflineODataQuery

/// SplitMix64: a small deterministic generator for test data built from one seed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random expression trees in the shapes the parser produces (so print → parse is the
/// identity): literals of every kind, paths with casts, keys, functions, `$count`, lambdas and
/// annotations, calls with the right arity, `case`, `in` lists, `has`, unary and binary operators.
struct RandomSyntaxTrees {
    var rng: SplitMix

    static let literalTexts = [
        "1", "-3", "0", "2147483647", "3000000000", "-9223372036854775808", "1.5", "-0.25", "1.50", "1.5e3", "-2E-7",
        "INF", "-INF", "NaN", "'O''Neil'", "''", "'a b'", "true", "false", "2012-09-03", "-0001-01-01",
        "2012-09-03T13:52:01.5+02:00", "2012-09-03T13:52:00Z", "13:00:01", "13:00", "duration'P1DT2H'",
        "duration'-PT0.5S'", "01234567-89ab-cdef-0123-456789abcdef", "binary'Zm9v'", "binary''", "Ns.Color'Red'",
        "Ns.Color'Red,Blue'", "Ns.Flags'3'",
    ]
    static let names = ["Name", "Price", "Orders", "Address", "City", "x", "_y", "Élan"]
    static let qualified = ["Ns.Manager", "Model.Customer", "A.B.C"]
    static let variables = ["o", "it2", "lambda"]
    static let terms = ["blue", "green", "\"mountain bike\"", "2x4", "Daniel's"]
    static let binaryOperators: [SyntaxBinaryOperator] = [.or, .and, .eq, .ne, .gt, .ge, .lt, .le, .add, .sub, .mul, .div, .divby, .mod]

    init(seed: UInt64) { rng = SplitMix(seed: seed) }

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &rng)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

    func e(_ kind: SyntaxExprKind) -> SyntaxExpr { SyntaxExpr(kind, at: 0) }

    mutating func literal() -> SyntaxExpr {
        let text = pick(Self.literalTexts)
        guard let value = try? ODataValue.inferLiteral(text) else { return e(.null) }
        return e(.literal(value, text: text))
    }

    mutating func expression(depth: Int) -> SyntaxExpr {
        if depth <= 0 || chance(25) { return leaf(depth: depth) }
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1, 2:
            return e(.binary(pick(Self.binaryOperators), expression(depth: depth - 1), expression(depth: depth - 1)))
        case 3:
            return e(.unary(chance(50) ? .not : .negate, expression(depth: depth - 1)))
        case 4:
            let items = (0..<Int.random(in: 0...3, using: &rng)).map { _ in literal() }
            return e(.binary(.in, expression(depth: depth - 1), chance(80) ? e(.list(items)) : path(depth: depth - 1)))
        case 5:
            let flags = try? ODataValue.inferLiteral("Ns.Color'Red'")
            return e(.binary(.has, expression(depth: depth - 1), e(.literal(flags ?? .null, text: "Ns.Color'Red'"))))
        case 6:
            return call(depth: depth - 1)
        case 7:
            let branches = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                SyntaxCaseBranch(condition: expression(depth: depth - 1), value: expression(depth: depth - 1))
            }
            return e(.caseOf(branches))
        default:
            return path(depth: depth - 1)
        }
    }

    mutating func leaf(depth: Int) -> SyntaxExpr {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return e(.null)
        case 1: return e(.alias(pick(["a", "p1", "word"])))
        case 2: return e(.json(.array([.number(JSONNumber(Int64(Int.random(in: -5...5, using: &rng)))), .string("s\"x"), .null])))
        case 3: return e(.json(.object(JSONObject())))
        case 4, 5: return path(depth: 0)
        default: return literal()
        }
    }

    mutating func call(depth: Int) -> SyntaxExpr {
        let signature = pick(CanonicalFunctions.all)
        let count = Int.random(in: signature.arguments, using: &rng)
        var arguments = (0..<count).map { _ in expression(depth: depth) }
        if signature.name == "cast" || signature.name == "isof" {
            arguments[count - 1] = e(.typeName(pick(["Edm.String", "Ns.Manager", "Customer", "Collection(Edm.Int32)"])))
        }
        return e(.call(name: signature.name, arguments: arguments))
    }

    mutating func path(depth: Int) -> SyntaxExpr {
        var segments: [SyntaxPathSegment] = []
        let root: SyntaxPathRoot = pick([.implicit, .implicit, .implicit, .it, .this, .root])
        switch root {
        case .root:
            segments.append(.member(pick(Self.names), position: 0))
            let key = chance(50) ? [SyntaxKeyValue(value: literal())] : [SyntaxKeyValue(name: "ID", value: literal()),
                                                                        SyntaxKeyValue(name: "Code", value: literal())]
            segments.append(.key(key, position: 0))
        case .implicit:
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: segments.append(.typeCast(pick(Self.qualified), position: 0))
            case 1: segments.append(.annotation(pick(["Core.Messages", "Measures.Currency#Reporting"]), position: 0))
            default: segments.append(.member(pick(Self.names), position: 0))
            }
        default:
            break
        }
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            switch Int.random(in: 0..<9, using: &rng) {
            case 0: segments.append(.typeCast(pick(Self.qualified), position: 0))
            case 1:
                segments.append(.member(pick(Self.names), position: 0))
                segments.append(.key([SyntaxKeyValue(value: literal())], position: 0))
            case 2:
                let parameters = depth > 0 ? [SyntaxKeyValue(name: "p", value: expression(depth: depth - 1))] : []
                segments.append(.function(pick(Self.qualified), parameters: parameters, position: 0))
            case 3: segments.append(.annotation("Core.Messages", position: 0))
            default: segments.append(.member(pick(Self.names), position: 0))
            }
        }
        if depth > 0, chance(20), root != .root || !segments.isEmpty {
            segments.append(.filter(expression(depth: depth - 1), position: 0))
            if chance(30) { segments.append(.key([SyntaxKeyValue(name: "ID", value: literal())], position: 0)) }
        }
        if depth > 0, chance(30), root != .root || !segments.isEmpty {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                segments.append(.count(filter: chance(50) ? expression(depth: depth - 1) : nil,
                                       search: chance(50) ? search(depth: 2) : nil, position: 0))
            case 1: segments.append(.any(variable: nil, predicate: nil, position: 0))
            case 2: segments.append(.any(variable: pick(Self.variables), predicate: expression(depth: depth - 1), position: 0))
            default: segments.append(.all(variable: pick(Self.variables), predicate: expression(depth: depth - 1), position: 0))
            }
        }
        if root == .implicit && segments.isEmpty { segments.append(.member("Name", position: 0)) }
        return e(.path(SyntaxPath(root: root, segments: segments)))
    }

    mutating func search(depth: Int) -> SyntaxSearch {
        if depth <= 0 || chance(30) {
            let term = pick(Self.terms)
            if term.hasPrefix("\"") { return .phrase(String(term.dropFirst().dropLast())) }
            return .term(term)
        }
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return .not(search(depth: depth - 1))
        case 1: return .and(search(depth: depth - 1), search(depth: depth - 1))
        default: return .or(search(depth: depth - 1), search(depth: depth - 1))
        }
    }
}
