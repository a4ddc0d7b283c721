import OfflineODataModel

/// A whole request URL relative to the service root, as written: resource path plus query
/// options (docs/Query.md §1). Produced by the parser without the model.
public struct SyntaxURL: Sendable, Hashable {
    public var path: SyntaxResourcePath
    public var options: SyntaxQueryOptions

    public init(path: SyntaxResourcePath, options: SyntaxQueryOptions = SyntaxQueryOptions()) {
        self.path = path
        self.options = options
    }
}

/// The resource path (URL Conventions §4): `Set`, `Set(key)`, `Set/key` (key-as-segment is read
/// as `.identifier` and reinterpreted by the binder), navigation hops, casts, `$count`, `$ref`,
/// `$value`, `$filter(…)` segments, function calls, `$metadata`, `$batch`, `$entity`, `$all`.
public struct SyntaxResourcePath: Sendable, Hashable {
    public var segments: [SyntaxResourceSegment]

    public init(segments: [SyntaxResourceSegment]) {
        self.segments = segments
    }
}

public enum SyntaxResourceSegment: Sendable, Hashable {
    /// An entity set, singleton, property, navigation property, or a key-as-segment value.
    case identifier(String, position: Int)
    /// A qualified type-cast segment.
    case typeCast(String, position: Int)
    /// `(…)` after a collection: positional (`(1)`, `('a')`) or named (`(A=1,B='x')`).
    case key([SyntaxKeyValue], position: Int)
    /// `Name(p=…)`: a function or function import call.
    case function(String, parameters: [SyntaxKeyValue], position: Int)
    /// `$filter(expr)` path segment (URL §4.12).
    case filter(SyntaxExpr, position: Int)
    case count(position: Int)
    case ref(position: Int)
    case value(position: Int)
    /// `$metadata`, `$batch`, `$entity`, `$all`, `$crossjoin(…)`: the name without `$`.
    case system(String, position: Int)
}

/// All query options of a request or of one nested `$expand`/`$select` item. System option names
/// are case-insensitive and the `$` is optional (4.01); each may appear once.
public struct SyntaxQueryOptions: Sendable, Hashable {
    public var filter: SyntaxExpr?
    public var search: SyntaxSearch?
    public var orderBy: [SyntaxOrderItem]?
    public var top: Int?
    public var skip: Int?
    /// `$count=true|false`.
    public var count: Bool?
    public var select: [SyntaxSelectItem]?
    public var expand: [SyntaxExpandItem]?
    /// `$levels=n|max` (only inside `$expand` items).
    public var levels: SyntaxLevels?
    public var compute: [SyntaxComputeItem]?
    /// Opaque `$skiptoken` / `$deltatoken` (the store that issued them reads them).
    public var skipToken: String?
    public var deltaToken: String?
    public var format: String?
    /// `$schemaversion`, `$index`, `$id` and other system options kept as text.
    public var otherSystemOptions: [String: String]
    /// Parameter aliases `@name=value`, values parsed as expressions (`nil` value text is not
    /// possible: an alias without a value is simply absent and evaluates to null).
    public var aliases: [String: SyntaxExpr]
    /// Custom query options (no `$`/`@` prefix), in order.
    public var customOptions: [SyntaxCustomOption]

    public init(
        filter: SyntaxExpr? = nil, search: SyntaxSearch? = nil, orderBy: [SyntaxOrderItem]? = nil,
        top: Int? = nil, skip: Int? = nil, count: Bool? = nil, select: [SyntaxSelectItem]? = nil,
        expand: [SyntaxExpandItem]? = nil, levels: SyntaxLevels? = nil,
        compute: [SyntaxComputeItem]? = nil, skipToken: String? = nil, deltaToken: String? = nil,
        format: String? = nil, otherSystemOptions: [String: String] = [:],
        aliases: [String: SyntaxExpr] = [:], customOptions: [SyntaxCustomOption] = []
    ) {
        self.filter = filter
        self.search = search
        self.orderBy = orderBy
        self.top = top
        self.skip = skip
        self.count = count
        self.select = select
        self.expand = expand
        self.levels = levels
        self.compute = compute
        self.skipToken = skipToken
        self.deltaToken = deltaToken
        self.format = format
        self.otherSystemOptions = otherSystemOptions
        self.aliases = aliases
        self.customOptions = customOptions
    }
}

public struct SyntaxCustomOption: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

public struct SyntaxOrderItem: Sendable, Hashable {
    public var expression: SyntaxExpr
    public var descending: Bool

    public init(expression: SyntaxExpr, descending: Bool = false) {
        self.expression = expression
        self.descending = descending
    }
}

public enum SyntaxLevels: Sendable, Hashable {
    case count(Int)
    case max
}

public struct SyntaxComputeItem: Sendable, Hashable {
    public var expression: SyntaxExpr
    public var alias: String
    /// Offset of the alias name in the option value (0 when built by hand); the binder names
    /// it in alias errors. Added for `$compute` binding (additive).
    public var aliasPosition: Int

    public init(expression: SyntaxExpr, alias: String, aliasPosition: Int = 0) {
        self.expression = expression
        self.alias = alias
        self.aliasPosition = aliasPosition
    }
}

/// One `$select` item (URL §5.1.4).
public enum SyntaxSelectItem: Sendable, Hashable {
    /// `*`.
    case star(position: Int)
    /// `Namespace.*`: all operations of a namespace.
    case allOperations(namespace: String, position: Int)
    /// A path of property names and type casts (`Address/City`, `Ns.Manager/Budget`), with
    /// nested options for complex and collection properties (`Addresses($top=1)`).
    case path([SyntaxPathSegment], options: SyntaxQueryOptions?, position: Int)
}

/// One `$expand` item (URL §5.1.3).
public struct SyntaxExpandItem: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        /// A navigation path: member names and type casts (`Orders`, `Ns.Manager/DirectReports`).
        case path([SyntaxPathSegment])
        /// `*`.
        case star
        /// `$value` (media resource).
        case value
    }

    public enum Suffix: Sendable, Hashable {
        case none
        /// `/$ref`: references only.
        case ref
        /// `/$count`.
        case count
    }

    public var target: Target
    public var suffix: Suffix
    /// Nested options in `( … )`, separated by `;` (`$levels` is `options.levels`).
    public var options: SyntaxQueryOptions
    public var position: Int

    public init(target: Target, suffix: Suffix = .none, options: SyntaxQueryOptions = SyntaxQueryOptions(), position: Int) {
        self.target = target
        self.suffix = suffix
        self.options = options
        self.position = position
    }
}

/// A `$search` expression (URL §5.1.8): terms, phrases, `NOT`, `AND` (also implicit by space),
/// `OR`, grouping. Keywords are upper-case only.
public indirect enum SyntaxSearch: Sendable, Hashable {
    case term(String)
    case phrase(String)
    case not(SyntaxSearch)
    case and(SyntaxSearch, SyntaxSearch)
    case or(SyntaxSearch, SyntaxSearch)
}
