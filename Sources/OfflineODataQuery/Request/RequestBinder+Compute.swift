import OfflineODataModel

/// `$compute` (URL Conventions §5.1.3; docs/Query.md §5): each item is bound against the type
/// the options apply to, its alias checked, and made visible to the rest of the options.
extension RequestBinder {
    /// Binds the items in order; an item may use the aliases before it. Afterwards `binder`
    /// resolves every alias (for `$filter` and `$orderby`). `place` names the option the
    /// positions are offsets in (`$compute`, or `$expand` for nested items).
    func bindCompute(_ items: [SyntaxComputeItem], type name: String, binder: inout ExpressionBinder,
                     place: String) throws(ODataError) -> [BoundComputeItem] {
        let type = try entityType(name)
        var declared = Set(model.allProperties(of: type).map(\.name))
        for navigation in model.allNavigationProperties(of: type) { declared.insert(navigation.name) }
        var result: [BoundComputeItem] = []
        for item in items {
            let location = "\(place), position \(item.aliasPosition)"
            if declared.contains(item.alias) {
                throw .computeAliasClash(item.alias, "is already a property of \(type.qualifiedName)", location: location)
            }
            if result.contains(where: { $0.alias == item.alias }) {
                throw .computeAliasClash(item.alias, "is given twice", location: location)
            }
            let expression: BoundExpr
            do {
                expression = try binder.bind(item.expression)
            } catch {
                throw error.relocated(place, base: 0)
            }
            guard Self.isComputable(expression.type) else {
                throw .computeNotPrimitive(item.alias, type: expression.type, location: "\(place), position \(item.expression.position)")
            }
            binder.computed[item.alias] = expression
            result.append(BoundComputeItem(alias: item.alias, expression: expression))
        }
        return result
    }

    /// A single primitive (not a stream) or enumeration value, or null.
    static func isComputable(_ type: BoundType) -> Bool {
        switch type {
        case .primitive(let kind): return kind != .stream
        case .enumeration, .null: return true
        case .complex, .entity, .collection: return false
        }
    }

    /// `a and b and …` (nil for none), left-nested in the order given.
    static func conjunction(_ conditions: [BoundExpr]) -> BoundExpr? {
        guard var result = conditions.first else { return nil }
        for condition in conditions.dropFirst() {
            result = BoundExpr(.binary(.and, result, condition, operandType: .boolean), type: .boolean, at: result.position)
        }
        return result
    }
}
