import OfflineODataModel

/// A canonical text form of bound trees for golden tests and diagnostics (docs/Query.md §2.5).
///
/// Every node shows its type after a colon. Literals use the URL literal form; paths show each
/// step: `Name[3]` (declared property 3 of the entity layout), `City[c1]` (complex member 1),
/// `Extra[dyn]` (dynamic), `->Orders*` / `->Customer` (navigation, `*` = collection),
/// `<Ns.Derived>` (type cast), `$count` / `$count(filter)`, `$filter(condition)`, a key as
/// `(ID=1)` on the step before it. Operators print prefix:
/// `(eq<Edm.Int16> Age[2]:Edm.Int16 5:Edm.Int16):Edm.Boolean`.
public enum BoundPrinter {
    public static func print(_ expr: BoundExpr) -> String {
        body(expr) + ":" + expr.type.description
    }

    public static func print(_ items: [BoundOrderItem]) -> String {
        items.map { print($0.expression) + ($0.descending ? " desc" : " asc") }.joined(separator: ", ")
    }

    static func body(_ expr: BoundExpr) -> String {
        switch expr.kind {
        case .literal(let value): return literal(value)
        case .null: return "null"
        case .aliasLiteral(let name, let value): return "@\(name)=\(literal(value))"
        case .path(let path): return self.path(path)
        case .unary(let op, let operand): return "(\(op.rawValue) \(print(operand)))"
        case .binary(let op, let left, let right, let operandType):
            return "(\(op.rawValue)<\(operandType)> \(print(left)) \(print(right)))"
        case .inList(let left, let items):
            return "(in \(print(left)) [\(items.map(print).joined(separator: ", "))])"
        case .inCollection(let left, let right): return "(in \(print(left)) \(print(right)))"
        case .has(let left, let right): return "(has \(print(left)) \(print(right)))"
        case .call(let function, let args):
            return "\(function.rawValue)(\(args.map(print).joined(separator: ", ")))"
        case .cast(let operand, let type, _): return "cast(\(operand.map(print).map { $0 + ", " } ?? "")\(type))"
        case .isOf(let operand, let type, _): return "isof(\(operand.map(print).map { $0 + ", " } ?? "")\(type))"
        case .any(let collection, let variable, let predicate):
            let inner = variable.map { v in "\(v): " + (predicate.map(print) ?? "") } ?? ""
            return "\(path(collection))/any(\(inner))"
        case .all(let collection, let variable, let predicate):
            return "\(path(collection))/all(\(variable): \(print(predicate)))"
        case .caseOf(let branches):
            return "case(" + branches.map { "\(print($0.condition)): \(print($0.value))" }.joined(separator: ", ") + ")"
        case .localState(let function): return "\(function.rawValue)()"
        }
    }

    static func literal(_ value: ODataValue) -> String {
        if case .collection(let elements) = value { return "[" + elements.map(literal).joined(separator: ",") + "]" }
        return (try? value.literal()) ?? "\(value)"
    }

    static func path(_ path: BoundPath) -> String {
        var parts: [String] = []
        switch path.root {
        case .current: if path.steps.isEmpty { parts.append("$this") }
        case .it: parts.append("$it")
        case .variable(let name): parts.append(name)
        case .root(let set, _, let key): parts.append("$root/\(set)(\(key.map(literal).joined(separator: ",")))")
        }
        for step in path.steps {
            switch step {
            case .property(let property):
                switch property.access {
                case .declared(let index): parts.append("\(property.name)[\(index)]")
                case .complex(let index): parts.append("\(property.name)[c\(index)]")
                case .dynamic: parts.append("\(property.name)[dyn]")
                }
            case .navigation(let nav):
                parts.append("->\(nav.name)\(nav.isCollection ? "*" : "")")
            case .typeCast(let name, _):
                parts.append("<\(name)>")
            case .count(let filter):
                parts.append(filter.map { "$count(\(print($0)))" } ?? "$count")
            case .filter(let condition):
                parts.append("$filter(\(print(condition)))")
            case .key(let key):
                let pairs = zip(key.properties, key.values).map { "\($0.name)=\(literal($1))" }
                if parts.isEmpty { parts.append("$this") }
                parts[parts.count - 1] += "(" + pairs.joined(separator: ",") + ")"
            }
        }
        return parts.joined(separator: "/")
    }
}
