import OfflineODataFixtures
import Testing
@testable import OfflineODataModel

/// The fixture generator's pages, read through the streaming reader with the generator's own
/// metadata.
@Suite struct ODataCollectionReaderTests {
    static let service = SalesServiceGenerator(seed: 7, scale: .small)

    static func model() throws -> ServiceModel {
        try ServiceModel.parse(metadata: Array(service.metadataXML().utf8))
    }

    /// Feeds `bytes` in chunks of `chunk` bytes and collects every entity.
    static func stream(_ bytes: [UInt8], chunk: Int, into reader: inout ODataCollectionReader) throws -> [ODataEntity] {
        var entities: [ODataEntity] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            try bytes[offset..<end].withUnsafeBytes { try reader.feed($0) }
            offset = end
            while let entity = try reader.next() { entities.append(entity) }
        }
        try reader.finish()
        while let entity = try reader.next() { entities.append(entity) }
        return entities
    }

    @Test("every page of every set of .small streams with the generator's metadata; counts and next links match",
          arguments: SalesEntitySet.allCases)
    func smallService(_ set: SalesEntitySet) throws {
        let model = try Self.model()
        let reader = ODataJSONReader(model: model)
        let total = Self.service.count(of: set)
        let pageSize = 97
        var seen = 0
        var token = 0
        var pages = 0
        while true {
            let page = try Self.service.page(set: set, skipToken: token, pageSize: pageSize,
                                             options: PageOptions(includeCount: true, includeETags: true))
            var stream = try reader.collectionReader(entitySet: set.name)
            let entities = try Self.stream(page, chunk: 1000, into: &stream)
            #expect(stream.count == Int64(total))
            #expect(stream.context == "$metadata#\(set.name)")
            #expect(entities.allSatisfy { $0.control.etag?.hasPrefix("W/\"") == true })
            #expect(entities.allSatisfy { $0.typeName == set.entityTypeName || $0.typeName.hasSuffix("." + set.entityTypeName) })
            // The DOM reader agrees with the stream.
            let whole = try reader.readCollection(page, entitySet: set.name)
            ODataJSONTesting.expectIdentical(whole.entities, entities, "\(set.name) page \(pages)")
            seen += entities.count
            pages += 1
            guard let next = stream.nextLink else { break }
            #expect(whole.nextLink == next)
            token = try SalesServiceGenerator.skipToken(inNextLink: next)
            #expect(token == seen)
        }
        #expect(seen == total)
        #expect(pages == (total + pageSize - 1) / pageSize)
    }

    @Test("IEEE754Compatible pages give the same decimals as number pages, scale kept")
    func ieee754Pages() throws {
        let reader = ODataJSONReader(model: try Self.model())
        let numbers = try reader.readCollection(
            try Self.service.page(set: .salesOrderItems, index: 0, pageSize: 50), entitySet: "SalesOrderItems")
        let strings = try reader.readCollection(
            try Self.service.page(set: .salesOrderItems, index: 0, pageSize: 50, options: PageOptions(ieee754Compatible: true)),
            entitySet: "SalesOrderItems")
        ODataJSONTesting.expectIdentical(numbers.entities, strings.entities, "ieee754")
        guard case .decimal(let amount)? = numbers.entities.first?[property: "GrossAmount"] else {
            Issue.record("GrossAmount is not a decimal")
            return
        }
        #expect(amount.scale == 3)
    }

    @Test("streaming one byte at a time and in one piece give the same entities")
    func chunking() throws {
        let reader = ODataJSONReader(model: try Self.model())
        let page = try Self.service.page(set: .businessPartners, index: 0, pageSize: 5,
                                         options: PageOptions(includeCount: true))
        var one = try reader.collectionReader(entitySet: "BusinessPartners")
        var whole = try reader.collectionReader(entitySet: "BusinessPartners")
        let a = try Self.stream(page, chunk: 1, into: &one)
        let b = try Self.stream(page, chunk: page.count, into: &whole)
        #expect(a.count == 5)
        ODataJSONTesting.expectIdentical(a, b, "chunking")
        #expect(one.nextLink == "BusinessPartners?$skiptoken=5")
        #expect(one.elementCount == 5)
    }

    @Test("a bad element in a stream reports its index; deleted entries are collected")
    func streamErrors() throws {
        let model = try ODataJSONTestModel.model()
        var stream = try ODataJSONReader(model: model).collectionReader(entitySet: "Items")
        try stream.feed(Array(#"{"value":[{"ID":1,"Name":"a","Tags":[]},{"@removed":{},"@id":"Items(9)"},{"ID":"x"}]}"#.utf8))
        try stream.finish()
        #expect(try stream.next()?[property: "ID"] == .int32(1))
        ODataJSONTesting.expectError("invalidPropertyValue", code: 1251, path: "$.value[2].ID") {
            _ = try stream.next()
        }
        #expect(stream.deleted == [ODataDeletedEntity(id: "Items(9)")])

        var bare = try ODataJSONReader(model: model).collectionReader(entitySet: "Items")
        try bare.feed(Array(#" [{"ID":1,"Name":"a","Tags":[]},{"ID":2,"Name":null,"Tags":[]}]"#.utf8))
        try bare.finish()
        #expect(try bare.next() != nil)
        ODataJSONTesting.expectError("nullNotAllowed", code: 1253, path: "$[1].Name") { _ = try bare.next() }
        var v2 = try ODataJSONReader(model: model, version: .v2).collectionReader(entitySet: "Items")
        try v2.feed(Array(#"{"d":{"results":[{"ID":"x"}]}}"#.utf8))
        try v2.finish()
        ODataJSONTesting.expectError("invalidPropertyValue", code: 1251, path: "$.d.results[0].ID") { _ = try v2.next() }
    }
}
