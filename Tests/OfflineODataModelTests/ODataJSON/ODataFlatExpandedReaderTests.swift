import OfflineODataFixtures
import PropertyBased
import Testing
@testable import OfflineODataModel

/// The flat reader with expanded navigations read in place (`expanding`), against the general
/// reader as its oracle: for every page it answers, each top-level entity and each entity expanded
/// under it encode to the bytes the general reader's entities encode to, with their ETags, in
/// payload order; a page the general reader refuses, or with expanded content of a navigation
/// not read in place, is not answered. Pages are the generated sales service's orders with
/// their items (`ToItems`, a collection) and customer (`ToCustomer`, a single navigation),
/// randomly shaped and randomly damaged.
@Suite struct ODataFlatExpandedReaderTests {
    typealias Choices = ODataFlatPageReaderTests.Choices

    struct Fixture {
        let generator = SalesServiceGenerator(seed: 11, scale: .entities(salesOrders: 30))
        let model: ServiceModel
        let reader: ODataJSONReader
        let slots: [String: [String]]
        let codecs: [String: EntityCodec]

        init() throws {
            model = try ServiceModel.parse(metadata: Array(generator.metadataXML().utf8))
            reader = ODataJSONReader(model: model)
            var slots: [String: [String]] = [:], codecs: [String: EntityCodec] = [:]
            for set in ["SalesOrders", "SalesOrderItems", "BusinessPartners"] {
                let typeName = try #require(model.entitySet(named: set)).entityType
                let type = try #require(model.entityType(qualifiedName: typeName))
                let names = model.inheritanceChain(of: type).reversed().flatMap { $0.properties.map(\.name) }
                slots[set] = names
                codecs[set] = EntityCodec(layout: ODataFlatPageReaderTests.layout(model, set: set, slots: names))
            }
            self.slots = slots
            self.codecs = codecs
        }

        func flat(_ set: String) throws -> ODataFlatPageReader {
            try #require(ODataFlatPageReader(reader: reader, entitySet: set, slots: slots[set] ?? []))
        }

        /// The orders reader with both navigations read in place.
        func ordersReader() throws -> ODataFlatPageReader {
            let items = try #require(try flat("SalesOrders").expanding("ToItems", with: try flat("SalesOrderItems")))
            return try #require(items.expanding("ToCustomer", with: try flat("BusinessPartners")))
        }

        var forms: [String: ODataFlatPageReader.NestedForm] {
            ["ToItems": .init(codec: codecs["SalesOrderItems"]!), "ToCustomer": .init(codec: codecs["BusinessPartners"]!)]
        }

        func entity(_ set: SalesEntitySet, _ index: Int, etag: String?) -> [UInt8] {
            var body = generator.entityProperties(set: set, index: index) ?? Array("{}".utf8)
            if let etag {
                body.removeFirst()
                body = Array(#"{"@odata.etag":"\#(etag)","#.utf8) + body
            }
            return body
        }

        /// A page of orders, each with some of its items expanded (sometimes none, an empty
        /// array, or the member left out) and sometimes its customer.
        func page(_ c: inout Choices) -> [UInt8] {
            var out = Array(#"{"@odata.context":"$metadata#SalesOrders(ToItems(),ToCustomer())","value":["#.utf8)
            let orders = generator.count(of: .salesOrders)
            for n in 0..<(1 + c.next(4)) {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                let order = c.next(orders)
                var body = entity(.salesOrders, order, etag: c.next(3) == 0 ? "W/\"\(order)\"" : nil)
                body.removeLast()
                switch c.next(4) {
                case 0: break
                case 1: body += Array(#","ToItems":[]"#.utf8)
                default:
                    body += Array(#","ToItems":["#.utf8)
                    let items = Array(generator.itemRange(ofSalesOrder: order))
                    for (k, item) in items.prefix(1 + c.next(max(1, items.count))).enumerated() {
                        if k > 0 { body.append(UInt8(ascii: ",")) }
                        body += entity(.salesOrderItems, item, etag: c.next(2) == 0 ? "W/\"i\(item)\"" : nil)
                    }
                    body += Array("]".utf8)
                }
                switch c.next(4) {
                case 0: body += Array(#","ToCustomer":null"#.utf8)
                case 1: body += Array(#","ToCustomer":"#.utf8) + entity(.businessPartners, c.next(generator.count(of: .businessPartners)), etag: nil)
                default: break
                }
                out += body + Array("}".utf8)
            }
            return out + Array("]}".utf8)
        }
    }

    /// Compares the flat answer for `page` with the general reader; true when answered.
    @discardableResult
    static func compare(_ page: [UInt8], _ fixture: Fixture, mustAnswer: Bool = false) throws -> Bool {
        let text = String(decoding: page, as: UTF8.self)
        let flat = try fixture.ordersReader()
        let answer = flat.readEncoded(page, codec: fixture.codecs["SalesOrders"]!, expanded: fixture.forms)
        let general: ODataEntityCollection
        do {
            general = try fixture.reader.readCollection(page, entitySet: "SalesOrders")
        } catch {
            #expect(answer == nil, "the general reader refused \(text) (\(error.message)); the flat reader did not")
            return false
        }
        if mustAnswer { #expect(answer != nil, "an undamaged page was not answered: \(text)") }
        guard let answer else { return false }
        #expect(answer.count == general.entities.count, "\(text)")
        for (read, entity) in zip(answer, general.entities) {
            let record = ODataFlatPageReaderTests.record(entity, slots: fixture.slots["SalesOrders"]!)
            #expect(read.codec == (try? fixture.codecs["SalesOrders"]!.encode(record)), "\(text)")
            #expect(read.etag == entity.control.etag, "\(text)")
            // Each navigation with entities, in payload order, as the general reader has them.
            var expected: [(String, [ODataEntity])] = []
            for navigation in entity.navigation {
                switch navigation.content {
                case .entities(let list, _, _) where !list.isEmpty: expected.append((navigation.name, list))
                case .entity(let nested?): expected.append((navigation.name, [nested]))
                default: continue
                }
            }
            #expect(read.expanded.map(\.navigation) == expected.map(\.0), "\(text)")
            for (group, (name, list)) in zip(read.expanded, expected) {
                let set = name == "ToItems" ? "SalesOrderItems" : "BusinessPartners"
                #expect(group.entities.count == list.count, "\(text)")
                for (child, nested) in zip(group.entities, list) {
                    let record = ODataFlatPageReaderTests.record(nested, slots: fixture.slots[set]!)
                    #expect(child.codec == (try? fixture.codecs[set]!.encode(record)), "\(name) in \(text)")
                    #expect(child.etag == nested.control.etag, "\(text)")
                    let typeName = try fixture.flat(set).typeName
                    #expect(nested.typeName.isEmpty || nested.typeName == typeName, "\(text)")
                }
            }
        }
        // Without a stored form for ToItems, a page with items expanded is not answered.
        let hasItems = general.entities.contains { entity in
            entity.navigation.contains { navigation in
                if case .entities = navigation.content { navigation.name == "ToItems" } else { false }
            }
        }
        let partial = flat.readEncoded(page, codec: fixture.codecs["SalesOrders"]!, expanded: ["ToCustomer": fixture.forms["ToCustomer"]!])
        #expect((partial == nil) == hasItems, "\(text)")
        return true
    }

    @Test("random pages of orders with expanded items and customers read as the general reader reads them")
    func randomPages() async throws {
        let fixture = try Fixture()
        await propertyCheck(count: 300, input: ODataFlatPageReaderTests.choices) { values in
            var c = Choices(values)
            _ = try? Self.compare(fixture.page(&c), fixture, mustAnswer: true)
        }
    }

    @Test("damaged pages of expanded orders: answered only as the general reader reads them")
    func damagedPages() async throws {
        let fixture = try Fixture()
        let insertions = [#","ToItems":[{}]"#, #""ToItems@odata.count":2,"#, ##"{"@odata.type":"#x"}"##, "[", "]", "{", "}", ",", #""x""#,
                          #","ToItems":null"#, #","ToCustomer":[]"#, #","ToItems":{}"#, #""ToItems":{"__deferred":{"uri":"u"}},"#]
        await propertyCheck(count: 400, input: ODataFlatPageReaderTests.choices) { values in
            var c = Choices(values)
            var page = fixture.page(&c)
            for _ in 0...c.next(2) {
                let at = c.next(page.count + 1)
                switch c.next(3) {
                case 0 where at < page.count: page[at] = c.pick(Array(#"{}[],:"0a \"#.utf8) as [UInt8])
                case 1 where at < page.count: page.remove(at: at)
                default: page.insert(contentsOf: Array(c.pick(insertions).utf8), at: at)
                }
            }
            _ = try? Self.compare(page, fixture)
        }
    }

    @Test("V2 pages whose navigations are deferred links: read by the expanding reader as by the plain one")
    func v2DeferredLinks() throws {
        let fixture = try Fixture()
        let v2 = ODataJSONReader(model: fixture.model, version: .v2)
        let plain = try #require(ODataFlatPageReader(reader: v2, entitySet: "SalesOrders", slots: fixture.slots["SalesOrders"] ?? []))
        let items = try #require(ODataFlatPageReader(reader: v2, entitySet: "SalesOrderItems", slots: fixture.slots["SalesOrderItems"] ?? []))
        let expanding = try #require(plain.expanding("ToItems", with: items))
        var answered = 0
        for order in 0..<10 {
            var body = fixture.entity(.salesOrders, order, etag: nil)
            body.removeLast()
            body += Array(#","ToItems":{"__deferred":{"uri":"SalesOrders('x')/ToItems"}},"ToCustomer": { "__deferred":{"uri":"c"}}}"#.utf8)
            for page in [Array(#"{"d":{"results":["#.utf8) + body + Array("]}}".utf8), Array(#"{"d":["#.utf8) + body + Array("]}".utf8)] {
                let codec = fixture.codecs["SalesOrders"]!
                let expected = plain.readEncoded(page, codec: codec)
                let read = expanding.readEncoded(page, codec: codec, expanded: ["ToItems": fixture.forms["ToItems"]!])
                #expect(read?.map(\.codec) == expected?.map(\.codec), "\(String(decoding: page, as: UTF8.self))")
                #expect(read?.allSatisfy { $0.expanded.isEmpty } ?? true)
                if read != nil { answered += 1 }
            }
        }
        #expect(answered > 0, "no V2 page with deferred links was read flat")
    }

    @Test("expanding refuses what it cannot read in place: a property, another type, a second level")
    func expandingRefuses() throws {
        let fixture = try Fixture()
        let orders = try fixture.flat("SalesOrders"), items = try fixture.flat("SalesOrderItems")
        #expect(orders.expanding("Note", with: items) == nil)
        #expect(orders.expanding("ToItems", with: try fixture.flat("BusinessPartners")) == nil)
        #expect(orders.expanding("NoSuch", with: items) == nil)
        let nested = try #require(items.expanding("ToSalesOrder", with: orders))
        #expect(orders.expanding("ToItems", with: nested) == nil)
        #expect(try fixture.ordersReader().expandedNavigations == ["ToCustomer", "ToItems"])
    }
}
