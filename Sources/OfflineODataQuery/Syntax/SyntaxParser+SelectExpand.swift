import OfflineODataModel

/// `$select` (URL §5.1.4) and `$expand` (URL §5.1.3) items (docs/Query.md §1.4).
///
/// Model-free readings: a qualified name is a `.typeCast` (or, with `(names)`, a `.function`
/// whose parameters carry only names, with `null` values); `Addresses(…)` with `$`/`@`/`name=`
/// inside is a nested option list; a `*` after a complex path in `$expand` is a final
/// `.member("*")` segment.
extension SyntaxParser {
    mutating func parseSelectItems() throws(ODataError) -> [SyntaxSelectItem] {
        var items: [SyntaxSelectItem] = []
        repeat {
            items.append(try parseSelectItem())
        } while takeComma()
        return items
    }

    private mutating func parseSelectItem() throws(ODataError) -> SyntaxSelectItem {
        let start = pos
        if take("*") { return .star(position: start) }
        var segments: [SyntaxPathSegment] = []
        while true {
            let segmentStart = pos
            if take("@") {
                guard let name = scanAnnotationName() else { throw unexpected("an annotation name") }
                segments.append(.annotation(name, position: segmentStart))
            } else {
                guard let name = scanQualifiedName() else { throw unexpected("a property path, '*' or Namespace.*") }
                if current == UInt8(ascii: "."), byte(at: pos + 1) == UInt8(ascii: "*") {
                    guard segments.isEmpty else {
                        throw error(.invalidSelectItem, "\(name).* must be a whole $select item", at: segmentStart)
                    }
                    pos += 2
                    return .allOperations(namespace: name, position: start)
                }
                if current == UInt8(ascii: "("), !startsNestedOptions(at: pos + 1) {
                    segments.append(.function(name, parameters: try parseParameterNames(), position: segmentStart))
                } else if name.contains(".") {
                    segments.append(.typeCast(name, position: segmentStart))
                } else {
                    segments.append(.member(name, position: segmentStart))
                }
            }
            if current == UInt8(ascii: "/") { pos += 1; continue }
            break
        }
        var options: SyntaxQueryOptions?
        if current == UInt8(ascii: "(") { options = try parseNestedOptions(.select) }
        return .path(segments, options: options, position: start)
    }

    /// `(`-content that is an option list: `$name=`, `@alias=` or `name=`.
    private func startsNestedOptions(at index: Int) -> Bool {
        var probe = index
        guard let c = byte(at: probe) else { return false }
        if c == UInt8(ascii: "$") || c == UInt8(ascii: "@") { return true }
        while isIdentifierChar(at: probe) { probe += 1 }
        return probe > index && byte(at: probe) == UInt8(ascii: "=")
    }

    /// `(Name,Name)`: the parameter names identifying a function overload in `$select`.
    private mutating func parseParameterNames() throws(ODataError) -> [SyntaxKeyValue] {
        try expect("(")
        var names: [SyntaxKeyValue] = []
        if take(")") { return names }
        repeat {
            let at = pos
            guard let name = scanIdentifier() else { throw unexpected("a parameter name") }
            names.append(SyntaxKeyValue(name: name, value: SyntaxExpr(.null, at: at)))
        } while take(",")
        try expect(")", "')' or ',' after a parameter name")
        return names
    }

    mutating func parseExpandItems() throws(ODataError) -> [SyntaxExpandItem] {
        var items: [SyntaxExpandItem] = []
        repeat {
            items.append(try parseExpandItem())
        } while takeComma()
        return items
    }

    private mutating func parseExpandItem() throws(ODataError) -> SyntaxExpandItem {
        let start = pos
        if exactWord("$value", at: pos) {
            pos += 6
            return SyntaxExpandItem(target: .value, position: start)
        }
        var segments: [SyntaxPathSegment] = []
        var star = false
        var suffix = SyntaxExpandItem.Suffix.none
        while true {
            let segmentStart = pos
            if take("*") {
                star = true
            } else if take("@") {
                guard let name = scanAnnotationName() else { throw unexpected("an annotation name") }
                segments.append(.annotation(name, position: segmentStart))
            } else if let name = scanQualifiedName() {
                segments.append(name.contains(".") ? .typeCast(name, position: segmentStart) : .member(name, position: segmentStart))
            } else {
                throw unexpected("a navigation path, '*' or $value")
            }
            guard current == UInt8(ascii: "/") else { break }
            if exactWord("$ref", at: pos + 1) { pos += 5; suffix = .ref; break }
            if exactWord("$count", at: pos + 1) {
                guard !star else { throw error(.invalidExpandItem, "*/$count is not allowed", at: pos + 1) }
                pos += 7
                suffix = .count
                break
            }
            if star { throw error(.invalidExpandItem, "'*' must be the last segment of an $expand path", at: segmentStart) }
            pos += 1
        }
        var options = SyntaxQueryOptions()
        if current == UInt8(ascii: "(") {
            let context: NestedContext = suffix == .ref ? .expandRef : suffix == .count ? .countSegment : .expand
            options = try parseNestedOptions(context)
            if star, suffix == .none, options != SyntaxQueryOptions(levels: options.levels) {
                throw error(.invalidExpandItem, "'*' takes only $levels as a nested option", at: start)
            }
        }
        let target: SyntaxExpandItem.Target
        if star && segments.isEmpty {
            target = .star
        } else {
            if star { segments.append(.member("*", position: pos)) }
            target = .path(segments)
        }
        return SyntaxExpandItem(target: target, suffix: suffix, options: options, position: start)
    }
}
