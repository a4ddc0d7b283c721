import OfflineODataModel

/// Binding errors, codes 1650–1699 (docs/Query.md §2.7, docs/Errors.md "Query binding").
extension ODataError {
    /// Where in the expression: the same wording as the parser's locations (`position 12`).
    static func at(_ position: Int) -> String { positionPrefix + String(position) }

    /// What `at` writes before the number.
    static let positionPrefix = "position "

    /// 1650: a name that is not a property (or navigation property) of a closed type.
    static func bindInvalidProperty(_ name: String, type: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidProperty", code: 1650,
                   message: "'\(name)' is not a property of \(type)", location: at(position), position: position)
    }

    /// 1651: operand types that do not fit the operator or function.
    static func bindTypeMismatch(_ message: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "typeMismatch", code: 1651, message: message, location: at(position), position: position)
    }

    /// 1652: a function that is neither canonical nor otherwise known.
    static func bindUnknownFunction(_ name: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "unknownFunction", code: 1652,
                   message: "unknown function '\(name)'", location: at(position), position: position)
    }

    /// 1653: a function called with the wrong number of arguments.
    static func bindArgumentCount(_ name: String, got: Int, expected: ClosedRange<Int>, at position: Int) -> ODataError {
        let wanted = expected.lowerBound == expected.upperBound ? "\(expected.lowerBound)" : "\(expected.lowerBound)–\(expected.upperBound)"
        return ODataError(.invalidInput, name: "invalidArgumentCount", code: 1653,
                          message: "'\(name)' takes \(wanted) argument(s), got \(got)", location: at(position), position: position)
    }

    /// 1654: a lambda variable that is not in scope, or declared twice in nested lambdas.
    static func bindLambdaVariable(_ message: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidLambdaVariable", code: 1654, message: message, location: at(position), position: position)
    }

    /// 1655: a type name in `cast`/`isof`/a type-cast segment that the model does not declare.
    static func bindUnknownType(_ name: String, at position: Int) -> ODataError {
        if LocalStateFunction(name: name) != nil {
            // `sap.islocal(1)` reads as a type cast; it is a function without parameters.
            return ODataError(.invalidInput, name: "unknownType", code: 1655,
                              message: "\(name) takes no arguments: write \(name)()", location: at(position), position: position)
        }
        return ODataError(.invalidInput, name: "unknownType", code: 1655,
                          message: "unknown type '\(name)'", location: at(position), position: position)
    }

    /// 1656: valid OData that this implementation does not evaluate (geo functions,
    /// annotations, bound functions in paths, `$this`).
    static func bindNotSupported(_ what: String, at position: Int) -> ODataError {
        ODataError(.notSupported, name: "notSupported", code: 1656,
                   message: "\(what) is not supported", location: at(position), position: position)
    }

    /// 1657: the binder was created for an entity set or type the model does not have.
    static func bindUnknownEntityType(_ name: String) -> ODataError {
        ODataError(.invalidInput, name: "unknownEntityType", code: 1657,
                   message: "'\(name)' is neither an entity set nor an entity type of the model")
    }

    /// 1658: a path that is not allowed where it is written (a collection used as a single
    /// value without any/all, `$count` on a single value, a key where none can go).
    static func bindInvalidPath(_ message: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidPath", code: 1658, message: message, location: at(position), position: position)
    }

    /// 1659: a parameter alias whose value refers back to itself.
    static func bindAliasCycle(_ name: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "aliasCycle", code: 1659,
                   message: "parameter alias '@\(name)' refers to itself", location: at(position), position: position)
    }

    /// 1660: an expression nested deeper than `ExpressionBinder.maxDepth`.
    static func bindTooDeep(_ limit: Int, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "expressionTooDeep", code: 1660,
                   message: "expression nested deeper than \(limit) levels", location: at(position), position: position)
    }

    /// 1661: a literal that cannot take the type it must have (an enum member that does not
    /// exist, a number outside the property's range in `in`).
    static func bindInvalidLiteral(_ message: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidLiteralForType", code: 1661, message: message, location: at(position), position: position)
    }
}
