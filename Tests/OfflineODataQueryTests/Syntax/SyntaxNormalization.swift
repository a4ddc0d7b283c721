import OfflineODataModel
@testable import OfflineODataQuery

/// Test helpers: trees compared without positions and with literal texts in canonical form,
/// so a parse of printed text can be compared with the original parse.
extension SyntaxExpr {
    var normalized: SyntaxExpr {
        SyntaxExpr(kind.normalized, at: 0)
    }
}

extension SyntaxExprKind {
    var normalized: SyntaxExprKind {
        switch self {
        case .literal(let value, let text): return .literal(value, text: SyntaxPrinter.literalText(value, text: text))
        case .null, .json, .alias, .typeName: return self
        case .list(let items): return .list(items.map(\.normalized))
        case .path(let path): return .path(path.normalized)
        case .call(let name, let arguments): return .call(name: name, arguments: arguments.map(\.normalized))
        case .unary(let op, let operand): return .unary(op, operand.normalized)
        case .binary(let op, let left, let right): return .binary(op, left.normalized, right.normalized)
        case .caseOf(let branches):
            return .caseOf(branches.map { SyntaxCaseBranch(condition: $0.condition.normalized, value: $0.value.normalized) })
        }
    }
}

extension SyntaxPath {
    var normalized: SyntaxPath {
        SyntaxPath(root: root, segments: segments.map(\.normalized))
    }
}

extension SyntaxKeyValue {
    var normalized: SyntaxKeyValue { SyntaxKeyValue(name: name, value: value.normalized) }
}

extension SyntaxPathSegment {
    var normalized: SyntaxPathSegment {
        switch self {
        case .member(let name, _): return .member(name, position: 0)
        case .typeCast(let name, _): return .typeCast(name, position: 0)
        case .key(let values, _): return .key(values.map(\.normalized), position: 0)
        case .count(let filter, let search, _): return .count(filter: filter?.normalized, search: search, position: 0)
        case .filter(let condition, _): return .filter(condition.normalized, position: 0)
        case .any(let variable, let predicate, _): return .any(variable: variable, predicate: predicate?.normalized, position: 0)
        case .all(let variable, let predicate, _): return .all(variable: variable, predicate: predicate.normalized, position: 0)
        case .function(let name, let parameters, _): return .function(name, parameters: parameters.map(\.normalized), position: 0)
        case .annotation(let name, _): return .annotation(name, position: 0)
        }
    }
}

extension SyntaxQueryOptions {
    var normalized: SyntaxQueryOptions {
        var copy = self
        copy.filter = filter?.normalized
        copy.orderBy = orderBy?.map { SyntaxOrderItem(expression: $0.expression.normalized, descending: $0.descending) }
        copy.select = select?.map(\.normalized)
        copy.expand = expand?.map(\.normalized)
        copy.compute = compute?.map { SyntaxComputeItem(expression: $0.expression.normalized, alias: $0.alias) }
        copy.aliases = aliases.mapValues(\.normalized)
        return copy
    }
}

extension SyntaxSelectItem {
    var normalized: SyntaxSelectItem {
        switch self {
        case .star: return .star(position: 0)
        case .allOperations(let namespace, _): return .allOperations(namespace: namespace, position: 0)
        case .path(let segments, let options, _):
            return .path(segments.map(\.normalized), options: options?.normalized, position: 0)
        }
    }
}

extension SyntaxExpandItem {
    var normalized: SyntaxExpandItem {
        var target = self.target
        if case .path(let segments) = target { target = .path(segments.map(\.normalized)) }
        return SyntaxExpandItem(target: target, suffix: suffix, options: options.normalized, position: 0)
    }
}

extension SyntaxResourcePath {
    var normalized: SyntaxResourcePath {
        SyntaxResourcePath(segments: segments.map { segment in
            switch segment {
            case .identifier(let name, _): return .identifier(name, position: 0)
            case .typeCast(let name, _): return .typeCast(name, position: 0)
            case .key(let values, _): return .key(values.map(\.normalized), position: 0)
            case .function(let name, let parameters, _): return .function(name, parameters: parameters.map(\.normalized), position: 0)
            case .filter(let expr, _): return .filter(expr.normalized, position: 0)
            case .count: return .count(position: 0)
            case .ref: return .ref(position: 0)
            case .value: return .value(position: 0)
            case .system(let name, _): return .system(name, position: 0)
            }
        })
    }
}

extension SyntaxURL {
    var normalized: SyntaxURL { SyntaxURL(path: path.normalized, options: options.normalized) }
}
