import OfflineODataModel

/// `$select` after binding: everything, or the named structural properties (and complex
/// sub-paths, kept whole at the top level).
public struct BoundSelection: Sendable, Hashable {
    /// True without `$select`, or with `*`.
    public var all: Bool
    /// Top-level structural property names to return, in declaration order.
    public var properties: [String]
    /// `$compute` aliases named in `$select`, in `$compute` order (with `all`, every computed
    /// property is returned and this is empty).
    public var computed: [String]
    /// Per top-level property selected only in part (`$select=Location/City/Name`, URL §5.1.3):
    /// the member paths inside it that are returned. A property selected whole is not here.
    public var members: [String: [[String]]]

    public init(all: Bool = true, properties: [String] = [], computed: [String] = [], members: [String: [[String]]] = [:]) {
        self.all = all
        self.properties = properties
        self.computed = computed
        self.members = members
    }

    /// True when the computed property `alias` is returned.
    public func includes(computed alias: String) -> Bool {
        all || computed.contains(alias)
    }

    public static let everything = BoundSelection()
}

/// One `$expand` item after binding.
public struct BoundExpandItem: Sendable, Hashable {
    public var navigation: BoundNavigationStep
    public var suffix: SyntaxExpandItem.Suffix
    /// Nested options, bound against the target type. For `$levels=n` the binder repeats this
    /// item inside its own options n-1 times.
    public var options: BoundQueryOptions

    public init(navigation: BoundNavigationStep, suffix: SyntaxExpandItem.Suffix, options: BoundQueryOptions) {
        self.navigation = navigation
        self.suffix = suffix
        self.options = options
    }
}

/// The query options of a request (or of an expand item) after binding.
public struct BoundQueryOptions: Sendable, Hashable {
    public var filter: BoundExpr?
    public var search: SyntaxSearch?
    public var orderBy: [BoundOrderItem]
    public var top: Int?
    public var skip: Int?
    public var count: Bool
    public var select: BoundSelection
    public var expand: [BoundExpandItem]
    public var skipToken: String?
    /// `$compute`, in the order written (docs/Query.md §5). `filter` and `orderBy` already hold
    /// the computed expressions in place of the aliases they name.
    public var compute: [BoundComputeItem]
    /// `$select` over the elements of a collection of complex values (`…/AddressInfo?$select=City`):
    /// the member paths each element keeps; nil for every member.
    public var elementSelect: [[String]]?

    public init(filter: BoundExpr? = nil, search: SyntaxSearch? = nil, orderBy: [BoundOrderItem] = [], top: Int? = nil,
                skip: Int? = nil, count: Bool = false, select: BoundSelection = .everything,
                expand: [BoundExpandItem] = [], skipToken: String? = nil, compute: [BoundComputeItem] = []) {
        self.compute = compute
        self.filter = filter
        self.search = search
        self.orderBy = orderBy
        self.top = top
        self.skip = skip
        self.count = count
        self.select = select
        self.expand = expand
        self.skipToken = skipToken
    }

    /// Canonical text of what decides membership and order (for skip-token fingerprints).
    public var shapeText: [String] {
        [filter.map { BoundPrinter.print($0) } ?? "", search.map { "\($0)" } ?? "",
         orderBy.map { BoundPrinter.print($0.expression) + ($0.descending ? " desc" : "") }.joined(separator: ",")]
    }
}

/// A whole request after binding.
public struct BoundRequest: Sendable, Hashable {
    public var path: BoundResourcePath
    public var options: BoundQueryOptions
    /// The request as parsed (for next links).
    public var syntax: SyntaxURL

    public init(path: BoundResourcePath, options: BoundQueryOptions, syntax: SyntaxURL) {
        self.path = path
        self.options = options
        self.syntax = syntax
    }
}

/// Binds a parsed URL against the model: the resource path, then each query option against the
/// type the path addresses, checking that every option is allowed where it is used
/// (docs/Query.md §2; URL Conventions §5).
public struct RequestBinder: Sendable {
    public let model: ServiceModel
    /// `$levels=max` expands this many levels (cycles end there).
    public static let maxLevels = 8

    public init(model: ServiceModel) {
        self.model = model
    }

    public func bind(_ url: SyntaxURL) throws(ODataError) -> BoundRequest {
        let path = try ResourcePathBinder(model: model, aliases: url.options.aliases).bind(url.path)
        let options = url.options
        var bound = BoundQueryOptions()
        switch path.target {
        case .entityCollection(_, let type):
            let allowed: Set<String>
            // `$compute` is evaluated first (URL §5.1.3), so `$filter` of `/$count` and `/$ref` may use it.
            switch path.suffix {
            case .count: allowed = ["$filter", "$search", "$compute"]
            case .ref: allowed = ["$filter", "$search", "$orderby", "$top", "$skip", "$count", "$skiptoken", "$compute"]
            default: allowed = ["$filter", "$search", "$orderby", "$top", "$skip", "$count", "$select", "$expand", "$skiptoken", "$compute"]
            }
            try check(options, allowed: allowed, where: "a collection" + (path.suffix == .count ? " with /$count" : ""))
            bound = try bindOptions(options, type: type, set: path.targetSet, aliases: options.aliases, depth: 0)
            // `/$filter(…)` segments restrict the same collection: joined with `$filter` by `and`.
            bound.filter = Self.conjunction(path.filters + (bound.filter.map { [$0] } ?? []))
        case .entity(_, let type):
            try check(options, allowed: ["$select", "$expand", "$compute"], where: "a single entity")
            bound = try bindOptions(options, type: type, set: path.targetSet, aliases: options.aliases, depth: 0)
        case .property(_, let type) where type.isCollection && path.suffix == .none:
            // A collection-valued property (URL §4.8): its elements filtered, ordered, paged
            // and counted, with `$it` (and bare names, for complex elements) the element.
            // Valid there but not evaluated by the offline store: not supported (501), never ignored.
            var unsupported = ["$expand", "$compute", "$search"]
            var single = type
            single.isCollection = false
            let complexElements: Bool
            if case .complex = type.kind { complexElements = true } else { complexElements = false }
            if !complexElements { unsupported.append("$select") }
            for name in unsupported where Self.present(options).contains(name) {
                throw .requestNotSupported("\(name) on the elements of a collection-valued property is not supported by the offline store",
                                           location: name)
            }
            try check(options, allowed: ["$filter", "$orderby", "$top", "$skip", "$count", "$select"], where: "a collection-valued property")
            if let items = options.select {
                // Members of complex elements (URL §5.1.3): each element keeps only those.
                var paths: [[String]] = []
                for item in items {
                    switch item {
                    case .star: paths = []
                    case .allOperations: continue
                    case .path(let segments, let nested, let position):
                        if let nested, !Self.present(nested).isEmpty {
                            throw .requestNotSupported("options inside $select are not supported by the offline store",
                                                       location: "$select, position \(position)")
                        }
                        paths.append(try selectMembers(segments[...], in: single, position: position))
                    }
                }
                let everything = items.contains { if case .star = $0 { return true } else { return false } }
                bound.elementSelect = everything ? nil : paths
            }
            if options.filter != nil || options.orderBy != nil {
                guard let owner = Self.ownerType(of: path, model: model) else {
                    throw .requestNotSupported("$filter and $orderby of a property of this resource", location: "path")
                }
                let binder = try ExpressionBinder(model: model, entityType: owner, aliases: options.aliases)
                if let filter = options.filter { bound.filter = try binder.bindElementFilter(filter, element: type) }
                if let orderBy = options.orderBy { bound.orderBy = try binder.bindElementOrderBy(orderBy, element: type) }
            }
            bound.top = options.top.map(RowCount.clamp)
            bound.skip = options.skip.map(RowCount.clamp)
            bound.count = options.count ?? false
        case .property, .serviceDocument, .metadata, .batch:
            try check(options, allowed: [], where: "this resource")
        }
        return BoundRequest(path: path, options: bound, syntax: url)
    }

    /// The entity type holding the property a path ends in (the last entity the path reaches).
    static func ownerType(of path: BoundResourcePath, model: ServiceModel) -> String? {
        var type: String?
        for step in path.steps {
            switch step {
            case .entitySet(let name): type = model.entitySet(named: name).map { model.resolveAlias($0.entityType) }
            case .singleton(let name): type = model.singleton(named: name).map { model.resolveAlias($0.entityType) }
            case .navigation(_, let targetType, _, _): type = targetType
            case .typeCast(let name): type = name
            case .key, .property, .filter: continue
            }
        }
        return type
    }

    func check(_ options: SyntaxQueryOptions, allowed: Set<String>, where place: String) throws(ODataError) {
        for name in Self.present(options) where !allowed.contains(name) {
            throw .invalidQueryOption("\(name) is not allowed on \(place)", option: name)
        }
    }

    static func present(_ options: SyntaxQueryOptions) -> [String] {
        var names: [String] = []
        if options.filter != nil { names.append("$filter") }
        if options.search != nil { names.append("$search") }
        if options.orderBy != nil { names.append("$orderby") }
        if options.top != nil { names.append("$top") }
        if options.skip != nil { names.append("$skip") }
        if options.count != nil { names.append("$count") }
        if options.select != nil { names.append("$select") }
        if options.expand != nil { names.append("$expand") }
        if options.levels != nil { names.append("$levels") }
        if options.compute != nil { names.append("$compute") }
        if options.skipToken != nil { names.append("$skiptoken") }
        if options.deltaToken != nil { names.append("$deltatoken") }
        return names
    }

    /// `it`: the resource the URL addresses (type and set), which `$it` names inside nested
    /// `$expand` options (URL Conventions §5.1.1.11.4); nil at the top level, where it is `type`.
    func bindOptions(_ options: SyntaxQueryOptions, type: String, set: String?, aliases: [String: SyntaxExpr], depth: Int,
                     it: (type: String, set: String?)? = nil) throws(ODataError) -> BoundQueryOptions {
        guard depth <= 16 else { throw .invalidQueryOption("$expand is nested more than 16 levels", option: "$expand") }
        if let format = options.format, format.lowercased() != "json", !format.lowercased().hasPrefix("application/json") {
            throw .requestNotSupported("$format=\(format): the offline store answers in JSON only", location: "$format")
        }
        var binder = try ExpressionBinder(model: model, entityType: type, aliases: aliases)
        if let it {
            binder = ExpressionBinder(model: model, entityType: binder.entityType, entitySet: set ?? binder.entitySet,
                                      it: it.type, itSet: it.set, aliases: aliases)
        }
        let root = it ?? (binder.entityType, set ?? binder.entitySet)
        var bound = BoundQueryOptions()
        // `$compute` first: the other options may name its aliases.
        if let compute = options.compute {
            bound.compute = try bindCompute(compute, type: type, binder: &binder, place: depth == 0 ? "$compute" : "$expand")
        }
        if let filter = options.filter { bound.filter = try binder.bindFilter(filter) }
        bound.search = options.search
        if let orderBy = options.orderBy { bound.orderBy = try binder.bindOrderBy(orderBy) }
        bound.top = options.top.map(RowCount.clamp)
        bound.skip = options.skip.map(RowCount.clamp)
        bound.count = options.count ?? false
        bound.skipToken = options.skipToken
        if let select = options.select { bound.select = try bindSelect(select, type: type, computed: bound.compute.map(\.alias)) }
        if let expand = options.expand { bound.expand = try bindExpand(expand, type: type, set: set, aliases: aliases, depth: depth, it: root) }
        return bound
    }

    func entityType(_ name: String) throws(ODataError) -> CSDLEntityType {
        guard let type = model.entityType(qualifiedName: model.resolveAlias(name)) else {
            throw .invalidQueryOption("unknown entity type \(name)", option: "$select")
        }
        return type
    }

    func bindSelect(_ items: [SyntaxSelectItem], type name: String, computed aliases: [String] = []) throws(ODataError) -> BoundSelection {
        let type = try entityType(name)
        let properties = model.allProperties(of: type)
        var selected = Set<String>()
        var selectedComputed = Set<String>()
        var whole = Set<String>()
        var members: [String: [[String]]] = [:]
        for item in items {
            switch item {
            case .star:
                return .everything
            case .allOperations:
                continue
            case .path(let segments, let nested, let position):
                guard case .member(let first, _)? = segments.first else {
                    throw .invalidQueryOption("$select item at position \(position) must start with a property name", option: "$select")
                }
                // Options on a selected collection or complex property (`AddressInfo($filter=…)`)
                // are not applied here: refused (501), never dropped (an answer with every
                // element would look like the filtered one).
                if let nested, !Self.present(nested).isEmpty {
                    throw .requestNotSupported("$select=\(first)(\(Self.present(nested).joined(separator: ","))…): options inside $select "
                                               + "are not supported by the offline store", location: "$select, position \(position)")
                }
                if let property = properties.first(where: { $0.name == first }) {
                    selected.insert(first)
                    if segments.count == 1 {
                        whole.insert(first)
                    } else {
                        members[first, default: []].append(try selectMembers(segments.dropFirst(), in: property.type, position: position))
                    }
                } else if aliases.contains(first) {
                    guard segments.count == 1 else {
                        throw .invalidQueryOption("$select item at position \(position): computed property \(first) has no members", option: "$select")
                    }
                    selectedComputed.insert(first)
                } else if model.navigationProperty(first, of: type) != nil {
                    continue  // selecting a navigation property only matters for links
                } else if type.isOpen {
                    selected.insert(first)
                } else {
                    throw ODataError(.invalidInput, name: "invalidProperty", code: 1756,
                                     message: "$select: \(type.qualifiedName) has no property '\(first)'",
                                     location: "$select, position \(position)")
                }
            }
        }
        // Key properties are always returned (URL §5.1.4: the service decides, keys included).
        for key in model.keyProperties(of: type) {
            selected.insert(key.name)
            whole.insert(key.name)
        }
        // A property selected whole is returned whole, whatever paths inside it are named too.
        for name in whole { members[name] = nil }
        return BoundSelection(all: false, properties: properties.map(\.name).filter { selected.contains($0) },
                              computed: aliases.filter { selectedComputed.contains($0) }, members: members)
    }

    /// The member names of a `$select` path inside a complex (or complex collection) property
    /// of type `type`, each checked against its complex type.
    func selectMembers(_ segments: ArraySlice<SyntaxPathSegment>, in type: CSDLTypeReference, position: Int) throws(ODataError) -> [String] {
        var names: [String] = []
        var current = type
        for segment in segments {
            guard case .member(let name, _) = segment else {
                throw .requestNotSupported("$select item at position \(position): type casts and other segments inside a complex "
                                           + "value are not supported by the offline store", location: "$select, position \(position)")
            }
            guard case .complex(let complexName) = current.kind, let complex = model.complexType(qualifiedName: complexName) else {
                throw .invalidQueryOption("$select item at position \(position): '\(name)' cannot follow a value of type \(current)",
                                          option: "$select")
            }
            guard let member = model.allProperties(ofComplex: complex).first(where: { $0.name == name }) else {
                if complex.navigationProperties.contains(where: { $0.name == name }) {
                    throw .requestNotSupported("$select item at position \(position): navigation property '\(name)' of a complex value",
                                               location: "$select, position \(position)")
                }
                throw ODataError(.invalidInput, name: "invalidProperty", code: 1756,
                                 message: "$select: \(complex.qualifiedName) has no property '\(name)'", location: "$select, position \(position)")
            }
            names.append(name)
            current = member.type
        }
        return names
    }

    func bindExpand(_ items: [SyntaxExpandItem], type name: String, set: String?, aliases: [String: SyntaxExpr], depth: Int,
                    it: (type: String, set: String?)? = nil) throws(ODataError) -> [BoundExpandItem] {
        let type = try entityType(name)
        var result: [BoundExpandItem] = []
        var named = Set<String>()
        var star: SyntaxExpandItem?
        let items = model.version == .v2 ? Self.unfoldV2Paths(items) : items
        for item in items {
            switch item.target {
            case .star:
                star = item
            case .value:
                throw .requestNotSupported("$expand=$value (media) is not supported", location: "$expand, position \(item.position)")
            case .path(let segments):
                var names: [String] = []
                for segment in segments {
                    switch segment {
                    case .member(let n, _): names.append(n)
                    case .typeCast: continue
                    default:
                        throw .invalidQueryOption("$expand item at position \(item.position) is not a navigation path", option: "$expand")
                    }
                }
                guard names.count == 1, let navName = names.first else {
                    throw .requestNotSupported("$expand through complex properties or several hops (\(names.joined(separator: "/"))) is not supported; nest $expand instead",
                                               location: "$expand, position \(item.position)")
                }
                guard named.insert(navName).inserted else {
                    throw .invalidQueryOption("$expand names \(navName) twice", option: "$expand")
                }
                result.append(try bindExpandItem(item, navigation: navName, source: type, sourceSet: set, aliases: aliases, depth: depth, it: it))
            }
        }
        if let star {
            for navigation in model.allNavigationProperties(of: type) where !named.contains(navigation.name) {
                result.append(try bindExpandItem(star, navigation: navigation.name, source: type, sourceSet: set, aliases: aliases, depth: depth, it: it))
            }
        }
        return result
    }

    /// OData V2's `$expand=to_Item/to_PricingElement` (expand `to_Item`, and in each item its
    /// `to_PricingElement`) as V4 writes it, `to_Item($expand=to_PricingElement)`. Items that
    /// start with the same navigation are merged (`to_Item,to_Item/to_PricingElement`), their
    /// nested expands joined. V4 has no such paths (4.01 ABNF `expandPath`).
    static func unfoldV2Paths(_ items: [SyntaxExpandItem]) -> [SyntaxExpandItem] {
        var out: [SyntaxExpandItem] = []
        var index: [String: Int] = [:]
        for item in items {
            guard case .path(let segments) = item.target, segments.count > 1,
                  segments.allSatisfy({ if case .member = $0 { return true } else { return false } }) else {
                if case .path(let segments) = item.target, segments.count == 1, case .member(let name, _) = segments[0] {
                    if let at = index[name], out[at].options.expand != nil, item.options == SyntaxQueryOptions() {
                        continue   // `to_Item` after `to_Item/…`: already expanded
                    }
                    index[name] = out.count
                }
                out.append(item)
                continue
            }
            guard case .member(let first, _) = segments[0] else { out.append(item); continue }
            var rest = item
            rest.target = .path(Array(segments.dropFirst()))
            if let at = index[first] {
                var merged = out[at]
                merged.options.expand = unfoldV2Paths((merged.options.expand ?? []) + [rest])
                out[at] = merged
            } else {
                index[first] = out.count
                out.append(SyntaxExpandItem(target: .path([segments[0]]), options: SyntaxQueryOptions(expand: unfoldV2Paths([rest])),
                                            position: item.position))
            }
        }
        return out
    }

    func bindExpandItem(_ item: SyntaxExpandItem, navigation name: String, source: CSDLEntityType, sourceSet: String?,
                        aliases: [String: SyntaxExpr], depth: Int, it: (type: String, set: String?)? = nil) throws(ODataError) -> BoundExpandItem {
        guard let navigation = model.navigationProperty(name, of: source) else {
            throw ODataError(.invalidInput, name: "invalidProperty", code: 1756,
                             message: "$expand: \(source.qualifiedName) has no navigation property '\(name)'",
                             location: "$expand, position \(item.position)")
        }
        let targetType = try entityType(navigation.targetType)
        let targetSet = sourceSet.flatMap { model.navigationTarget(set: $0, navigation: name)?.name }
        let step = BoundNavigationStep(name: name, targetEntityType: targetType.qualifiedName, targetSet: targetSet,
                                       isCollection: navigation.isCollection)
        let allowed: Set<String>
        switch item.suffix {
        case .ref: allowed = ["$filter", "$search", "$skip", "$top", "$count", "$orderby"]
        case .count: allowed = ["$filter", "$search"]
        case .none:
            allowed = navigation.isCollection
                ? ["$filter", "$search", "$orderby", "$top", "$skip", "$count", "$select", "$expand", "$levels", "$compute"]
                : ["$select", "$expand", "$levels", "$compute"]
        }
        try check(item.options, allowed: allowed, where: "$expand=\(name)")
        var options = try bindOptions(item.options, type: targetType.qualifiedName, set: targetSet, aliases: aliases, depth: depth + 1, it: it)
        var levels = 1
        switch item.options.levels {
        case .count(let n)?: levels = n
        case .max?: levels = Self.maxLevels
        case nil: break
        }
        guard levels >= 1 else { throw .invalidQueryOption("$levels must be a positive integer or max", option: "$levels") }
        if levels > 1 {
            guard model.navigationProperty(name, of: targetType) != nil else {
                throw .invalidQueryOption("$levels on \(name): \(targetType.qualifiedName) has no navigation property '\(name)' to recurse into", option: "$levels")
            }
            var nestedItem = item
            nestedItem.options.levels = levels - 1 > 1 ? .count(min(levels - 1, Self.maxLevels)) : nil
            let nested = try bindExpandItem(nestedItem, navigation: name, source: targetType, sourceSet: targetSet, aliases: aliases,
                                            depth: depth + 1, it: it)
            options.expand.removeAll { $0.navigation.name == name }
            options.expand.append(nested)
        }
        return BoundExpandItem(navigation: step, suffix: item.suffix, options: options)
    }
}
