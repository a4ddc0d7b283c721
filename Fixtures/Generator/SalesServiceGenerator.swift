/// A deterministic, random-access generator of an EPM-like sales service (business partners,
/// contacts, products, sales orders and their items; modelled on SAP's GWSAMPLE_BASIC).
///
/// The same `seed` and `scale` always give identical bytes. Every entity is computed from
/// `(seed, set, index)` alone, so any page can be produced independently in O(page) memory.
/// See `Fixtures/README.md`.
public struct SalesServiceGenerator: Sendable, Hashable {
    public let seed: UInt64
    public let scale: Scale
    /// Sales order → items (1 to ~12 per order, 4 on average).
    let itemDistribution: BlockDistribution
    /// Business partner → contacts (at least 1, 2 on average).
    let contactDistribution: BlockDistribution

    public init(seed: UInt64, scale: Scale) {
        self.seed = seed
        self.scale = scale
        self.itemDistribution = BlockDistribution(
            parents: scale.salesOrders, perParent: Scale.itemsPerOrder, seed: seed, salt: 0x1735)
        self.contactDistribution = BlockDistribution(
            parents: scale.businessPartners, perParent: Scale.contactsPerPartner, seed: seed, salt: 0xC0C0)
    }

    /// The number of entities in `set`.
    public func count(of set: SalesEntitySet) -> Int {
        scale.count(of: set)
    }

    /// The number of pages of `pageSize` entities in `set` (an empty set has one, empty, page).
    public func pageCount(of set: SalesEntitySet, pageSize: Int) throws(FixtureError) -> Int {
        guard pageSize >= 1 else { throw .invalidPageSize(pageSize) }
        let total = count(of: set)
        return total == 0 ? 1 : (total - 1) / pageSize + 1
    }

    /// Page `index` (0-based) of `set`: an OData JSON 4.01 collection response
    /// `{"@odata.context":"$metadata#Set",["@odata.count":n,]"value":[…][,"@odata.nextLink":"Set?$skiptoken=k"]}`.
    /// The next link is present only when more entities follow; its skip token `k` is the
    /// offset of the next page's first entity (see `page(set:skipToken:pageSize:options:)`).
    public func page(
        set: SalesEntitySet, index: Int, pageSize: Int, options: PageOptions = PageOptions()
    ) throws(FixtureError) -> [UInt8] {
        let pages = try pageCount(of: set, pageSize: pageSize)
        guard index >= 0, index < pages else { throw .pageOutOfRange(index, set: set, pages: pages) }
        return renderPage(set: set, start: index * pageSize, pageSize: pageSize, options: options)
    }

    /// The page that starts at entity offset `skipToken` (the value of `$skiptoken` in a next
    /// link). `skipToken` may be any offset in `0...count(of: set)`.
    public func page(
        set: SalesEntitySet, skipToken: Int, pageSize: Int, options: PageOptions = PageOptions()
    ) throws(FixtureError) -> [UInt8] {
        guard pageSize >= 1 else { throw .invalidPageSize(pageSize) }
        let total = count(of: set)
        guard skipToken >= 0, skipToken <= total else {
            throw .entityIndexOutOfRange(skipToken, set: set, count: total)
        }
        return renderPage(set: set, start: skipToken, pageSize: pageSize, options: options)
    }

    /// The `$skiptoken` of a next link produced by `page` (`…?$skiptoken=500` → 500).
    public static func skipToken(inNextLink link: String) throws(FixtureError) -> Int {
        let marker = "$skiptoken="
        guard let range = link.firstRange(of: marker) else { throw .invalidSkipToken(link, offset: nil) }
        let digits = link[range.upperBound...].prefix { $0 != "&" }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits)
        else {
            throw .invalidSkipToken(link, offset: link.utf8.distance(from: link.startIndex, to: range.upperBound))
        }
        return value
    }

    /// One entity as a single-entity response:
    /// `{"@odata.context":"$metadata#Set/$entity",["@odata.etag":"W/\"…\"",]…properties}`.
    public func entityJSON(
        set: SalesEntitySet, index: Int, options: PageOptions = PageOptions()
    ) throws(FixtureError) -> [UInt8] {
        let total = count(of: set)
        guard index >= 0, index < total else { throw .entityIndexOutOfRange(index, set: set, count: total) }
        let body = entityBody(set: set, index: index, quoted: options.ieee754Compatible)
        var writer = JSONWriter(capacity: body.count + 96)
        writer.beginObject()
        writer.name("@odata.context")
        writer.string(options.serviceRoot + "$metadata#" + set.name + "/$entity")
        if options.includeETags {
            writer.name("@odata.etag")
            writer.string(Self.etag(of: body))
        }
        var bytes = writer.bytes
        bytes.append(UInt8(ascii: ","))
        bytes.append(contentsOf: body.dropFirst())
        return bytes
    }

    /// The bare JSON object of one entity (properties only, in declaration order, no control
    /// information), or nil when `index` is out of range.
    public func entityProperties(set: SalesEntitySet, index: Int, ieee754Compatible: Bool = false) -> [UInt8]? {
        guard index >= 0, index < count(of: set) else { return nil }
        return entityBody(set: set, index: index, quoted: ieee754Compatible)
    }

    /// The weak ETag of an entity's property JSON: `W/"<FNV-1a hex>"`.
    static func etag<C: Collection<UInt8>>(of body: C) -> String {
        "W/\"" + TextFormatting.hex64(TextFormatting.fnv1a(body)) + "\""
    }

    func renderPage(set: SalesEntitySet, start: Int, pageSize: Int, options: PageOptions) -> [UInt8] {
        let total = count(of: set)
        let end = start + Swift.min(pageSize, total - start)
        var writer = JSONWriter(capacity: (end - start) * 400 + 128)
        writer.beginObject()
        writer.name("@odata.context")
        writer.string(options.serviceRoot + "$metadata#" + set.name)
        if options.includeCount {
            writer.name("@odata.count")
            writer.int(total)
        }
        writer.name("value")
        writer.beginArray()
        for index in start..<end {
            let body = entityBody(set: set, index: index, quoted: options.ieee754Compatible)
            if options.includeETags {
                var head = JSONWriter(capacity: 48)
                head.beginObject()
                head.name("@odata.etag")
                head.string(Self.etag(of: body))
                head.bytes.append(UInt8(ascii: ","))
                head.bytes.append(contentsOf: body.dropFirst())
                writer.raw(head.bytes)
            } else {
                writer.raw(body)
            }
        }
        writer.endArray()
        if end < total {
            writer.name("@odata.nextLink")
            writer.string(options.serviceRoot + set.name + "?$skiptoken=" + String(end))
        }
        writer.endObject()
        return writer.bytes
    }

    func entityBody(set: SalesEntitySet, index: Int, quoted: Bool) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        switch set {
        case .businessPartners: writeBusinessPartner(index, into: &writer, quoted: quoted)
        case .contacts: writeContact(index, into: &writer, quoted: quoted)
        case .products: writeProduct(index, into: &writer, quoted: quoted)
        case .salesOrders: writeSalesOrder(index, into: &writer, quoted: quoted)
        case .salesOrderItems: writeSalesOrderItem(index, into: &writer, quoted: quoted)
        }
        return writer.bytes
    }
}
