import OfflineODataModel

/// Canonical function calls, `cast` and `isof` (docs/Query.md §2.4).
extension ExpressionBinder {
    func bindCall(_ name: String, _ arguments: [SyntaxExpr], at position: Int, in scope: Scope) throws(ODataError) -> BoundExpr {
        let lower = name.lowercased()
        if lower == "cast" || lower == "isof" {
            return try bindTypeFunction(isCast: lower == "cast", arguments, at: position, in: scope)
        }
        if GeoFunctionNames.all.contains(lower) {
            throw .bindNotSupported("geo function '\(name)'", at: position)
        }
        guard let function = CanonicalFunction(name: name) else { throw .bindUnknownFunction(name, at: position) }
        guard function.arity.contains(arguments.count) else {
            throw .bindArgumentCount(function.rawValue, got: arguments.count, expected: function.arity, at: position)
        }
        var bound: [BoundExpr] = []
        for argument in arguments { bound.append(try bind(argument, in: scope)) }
        let type = try functionResultType(function, bound, at: position)
        if function == .matchesPattern, case .string(let pattern)? = bound[1].literalValue {
            try RegexCache.validate(pattern, at: bound[1].position)
        }
        return BoundExpr(.call(function, bound), type: type, at: position)
    }

    func bindTypeFunction(isCast: Bool, _ arguments: [SyntaxExpr], at position: Int, in scope: Scope) throws(ODataError) -> BoundExpr {
        let name = isCast ? "cast" : "isof"
        guard (1...2).contains(arguments.count) else {
            throw .bindArgumentCount(name, got: arguments.count, expected: 1...2, at: position)
        }
        guard let last = arguments.last, case .typeName(let typeName) = last.kind else {
            throw .bindTypeMismatch("the last argument of \(name) must be a type name", at: arguments.last?.position ?? position)
        }
        let target = try resolveTypeName(typeName, at: last.position)
        var operand: BoundExpr?
        if arguments.count == 2 { operand = try bind(arguments[0], in: scope) }
        if case .primitive(let kind) = target, kind.isGeo || kind == .stream {
            throw .bindNotSupported("\(name) to \(kind.rawValue)", at: last.position)
        }
        var accepted: Set<String> = []
        switch target {
        case .entity(let name):
            if let type = model.entityType(qualifiedName: name) {
                accepted = Set([name] + model.derivedTypes(of: type).map(\.qualifiedName))
            }
        case .complex(let name):
            accepted = [name]
            for candidate in model.complexTypes where complexChain(candidate).contains(name) {
                accepted.insert(candidate.qualifiedName)
            }
        default: break
        }
        if isCast {
            return BoundExpr(.cast(operand, target, acceptedTypes: accepted), type: target, at: position)
        }
        return BoundExpr(.isOf(operand, target, acceptedTypes: accepted), type: .boolean, at: position)
    }

    /// Checks argument types and gives the result type.
    func functionResultType(_ function: CanonicalFunction, _ args: [BoundExpr], at position: Int) throws(ODataError) -> BoundType {
        func fail(_ index: Int, _ expected: String) -> ODataError {
            .bindTypeMismatch("argument \(index + 1) of \(function.rawValue) must be \(expected), not \(args[index].type)", at: args[index].position)
        }
        /// True when the argument is null, dynamic, or of one of the kinds.
        func isA(_ index: Int, _ kinds: Set<EdmPrimitiveKind>) -> Bool {
            let type = args[index].type
            if type.isNull || type.isUntyped { return true }
            return type.primitiveKind.map(kinds.contains) ?? false
        }
        func isCollectionArg(_ index: Int) -> Bool {
            let type = args[index].type
            return type.isCollection || type.isNull || type.isUntyped
        }
        let integers: Set<EdmPrimitiveKind> = [.byte, .sbyte, .int16, .int32, .int64]
        let anyCollection = args.contains { $0.type.isCollection }
        switch function {
        case .contains, .startswith, .endswith, .indexof:
            let result: BoundType = function == .indexof ? .int32 : .boolean
            if anyCollection {
                guard isCollectionArg(0) else { throw fail(0, "a collection") }
                guard isCollectionArg(1) else { throw fail(1, "a collection") }
                return result
            }
            guard isA(0, [.string]) else { throw fail(0, "Edm.String") }
            guard isA(1, [.string]) else { throw fail(1, "Edm.String") }
            return result
        case .hassubset, .hassubsequence:
            guard isCollectionArg(0) else { throw fail(0, "a collection") }
            guard isCollectionArg(1) else { throw fail(1, "a collection") }
            return .boolean
        case .length:
            guard isA(0, [.string]) || isCollectionArg(0) else { throw fail(0, "Edm.String or a collection") }
            return .int32
        case .substring:
            guard isA(0, [.string]) || isCollectionArg(0) else { throw fail(0, "Edm.String or a collection") }
            for index in 1..<args.count where !isA(index, integers) { throw fail(index, "an integer") }
            return args[0].type.isCollection ? args[0].type : .string
        case .tolower, .toupper, .trim:
            guard isA(0, [.string]) else { throw fail(0, "Edm.String") }
            return .string
        case .concat:
            if anyCollection {
                guard isCollectionArg(0) else { throw fail(0, "a collection") }
                guard isCollectionArg(1) else { throw fail(1, "a collection") }
                return args[0].type.isCollection ? args[0].type : args[1].type
            }
            guard isA(0, [.string]) else { throw fail(0, "Edm.String") }
            guard isA(1, [.string]) else { throw fail(1, "Edm.String") }
            return .string
        case .matchesPattern:
            guard isA(0, [.string]) else { throw fail(0, "Edm.String") }
            guard isA(1, [.string]) else { throw fail(1, "Edm.String") }
            return .boolean
        case .year, .month, .day:
            guard isA(0, [.date, .dateTimeOffset]) else { throw fail(0, "Edm.Date or Edm.DateTimeOffset") }
            return .int32
        case .hour, .minute, .second:
            guard isA(0, [.timeOfDay, .dateTimeOffset]) else { throw fail(0, "Edm.TimeOfDay or Edm.DateTimeOffset") }
            return .int32
        case .fractionalseconds:
            guard isA(0, [.timeOfDay, .dateTimeOffset]) else { throw fail(0, "Edm.TimeOfDay or Edm.DateTimeOffset") }
            return .decimal
        case .date:
            guard isA(0, [.dateTimeOffset]) else { throw fail(0, "Edm.DateTimeOffset") }
            return .primitive(.date)
        case .time:
            guard isA(0, [.dateTimeOffset]) else { throw fail(0, "Edm.DateTimeOffset") }
            return .primitive(.timeOfDay)
        case .totaloffsetminutes:
            guard isA(0, [.dateTimeOffset]) else { throw fail(0, "Edm.DateTimeOffset") }
            return .int32
        case .totalseconds:
            guard isA(0, [.duration]) else { throw fail(0, "Edm.Duration") }
            return .decimal
        case .now, .mindatetime, .maxdatetime:
            return .primitive(.dateTimeOffset)
        case .round, .floor, .ceiling:
            let type = args[0].type
            if type.isNull || type.isUntyped { return type.isNull ? .decimal : .untyped }
            switch type.primitiveKind {
            case .double?, .single?: return .double
            case let kind? where BoundType.numericRank(kind) != nil: return .decimal
            default: throw fail(0, "Edm.Double or Edm.Decimal")
            }
        }
    }
}
