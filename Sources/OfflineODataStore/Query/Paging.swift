import OfflineODataModel
import OfflineODataQuery

/// `$skip`, `$top`, the page size and the `$skiptoken` of one collection request
/// (docs/QueryExecution.md §4).
struct Paging {
    let options: BoundQueryOptions
    let pageSize: Int?
    /// The request's shape (path, filter, search, order), which a token must match; computed
    /// only when a token is read or written (printing the request costs more than a short query).
    let shape: () -> UInt32
    var fingerprint: UInt32 { shape() }
    /// Resume position from the token: sort values, key values.
    private(set) var token: SkipToken?
    /// The token's position as the collector compares it (key encoded for the set).
    var position: (values: [ODataValue], key: [UInt8])?

    init(options: BoundQueryOptions, pageSize: Int?, fingerprint: @escaping () -> UInt32) {
        self.options = options
        self.pageSize = pageSize.map(RowCount.clamp)
        self.shape = fingerprint
    }

    /// `$skip` applies on the first page only; a token's position already accounts for it.
    var skip: Int { token == nil ? (options.skip ?? 0) : 0 }

    /// Rows returned by this page: the smaller of `$top` and the page size.
    var take: Int? {
        switch (options.top, pageSize) {
        case let (top?, size?): return min(top, size)
        case let (top?, nil): return top
        case let (nil, size?): return size
        case (nil, nil): return nil
        }
    }

    /// Rows the collector must produce in order (`skip + take`), nil when unbounded.
    var limit: Int? { take.map { RowCount.sum(skip, $0) } }

    /// Whether a full page means more pages: only when the page size, not `$top`, cut it.
    var pageSizeLimits: Bool {
        guard let pageSize else { return false }
        return options.top.map { $0 > pageSize } ?? true
    }

    mutating func readToken(reader: EntityReader, set: String, keyCount: Int) throws(ODataError) {
        guard let text = options.skipToken else { return }
        let token = try SkipToken.decode(text, expectedFingerprint: fingerprint)
        let sortCount = options.orderBy.count
        guard token.position.count == sortCount + keyCount else {
            throw ODataError(.invalidInput, name: "invalidSkipToken", code: 1755,
                             message: "the skip token does not fit this request's $orderby and key", location: "$skiptoken")
        }
        let key = try reader.encodeKey(Array(token.position[sortCount...]), in: set)
        position = (Array(token.position[..<sortCount]), key)
        self.token = token
    }

    /// For a plain key-order scan, the encoded key to resume after (a seek instead of a walk).
    func resumeKeyForScan(_ plan: QueryPlan) -> [UInt8]? {
        // With `$count=true` every match must be seen (the count covers all pages): no seek.
        guard let position, options.orderBy.isEmpty, !options.count, case .scan = plan.access else { return nil }
        if case .accessOrder(true) = plan.order { return nil }
        return position.key
    }

    /// The next link: the request with `$skiptoken` set to the last row's position, `$skip`
    /// dropped and `$top` reduced by what this page returned.
    func nextLink(after last: ResultRow?, returned: Int, request: BoundRequest) throws(ODataError) -> String? {
        guard let last else { return nil }
        var values = last.sortValues
        values += try last.entity.key()
        let token = try SkipToken(position: values, fingerprint: fingerprint).encoded()
        var syntax = request.syntax
        syntax.options.skipToken = token
        syntax.options.skip = nil
        if let top = options.top { syntax.options.top = top - returned }
        return SyntaxPrinter.printLink(syntax)
    }
}
