import OfflineODataModel

/// The canonical text of a syntax tree (docs/Query.md §1.5): every unary and binary operation
/// fully parenthesised (`(Price gt 5)`, `(- Price)`, `(not A)`), operators lower case,
/// literals in the model's canonical literal form (Double always with an exponent so it
/// reads back as Double), canonical function names as in the spec. The text is decoded (not
/// percent-encoded). `ODataURLParser` reads it back to the same tree (positions aside).
public enum SyntaxPrinter {
    public static func print(_ expr: SyntaxExpr) -> String {
        var out = ""
        write(expr, to: &out)
        return out
    }

    static func write(_ expr: SyntaxExpr, to out: inout String) {
        switch expr.kind {
        case .literal(let value, let text):
            out += literalText(value, text: text)
        case .null:
            out += "null"
        case .json(let value):
            out += value.description
        case .list(let items):
            // A list of literals is the `in (…)` form; one with other expressions came from a
            // JSON array (`[FirstName,LastName]`).
            let literals = items.allSatisfy(SyntaxParser.isListLiteral)
            out += literals ? "(" : "["
            writeList(items, to: &out)
            out += literals ? ")" : "]"
        case .alias(let name):
            out += "@" + name
        case .path(let path):
            write(path, to: &out)
        case .call(let name, let arguments):
            out += name + "("
            writeList(arguments, to: &out)
            out += ")"
        case .typeName(let name):
            out += name
        case .unary(let op, let operand):
            out += op == .negate ? "(- " : "(not "
            write(operand, to: &out)
            out += ")"
        case .binary(let op, let left, let right):
            out += "("
            write(left, to: &out)
            out += " " + op.rawValue + " "
            write(right, to: &out)
            out += ")"
        case .caseOf(let branches):
            out += "case("
            for (index, branch) in branches.enumerated() {
                if index > 0 { out += "," }
                write(branch.condition, to: &out)
                out += ":"
                write(branch.value, to: &out)
            }
            out += ")"
        }
    }

    /// The canonical literal; the text as written when the value has no literal form.
    static func literalText(_ value: ODataValue, text: String) -> String {
        guard let canonical = try? value.literal() else { return text }
        switch value {
        case .double, .single:
            if canonical.contains("e") || canonical.contains("E") || canonical.contains("N") || canonical.contains("I") {
                return canonical
            }
            return canonical + "e0"
        default:
            return canonical
        }
    }

    private static func writeList(_ items: [SyntaxExpr], to out: inout String) {
        for (index, item) in items.enumerated() {
            if index > 0 { out += "," }
            write(item, to: &out)
        }
    }

    static func write(_ path: SyntaxPath, to out: inout String) {
        var first = true
        switch path.root {
        case .implicit: break
        case .it: out += "$it"; first = false
        case .this: out += "$this"; first = false
        case .root: out += "$root"; first = false
        }
        for segment in path.segments {
            if case .key = segment {
                write(segment, to: &out)
                continue
            }
            if !first { out += "/" }
            first = false
            write(segment, to: &out)
        }
    }

    static func write(_ segment: SyntaxPathSegment, to out: inout String) {
        switch segment {
        case .member(let name, _), .typeCast(let name, _):
            out += name
        case .key(let values, _):
            writeArguments(values, to: &out)
        case .count(let filter, let search, _):
            out += "$count"
            var options: [String] = []
            if let filter { options.append("$filter=" + print(filter)) }
            if let search { options.append("$search=" + print(search)) }
            if !options.isEmpty { out += "(" + options.joined(separator: ";") + ")" }
        case .filter(let condition, _):
            out += "$filter("
            write(condition, to: &out)
            out += ")"
        case .any(let variable, let predicate, _):
            out += "any("
            if let variable, let predicate {
                out += variable + ":"
                write(predicate, to: &out)
            }
            out += ")"
        case .all(let variable, let predicate, _):
            out += "all(" + variable + ":"
            write(predicate, to: &out)
            out += ")"
        case .function(let name, let parameters, _):
            out += name
            writeArguments(parameters, to: &out)
        case .annotation(let name, _):
            out += "@" + name
        }
    }

    static func writeArguments(_ values: [SyntaxKeyValue], to out: inout String) {
        out += "("
        for (index, value) in values.enumerated() {
            if index > 0 { out += "," }
            if let name = value.name { out += name + "=" }
            write(value.value, to: &out)
        }
        out += ")"
    }

    /// `$search` canonical form: `(a AND b)`, `(a OR b)`, `(NOT a)`, `"phrase"`, words.
    public static func print(_ search: SyntaxSearch) -> String {
        switch search {
        case .term(let word): return word
        case .phrase(let text): return "\"" + text + "\""
        case .not(let inner): return "(NOT " + print(inner) + ")"
        case .and(let left, let right): return "(" + print(left) + " AND " + print(right) + ")"
        case .or(let left, let right): return "(" + print(left) + " OR " + print(right) + ")"
        }
    }
}
