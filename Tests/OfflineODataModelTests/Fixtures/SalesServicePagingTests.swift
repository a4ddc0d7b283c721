import Foundation
import OfflineODataFixtures
import Testing

@Suite struct SalesServicePagingTests {
    let generator = SalesServiceGenerator(seed: 2024, scale: .small)

    @Test(arguments: SalesEntitySet.allCases)
    func everyPageParsesAndNextLinksChainToTheEnd(set: SalesEntitySet) throws {
        let pageSize = 97
        let total = generator.count(of: set)
        let expectedPages = (total + pageSize - 1) / pageSize
        #expect(try generator.pageCount(of: set, pageSize: pageSize) == expectedPages)
        let options = PageOptions(includeCount: true)
        let pages = try FixtureTestSupport.allPages(generator, set, pageSize: pageSize, options: options)
        #expect(pages.count == expectedPages)
        var seen = 0
        for (index, bytes) in pages.enumerated() {
            // Following links and addressing by index give the same bytes.
            #expect(bytes == (try generator.page(set: set, index: index, pageSize: pageSize, options: options)))
            let page = try FixtureTestSupport.object(bytes)
            #expect(page["@odata.context"] as? String == "$metadata#" + set.name)
            #expect((page["@odata.count"] as? NSNumber)?.intValue == total)
            let values = try #require(page["value"] as? [[String: Any]])
            let isLast = index == pages.count - 1
            #expect(values.count == (isLast ? total - seen : pageSize))
            seen += values.count
            if isLast {
                #expect(page["@odata.nextLink"] == nil)
            } else {
                #expect(page["@odata.nextLink"] as? String == set.name + "?$skiptoken=\(seen)")
            }
        }
        #expect(seen == total)
    }

    @Test func pageSequenceStreamsTheSamePages() throws {
        for set in [SalesEntitySet.salesOrders, .contacts] {
            let streamed = Array(try generator.pages(of: set, pageSize: 64))
            let linked = try FixtureTestSupport.allPages(generator, set, pageSize: 64)
            #expect(streamed == linked)
        }
        let empty = SalesServiceGenerator(seed: 1, scale: try Scale(businessPartners: 0, products: 0, salesOrders: 0))
        #expect(Array(try empty.pages(of: .products, pageSize: 10)).count == 1)
        #expect(throws: FixtureError.self) { try generator.pages(of: .products, pageSize: 0) }
    }

    @Test func keyPredicatesNameTheEntityKeys() throws {
        let items = try FixtureTestSupport.object(try generator.page(set: .salesOrderItems, index: 0, pageSize: 10))
        let values = try #require(items["value"] as? [[String: Any]])
        for (index, item) in values.enumerated() {
            let order = try #require(item["SalesOrderID"] as? String)
            let position = try #require(item["ItemPosition"] as? String)
            #expect(try generator.keyPredicate(set: .salesOrderItems, index: index)
                == "(SalesOrderID='\(order)',ItemPosition='\(position)')")
        }
        let contact = try FixtureTestSupport.object(try generator.entityJSON(set: .contacts, index: 3))
        #expect(try generator.keyPredicate(set: .contacts, index: 3) == "(\(try #require(contact["ContactGuid"] as? String)))")
        #expect(try generator.keyPredicate(set: .salesOrders, index: 12) == "('0500000012')")
        #expect(throws: FixtureError.self) { try generator.keyPredicate(set: .products, index: -1) }
    }

    @Test func everyKeyMapsBackToItsIndex() throws {
        for set in SalesEntitySet.allCases {
            for (index, entity) in try FixtureTestSupport.entities(generator, set).enumerated() {
                var key: [String: String] = [:]
                for name in set.keyProperties { key[name] = try #require(entity[name] as? String) }
                #expect(generator.entityIndex(set: set, key: key) == index, "\(set.name) \(key)")
            }
        }
    }

    @Test func unknownKeysHaveNoIndex() {
        let misses: [(SalesEntitySet, [String: String])] = [
            (.businessPartners, ["BusinessPartnerID": "0100000050"]),   // one past the end
            (.businessPartners, ["BusinessPartnerID": "01+0000001"]),
            (.businessPartners, ["BusinessPartnerID": "0100000001 "]),
            (.businessPartners, [:]),
            (.products, ["ProductID": "HT-999"]),
            (.products, ["ProductID": "HT-01000"]),
            (.products, ["ProductID": "HT-99999999999999999999999"]),
            (.salesOrders, ["SalesOrderID": "0600000001"]),
            (.salesOrders, ["SalesOrderID": "05"]),
            (.salesOrderItems, ["SalesOrderID": "0500000001", "ItemPosition": "0000000015"]),
            (.salesOrderItems, ["SalesOrderID": "0500000001", "ItemPosition": "0000009990"]),
            (.salesOrderItems, ["SalesOrderID": "0500000001", "ItemPosition": "10"]),
            (.salesOrderItems, ["SalesOrderID": "0500000001"]),
            (.contacts, ["ContactGuid": "00000000-0000-4000-8000-000000000000"]),
            (.contacts, ["ContactGuid": "not-a-guid"]),
            (.contacts, ["ContactGuid": generator.contactGuid(0).uppercased()]),
        ]
        for (set, key) in misses {
            #expect(generator.entityIndex(set: set, key: key) == nil, "\(set.name) \(key)")
        }
        // A key of another seed's service is not found either.
        let other = SalesServiceGenerator(seed: 1, scale: .small)
        #expect(generator.entityIndex(set: .contacts, key: ["ContactGuid": other.contactGuid(5)]) == nil)
    }

    @Test func countAndETagsAreOptional() throws {
        let plain = try FixtureTestSupport.object(try generator.page(set: .products, index: 0, pageSize: 5))
        #expect(plain["@odata.count"] == nil)
        let plainValues = try #require(plain["value"] as? [[String: Any]])
        #expect(plainValues.allSatisfy { $0["@odata.etag"] == nil })

        let tagged = try FixtureTestSupport.object(
            try generator.page(set: .products, index: 0, pageSize: 5, options: PageOptions(includeETags: true)))
        let values = try #require(tagged["value"] as? [[String: Any]])
        let etags = values.compactMap { $0["@odata.etag"] as? String }
        #expect(etags.count == 5)
        #expect(Set(etags).count == 5)
        for etag in etags {
            #expect(etag.hasPrefix("W/\"") && etag.hasSuffix("\"") && etag.count == 20, "bad etag \(etag)")
        }
        // The same entity alone carries the same ETag and a $entity context.
        let alone = try FixtureTestSupport.object(
            try generator.entityJSON(set: .products, index: 0, options: PageOptions(includeETags: true)))
        #expect(alone["@odata.etag"] as? String == etags[0])
        #expect(alone["@odata.context"] as? String == "$metadata#Products/$entity")
    }

    @Test func serviceRootPrefixesContextAndNextLink() throws {
        let root = "https://example.com/sap/opu/odata4/sales/"
        let page = try FixtureTestSupport.object(
            try generator.page(set: .salesOrders, index: 0, pageSize: 10, options: PageOptions(serviceRoot: root)))
        #expect(page["@odata.context"] as? String == root + "$metadata#SalesOrders")
        #expect(page["@odata.nextLink"] as? String == root + "SalesOrders?$skiptoken=10")
    }

    @Test func ieee754CompatibleWritesDecimalsAsStrings() throws {
        let bytes = try generator.page(
            set: .salesOrders, index: 0, pageSize: 3, options: PageOptions(ieee754Compatible: true))
        let values = try #require(try FixtureTestSupport.object(bytes)["value"] as? [[String: Any]])
        for value in values {
            let gross = try #require(value["GrossAmount"] as? String)
            #expect(FixtureTestSupport.thousandths(gross) != nil, "\(gross) is not a 3-digit-scale decimal")
        }
    }

    @Test func emptySetHasOneEmptyPage() throws {
        let empty = SalesServiceGenerator(seed: 1, scale: try Scale(businessPartners: 0, products: 0, salesOrders: 0))
        #expect(try empty.pageCount(of: .salesOrders, pageSize: 10) == 1)
        let page = try FixtureTestSupport.object(try empty.page(set: .salesOrders, index: 0, pageSize: 10))
        #expect((page["value"] as? [Any])?.isEmpty == true)
        #expect(page["@odata.nextLink"] == nil)
    }

    @Test func badPageRequestsThrowCodedErrors() throws {
        #expect { try generator.page(set: .products, index: 0, pageSize: 0) } throws: { error in
            (error as? FixtureError)?.code == 1501 && (error as? FixtureError)?.name == "invalidPageSize"
        }
        #expect { try generator.page(set: .products, index: 1_000, pageSize: 10) } throws: { error in
            let fixture = error as? FixtureError
            return fixture?.code == 1502 && fixture?.message.contains("1000") == true
        }
        #expect { try generator.page(set: .products, index: -1, pageSize: 10) } throws: { error in
            (error as? FixtureError)?.code == 1502
        }
        #expect { try generator.entityJSON(set: .contacts, index: generator.count(of: .contacts)) } throws: { error in
            (error as? FixtureError)?.code == 1503
        }
        #expect { try generator.page(set: .contacts, skipToken: -5, pageSize: 10) } throws: { error in
            (error as? FixtureError)?.code == 1503
        }
        #expect(generator.entityProperties(set: .contacts, index: -1) == nil)
        for link in ["SalesOrders", "SalesOrders?$skiptoken=", "SalesOrders?$skiptoken=abc",
                     "SalesOrders?$skiptoken=-3", "SalesOrders?$skiptoken=99999999999999999999999"] {
            #expect { try SalesServiceGenerator.skipToken(inNextLink: link) } throws: { error in
                let fixture = error as? FixtureError
                return fixture?.code == 1505 && fixture?.message.contains(link) == true
            }
        }
        #expect(try SalesServiceGenerator.skipToken(inNextLink: "SalesOrders?$skiptoken=500&$top=3") == 500)
        #expect { try SalesServiceGenerator.skipToken(inNextLink: "SalesOrders?$skiptoken=x1") } throws: { error in
            (error as? FixtureError)?.location == "offset 23"
                && "\(error)" == "[invalidInput] invalidSkipToken (1505): next link 'SalesOrders?$skiptoken=x1' has no non-negative integer $skiptoken at offset 23"
        }
    }

    /// Helpers that take an index never trap, whatever the index.
    @Test func indexHelpersTolerateExtremeIndices() {
        for index in [Int.min, -1, generator.count(of: .salesOrderItems), Int.max] {
            _ = generator.businessPartnerID(index)
            _ = generator.productID(index)
            _ = generator.salesOrderID(index)
            _ = generator.contactGuid(index)
            _ = generator.itemPosition(ordinal: index)
            #expect(generator.itemRange(ofSalesOrder: index).isEmpty)
            #expect(generator.contactRange(ofBusinessPartner: index).isEmpty)
            #expect(generator.salesOrder(ofItem: index).salesOrder == 0)
            #expect(generator.businessPartner(ofContact: index) == 0)
            #expect(generator.entityProperties(set: .salesOrderItems, index: index) == nil)
        }
        #expect(generator.itemPosition(ordinal: 0) == "0000000010")
        #expect(generator.productID(0) == "HT-1000")
    }

    @Test func invalidScalesAreRejected() {
        let cases: [(Int, Int, Int)] = [(-1, 1, 1), (2, -1, 1), (2, 1, -1), (1, 1, 10), (2, 0, 10), (0, 5, 0),
                                        (Scale.maxBusinessPartners + 1, 1, 0), (2, Scale.maxProducts + 1, 0),
                                        (2, 1, Scale.maxSalesOrders + 1)]
        for (partners, products, orders) in cases {
            #expect { try Scale(businessPartners: partners, products: products, salesOrders: orders) } throws: { error in
                (error as? FixtureError)?.code == 1504
            }
        }
        #expect(throws: Never.self) { try Scale(businessPartners: 2, products: 1, salesOrders: 10) }
        #expect(Scale.entities(salesOrders: -5).salesOrders == 0)
        #expect(Scale.entities(salesOrders: Int.max).salesOrders == Scale.maxSalesOrders)
    }

    @Test func presetsHaveTheDocumentedSizes() {
        #expect(Scale.tiny.totalEntities == 110)
        #expect(Scale.small.totalEntities == 2_750)
        #expect(Scale.medium.totalEntities == 100_000)
        #expect(Scale.large.totalEntities >= 999_000 && Scale.large.totalEntities <= 1_001_000)
        let scale = Scale.entities(salesOrders: 1_000)
        #expect(scale.businessPartners == 100 && scale.products == 200)
        #expect(scale.salesOrderItems == 4_000 && scale.contacts == 200)
    }
}
