import Foundation
import OfflineODataFixtures
import Testing

/// Cross-set consistency of a whole `.small` service, checked from the parsed JSON pages.
@Suite struct SalesServiceIntegrityTests {
    let generator = SalesServiceGenerator(seed: 31_337, scale: .small)

    func ids(_ set: SalesEntitySet, _ key: String) throws -> [String] {
        try FixtureTestSupport.entities(generator, set).map { try #require($0[key] as? String) }
    }

    @Test func keysAreUniqueAndWellFormed() throws {
        for (set, key) in [(SalesEntitySet.businessPartners, "BusinessPartnerID"), (.products, "ProductID"),
                           (.salesOrders, "SalesOrderID"), (.contacts, "ContactGuid")] {
            let keys = try ids(set, key)
            #expect(keys.count == generator.count(of: set))
            #expect(Set(keys).count == keys.count, "duplicate \(key) in \(set.name)")
        }
        #expect(try ids(.salesOrders, "SalesOrderID").first == "0500000000")
        #expect(try ids(.businessPartners, "BusinessPartnerID").allSatisfy { $0.count == 10 && $0.hasPrefix("01") })
        let guid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
        #expect(try ids(.contacts, "ContactGuid").allSatisfy { $0.wholeMatch(of: guid) != nil })
        let items = try FixtureTestSupport.entities(generator, .salesOrderItems)
        let itemKeys = items.map { "\($0["SalesOrderID"] ?? "")/\($0["ItemPosition"] ?? "")" }
        #expect(Set(itemKeys).count == items.count)
    }

    @Test func foreignKeysResolve() throws {
        let partners = try FixtureTestSupport.entities(generator, .businessPartners)
        let roles = Dictionary(uniqueKeysWithValues: try partners.map {
            (try #require($0["BusinessPartnerID"] as? String), try #require($0["BusinessPartnerRole"] as? String))
        })
        let products = Set(try ids(.products, "ProductID"))
        let orders = Set(try ids(.salesOrders, "SalesOrderID"))
        for item in try FixtureTestSupport.entities(generator, .salesOrderItems) {
            #expect(orders.contains(try #require(item["SalesOrderID"] as? String)))
            #expect(products.contains(try #require(item["ProductID"] as? String)))
        }
        for order in try FixtureTestSupport.entities(generator, .salesOrders) {
            let customer = try #require(order["CustomerID"] as? String)
            #expect(roles[customer] == "02", "order customer \(customer) is not a customer partner")
        }
        for product in try FixtureTestSupport.entities(generator, .products) {
            let supplier = try #require(product["SupplierID"] as? String)
            #expect(roles[supplier] == "01", "product supplier \(supplier) is not a supplier partner")
        }
        for contact in try FixtureTestSupport.entities(generator, .contacts) {
            #expect(roles[try #require(contact["BusinessPartnerID"] as? String)] != nil)
        }
    }

    @Test func everyOrderHasItemsWithConsecutivePositions() throws {
        var positions: [String: [String]] = [:]
        for item in try FixtureTestSupport.entities(generator, .salesOrderItems) {
            positions[try #require(item["SalesOrderID"] as? String), default: []]
                .append(try #require(item["ItemPosition"] as? String))
        }
        #expect(positions.count == generator.count(of: .salesOrders))
        for (order, list) in positions {
            let expected = (1...list.count).map { String(repeating: "0", count: 10 - String($0 * 10).count) + String($0 * 10) }
            #expect(list == expected, "order \(order) positions \(list)")
        }
    }

    /// Gross = Net + Tax for every order and item, and an order's amounts are the sums of its
    /// items', all on the exact decimal literals (no floating point).
    @Test func amountsAddUpAsDecimalText() throws {
        var itemSums: [String: (gross: Int64, net: Int64, tax: Int64)] = [:]
        for page in try FixtureTestSupport.allPages(generator, .salesOrderItems, pageSize: 200) {
            let orders = FixtureTestSupport.rawValues(of: "SalesOrderID", in: page)
            let gross = FixtureTestSupport.rawValues(of: "GrossAmount", in: page).compactMap(FixtureTestSupport.thousandths)
            let net = FixtureTestSupport.rawValues(of: "NetAmount", in: page).compactMap(FixtureTestSupport.thousandths)
            let tax = FixtureTestSupport.rawValues(of: "TaxAmount", in: page).compactMap(FixtureTestSupport.thousandths)
            let quantities = FixtureTestSupport.rawValues(of: "Quantity", in: page).compactMap(FixtureTestSupport.thousandths)
            try #require(gross.count == orders.count && net.count == orders.count && tax.count == orders.count)
            #expect(quantities.count == orders.count)
            for index in orders.indices {
                #expect(gross[index] == net[index] + tax[index])
                #expect(net[index] > 0 && tax[index] >= 0)
                let sum = itemSums[orders[index], default: (0, 0, 0)]
                itemSums[orders[index]] = (sum.gross + gross[index], sum.net + net[index], sum.tax + tax[index])
            }
        }
        var checked = 0
        for page in try FixtureTestSupport.allPages(generator, .salesOrders, pageSize: 200) {
            let orders = FixtureTestSupport.rawValues(of: "SalesOrderID", in: page)
            let gross = FixtureTestSupport.rawValues(of: "GrossAmount", in: page).compactMap(FixtureTestSupport.thousandths)
            let net = FixtureTestSupport.rawValues(of: "NetAmount", in: page).compactMap(FixtureTestSupport.thousandths)
            let tax = FixtureTestSupport.rawValues(of: "TaxAmount", in: page).compactMap(FixtureTestSupport.thousandths)
            try #require(gross.count == orders.count && net.count == orders.count && tax.count == orders.count)
            for index in orders.indices {
                #expect(gross[index] == net[index] + tax[index], "order \(orders[index])")
                let sum = try #require(itemSums[orders[index]])
                #expect(sum == (gross[index], net[index], tax[index]), "order \(orders[index]) ≠ sum of its items")
                checked += 1
            }
        }
        #expect(checked == generator.count(of: .salesOrders))
    }

    @Test func payloadKeysAreTheDeclaredPropertiesInOrder() throws {
        for set in SalesEntitySet.allCases {
            let declared = SalesServiceSchema.properties(of: set).map(\.name)
            for index in stride(from: 0, to: generator.count(of: set), by: 37) {
                let bytes = try #require(generator.entityProperties(set: set, index: index))
                let object = try FixtureTestSupport.object(bytes)
                #expect(Set(object.keys) == Set(declared), "\(set.name)[\(index)] keys")
                // Declaration order: each top-level name occurs after the previous one.
                let text = String(decoding: bytes, as: UTF8.self)
                var position = text.startIndex
                for name in declared {
                    let found = try #require(text[position...].range(of: "\"\(name)\":"), "\(name) out of order")
                    position = found.upperBound
                }
            }
        }
    }

    @Test func valuesRespectFacetsAndFormats() throws {
        let dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|[+-]\d{2}:\d{2})$/
        let date = /^\d{4}-\d{2}-\d{2}$/
        var offsets = Set<String>()
        for set in SalesEntitySet.allCases {
            let properties = SalesServiceSchema.properties(of: set)
            let entities = try FixtureTestSupport.entities(generator, set)
            for property in properties {
                var nulls = 0
                for entity in entities {
                    let value = entity[property.name]
                    if value is NSNull {
                        nulls += 1
                        #expect(property.nullable, "\(set.name).\(property.name) is null but not nullable")
                        continue
                    }
                    if let maxLength = property.maxLength, let text = value as? String {
                        #expect(text.count <= maxLength, "\(set.name).\(property.name) '\(text)' longer than \(maxLength)")
                    }
                    if property.type == "Edm.DateTimeOffset", let text = value as? String {
                        #expect(text.wholeMatch(of: dateTime) != nil, "bad DateTimeOffset \(text)")
                        offsets.insert(String(text.suffix(text.hasSuffix("Z") ? 1 : 6)))
                    }
                    if property.type == "Edm.Date", let text = value as? String {
                        #expect(text.wholeMatch(of: date) != nil, "bad Date \(text)")
                    }
                }
                if property.nullable {
                    let rate = Double(nulls) / Double(max(1, entities.count))
                    // About 10% (middle names: about 70%, most people have none).
                    let expected = property.name == "MiddleName" ? 0.5...0.9 : 0.02...0.25
                    #expect(expected.contains(rate), "\(set.name).\(property.name) null rate \(rate)")
                }
            }
        }
        #expect(offsets.contains("Z"))
        #expect(offsets.count >= 3, "too few UTC offsets: \(offsets)")
        // Decimals are written with their full scale of 3.
        let page = try generator.page(set: .products, index: 0, pageSize: 200)
        for name in ["Price", "WeightMeasure", "Width"] {
            for literal in FixtureTestSupport.rawValues(of: name, in: page) where literal != "null" {
                #expect(FixtureTestSupport.thousandths(literal) != nil, "\(name) literal \(literal)")
            }
        }
    }

    @Test func textIsRealisticAndExercisesEscaping() throws {
        var text = ""
        for set in SalesEntitySet.allCases {
            for page in try FixtureTestSupport.allPages(generator, set, pageSize: 500) {
                text += String(decoding: page, as: UTF8.self)
            }
        }
        for needle in ["ü", "ø", "é", "O'", "'s "] {
            #expect(text.contains(needle), "no '\(needle)' in the generated text")
        }
        // Escapes that a JSON reader has to handle (the payloads still parse, see the paging tests).
        for escape in ["\\\"", "\\n", "\\\\", "\\t"] {
            #expect(text.contains(escape), "no \(escape) escape in the generated text")
        }
        // Characters outside the BMP (emoji) are written raw as 4-byte UTF-8.
        #expect(text.unicodeScalars.contains { $0.value > 0xFFFF })
        // Phone numbers and postal codes are filled patterns: no placeholder survives, and
        // North American numbers never have an area code or exchange starting with 0 or 1.
        let phones = try (FixtureTestSupport.entities(generator, .businessPartners)
            + FixtureTestSupport.entities(generator, .contacts)).compactMap { $0["PhoneNumber"] as? String }
        #expect(phones.count > 100)
        #expect(phones.allSatisfy { $0.wholeMatch(of: /\+[0-9][0-9 \-]{6,24}/) != nil }, "\(phones.prefix(5))")
        for phone in phones where phone.hasPrefix("+1 ") {
            #expect(phone.wholeMatch(of: /\+1 [2-9]\d\d-[2-9]\d\d-\d{4}/) != nil, "\(phone)")
        }
        let postalCodes = try (FixtureTestSupport.entities(generator, .businessPartners)
            + FixtureTestSupport.entities(generator, .contacts)).compactMap { ($0["Address"] as? [String: Any])?["PostalCode"] as? String }
        #expect(postalCodes.count == generator.count(of: .businessPartners) + generator.count(of: .contacts))
        #expect(postalCodes.allSatisfy { !$0.contains("#") && !$0.contains("@") && $0.contains(where: \.isNumber) })
        // Names of people and companies are varied.
        let contacts = try FixtureTestSupport.entities(generator, .contacts)
        #expect(Set(contacts.compactMap { $0["LastName"] as? String }).count > 40)
        let partners = try FixtureTestSupport.entities(generator, .businessPartners)
        #expect(Set(partners.compactMap { $0["CompanyName"] as? String }).count > partners.count / 2)
        let descriptions = try FixtureTestSupport.entities(generator, .products).compactMap { $0["Description"] as? String }
        let lengths = descriptions.map(\.count)
        #expect((lengths.max() ?? 0) - (lengths.min() ?? 0) > 60, "description lengths barely vary")
    }
}
