import Foundation
import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataStore

/// The whole request path (parse, bind, plan, execute, serialise), single and inside a JSON
/// `$batch`, with extreme values from the URL and headers: Int64 and Decimal bounds, huge
/// durations, deep nesting, long strings, pathological patterns. No input may reach a trap: each
/// request is answered, or refused with a typed `ODataError`. A trap would end the test process,
/// so the property also checks that the answers that can be known are right.
@Suite struct RequestPathExtremesTests {
    static let counts = ["0", "1", "2", "499", "500", "501", "4503599627370496", "9007199254740993",
                         "9223372036854775000", "9223372036854775806", "9223372036854775807",
                         "9223372036854775808", "99999999999999999999", "-1"]
    static let numbers = ["0", "-1", "1", "2147483647", "-2147483648", "9223372036854775807", "-9223372036854775808",
                          "79228162514264337593543950335", "1e308", "-1e308", "1.7976931348623157e308", "1e-308",
                          "99999999999999999999999999999999999999", "0.000000000000000000000000000001", "INF", "-INF", "NaN"]
    static let durations = ["P0D", "P1D", "-P1D", "P99999999999D", "-P99999999999D", "PT9223372036854775807S",
                            "P106751991167300D", "PT0.000000000001S", "P3652059D", "-P3652059D", "P2932897DT23H59M59S"]
    static let patterns = ["(.*){25}x", "^(a|aa)+$", "(a*)*b", "((a+)+)+c", "(x+x+)+y", "(.*a){12}", "[", "a{99999}",
                           "(?<=a)b", "\\1(a)", "a{2,1}", "(((((((((((((((((((((a)))))))))))))))))))))", "(?i)SPEEDY", "\\u{110000}"]

    static func template(_ which: Int, _ a: String, _ b: String, _ number: String, _ duration: String, _ pattern: String,
                         _ length: Int) -> String {
        let long = String(repeating: "a", count: length)
        switch which {
        case 0: return "SalesOrders?$top=\(a)"
        case 1: return "SalesOrders?$skip=\(a)&$top=\(b)"
        case 2: return "SalesOrders?$skip=\(a)&$top=\(b)&$orderby=GrossAmount desc"
        case 3: return "BusinessPartners?$top=2&$expand=ToSalesOrders($skip=\(a);$top=\(b);$orderby=GrossAmount)"
        case 4: return "SalesOrders?$top=\(a)&$expand=ToCustomer&$count=true"
        case 5: return "BusinessPartners('\(OfflineFixtures.sales.businessPartnerID(0))')/ToSalesOrders/$ref?$skip=\(a)&$top=\(b)"
        case 6: return "SalesOrders?$filter=GrossAmount mul \(number) gt 0&$top=3"
        case 7: return "SalesOrders?$filter=CreatedAt add duration'\(duration)' gt CreatedAt&$top=3"
        case 8: return "SalesOrders?$filter=DeliveryDate sub duration'\(duration)' lt DeliveryDate&$top=3"
        case 9: return "SalesOrders?$filter=\(number) add \(number) gt 0&$top=1"
        case 10: return "SalesOrders?$filter=substring(CustomerName,\(number),\(number)) eq 'x'&$top=1"
        case 11: return "SalesOrders?$filter=duration'\(duration)' mul \(number) gt duration'P1D'&$top=1"
        case 12: return "SalesOrders?$filter=" + String(repeating: "(", count: length) + "true" + String(repeating: ")", count: length)
        case 13: return "SalesOrders?$filter=contains(CustomerName,'\(long)')&$top=2"
        case 14: return "SalesOrders?$filter=indexof('\(long)b','\(long.prefix(length / 2))b') ge 0&$top=1"
        case 15: return "SalesOrders?$filter=matchesPattern(CustomerName,'\(pattern.replacingOccurrences(of: "'", with: "''"))')&$top=2"
        case 16: return "SalesOrders?$search=\(long)&$top=1"
        case 17: return "SalesOrders?$filter=cast(\(number),Edm.Int32) gt 0&$top=1"
        case 18: return "SalesOrders?$filter=round(\(number)) gt 0 and floor(\(number)) lt ceiling(\(number))&$top=1"
        default: return "SalesOrders?$top=\(a)&$skiptoken=\(b)"
        }
    }

    static func encode(_ url: String) -> String {
        // As a client sends it: spaces and quotes percent-encoded, the rest as written.
        url.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: " ", with: "%20")
    }

    /// Answered (any status), or a typed error with a known category, a name and a code.
    static func answered(_ body: () throws -> ODataResponse) -> ODataResponse? {
        do {
            let response = try body()
            #expect((100..<600).contains(response.status))
            return response
        } catch let error as ODataError {
            #expect(error.code > 0 && !error.name.isEmpty && !error.message.isEmpty, "\(error)")
            return nil
        } catch {
            Issue.record("untyped error \(error)")
            return nil
        }
    }

    @Test("random extreme requests, single and in a JSON $batch, with and without Prefer: answered or a typed error")
    func extremes() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        let input = zip(Gen.int(in: 0...19), Gen.int(in: 0...(Self.counts.count - 1)), Gen.int(in: 0...(Self.counts.count - 1)),
                        Gen.int(in: 0...(Self.numbers.count - 1)), Gen.int(in: 0...(Self.durations.count - 1)),
                        Gen.int(in: 0...(Self.patterns.count - 1)), Gen.int(in: 0...4000), Gen.int(in: 0...(Self.counts.count)))
        await propertyCheck(count: 300, input: input) { which, a, b, number, duration, pattern, length, pageSize in
            let url = Self.template(which, Self.counts[a], Self.counts[b], Self.numbers[number], Self.durations[duration],
                                    Self.patterns[pattern], length)
            var headers: [String: String] = [:]
            if pageSize < Self.counts.count { headers["Prefer"] = "odata.maxpagesize=\(Self.counts[pageSize])" }
            let encoded = Self.encode(url)
            _ = Self.answered { try store.execute(ODataRequest(.get, encoded, headers: headers)) }
            let batch: [String: Any] = ["requests": [["id": "1", "method": "get", "url": encoded, "headers": headers.isEmpty ? [:] : ["prefer": headers["Prefer"] ?? ""]]]]
            let body = String(decoding: try JSONSerialization.data(withJSONObject: batch), as: UTF8.self)
            if let response = Self.answered({ try store.execute(.post, "$batch", body: body) }) {
                #expect(response.status == 200, "a $batch answers 200 with its parts: \(url)")
            }
        }
    }

    @Test("$top and $skip at the Int64 bound: every row, or none; a huge page size is one page")
    func boundsAnswerRight() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        func rows(_ url: String, _ headers: [String: String] = [:]) throws -> (Int, Bool) {
            let json = try #require(try store.execute(ODataRequest(.get, Self.encode(url), headers: headers)).json())
            return (json["value"]?.arrayValue?.count ?? -1, json["@odata.nextLink"] != nil)
        }
        #expect(try rows("SalesOrders?$top=9223372036854775807") == (500, false))
        #expect(try rows("SalesOrders?$top=9223372036854775807&$orderby=GrossAmount desc") == (500, false))
        #expect(try rows("SalesOrders?$skip=9223372036854775000&$top=9000") == (0, false))
        #expect(try rows("SalesOrders?$skip=498&$top=9223372036854775807") == (2, false))
        #expect(try rows("SalesOrders", ["Prefer": "odata.maxpagesize=9223372036854775807"]) == (500, false))
        #expect(try rows("SalesOrders?$skip=9223372036854775807", ["Prefer": "odata.maxpagesize=9223372036854775807"]) == (0, false))
        #expect(try rows("SalesOrders?$top=9223372036854775807", ["Prefer": "odata.maxpagesize=200"]) == (200, true))
        let partner = OfflineFixtures.sales.businessPartnerID(0)
        let all = try rows("BusinessPartners('\(partner)')/ToSalesOrders").0
        #expect(try rows("BusinessPartners('\(partner)')/ToSalesOrders/$ref?$top=9223372036854775807") == (all, false))
        let expanded = try #require(try store.execute(.get, Self.encode(
            "BusinessPartners('\(partner)')?$expand=ToSalesOrders($skip=9223372036854775000;$top=9223372036854775807)")).json())
        #expect(expanded["ToSalesOrders"]?.arrayValue?.count == 0)
    }

    @Test("a date/time result outside years 1–9999 is an arithmeticOverflow, not a silent far-future date")
    func hugeDurations() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        for url in ["SalesOrders?$filter=CreatedAt add duration'P99999999999D' gt CreatedAt",
                    "SalesOrders?$filter=DeliveryDate sub duration'P99999999999D' lt DeliveryDate",
                    "SalesOrders?$filter=CreatedAt sub duration'P3652059D' lt CreatedAt"] {
            let error = #expect(throws: ODataError.self) { try store.execute(.get, Self.encode(url)) }
            #expect(error?.code == 1703 && error?.name == "arithmeticOverflow", "\(url)")
        }
        let fine = try #require(try store.execute(.get, Self.encode("SalesOrders?$filter=CreatedAt add duration'P365D' gt CreatedAt&$top=1")).json())
        #expect(fine["value"]?.arrayValue?.count == 1)
    }

    @Test("a nextLink whose values hold '&', '#', '+' or '%' can be followed: the next page, then the rest")
    func nextLinkIsPercentEncoded() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        var url = "SalesOrders?$orderby=concat(SalesOrderID,'%26%23%2B%25')&$select=SalesOrderID&$filter=GrossAmount%20gt%200"
        var seen: [String] = []
        for _ in 0..<300 {
            let json = try #require(try store.execute(ODataRequest(.get, url, headers: ["Prefer": "odata.maxpagesize=200"])).json())
            seen += (json["value"]?.arrayValue ?? []).compactMap { $0["SalesOrderID"]?.stringValue }
            guard let next = json["@odata.nextLink"]?.stringValue else { break }
            #expect(!next.contains("&#") && !next.contains("'&"), "raw separators in \(next)")
            url = next
        }
        let all = try #require(try store.execute(.get, "SalesOrders?$select=SalesOrderID&$top=1000").json())
        #expect(seen.count == all["value"]?.arrayValue?.count && Set(seen).count == seen.count)
    }
}

/// The generated sales store (partners and orders downloaded) in a temporary folder, closed and
/// removed when the test lets go of it.
final class LoadedStore {
    let dir = OfflineTempDir()
    let store: OfflineStore

    init() async throws {
        store = try await OfflineFixtures.loaded(dir)
    }

    deinit {
        try? store.close()
        dir.cleanup()
    }
}

/// `$it` inside a nested `$expand` option is the resource the URL addresses, not the expanded
/// entity (URL Conventions §5.1.1.11.4).
@Suite struct NestedItTests {
    @Test("$it in a nested $filter names the outer entity, at every level of $expand")
    func itIsTheOuterResource() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        let order = OfflineFixtures.sales.salesOrderID(0)
        let partner = try #require(try store.execute(.get, "SalesOrders('\(order)')").json()?["CustomerID"]?.stringValue)
        func encoded(_ url: String) -> String { url.replacingOccurrences(of: " ", with: "%20") }
        func orders(_ filter: String) throws -> Int {
            let json = try #require(try store.execute(.get, encoded("BusinessPartners('\(partner)')?$expand=ToSalesOrders($filter=\(filter))")).json())
            return json["ToSalesOrders"]?.arrayValue?.count ?? -1
        }
        let all = try orders("true")
        #expect(all > 0)
        #expect(try orders("$it/BusinessPartnerID eq CustomerID") == all)
        #expect(try orders("$it/BusinessPartnerID ne CustomerID") == 0)
        // Two levels down, $it is still the order the URL addresses: of its customer's orders,
        // exactly that one.
        let json = try #require(try store.execute(.get, encoded(
            "SalesOrders('\(order)')?$expand=ToCustomer($expand=ToSalesOrders($filter=$it/SalesOrderID eq SalesOrderID))")).json())
        let nested = json["ToCustomer"]?["ToSalesOrders"]?.arrayValue ?? []
        #expect(nested.count == 1 && nested.first?["SalesOrderID"]?.stringValue == order)
    }

    @Test("options inside $select are refused as notSupported, never dropped")
    func selectOptionsRefused() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        let error = #expect(throws: ODataError.self) {
            try store.execute(.get, "BusinessPartners?$select=BusinessPartnerID,Address($select=City)")
        }
        #expect(error?.category == .notSupported && error?.code == 1753)
        #expect(try store.execute(.get, "BusinessPartners?$select=BusinessPartnerID,Address&$top=1").status == 200)
    }
}

/// Shapes the specification fixes.
@Suite struct SpecShapeTests {
    @Test("@odata.context carries the $select list, for a collection and for one entity; without $select (or with *) it does not")
    func contextWithSelect() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        let order = OfflineFixtures.sales.salesOrderID(0)
        let context = { (url: String) throws -> String? in try store.execute(.get, url).json()?["@odata.context"]?.stringValue }
        #expect(try context("SalesOrders?$select=Note,GrossAmount&$top=1") == "$metadata#SalesOrders(Note,GrossAmount)")
        #expect(try context("SalesOrders('\(order)')?$select=Note") == "$metadata#SalesOrders(Note)/$entity")
        #expect(try context("SalesOrders?$top=1") == "$metadata#SalesOrders")
        #expect(try context("SalesOrders?$select=*&$top=1") == "$metadata#SalesOrders")
    }

    @Test("/$value of a property is its raw value as text/plain, not a JSON wrapper")
    func rawValue() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        let order = OfflineFixtures.sales.salesOrderID(0)
        let json = try #require(try store.execute(.get, "SalesOrders('\(order)')/CustomerName").json())
        let name = try #require(json["value"]?.stringValue)
        let raw = try store.execute(.get, "SalesOrders('\(order)')/CustomerName/$value")
        #expect(raw.status == 200 && raw.headers["Content-Type"] == "text/plain" && raw.bodyText == name)
        let amount = try #require(try store.execute(.get, "SalesOrders('\(order)')/GrossAmount").json()?["value"]?.numberValue?.text)
        #expect(try store.execute(.get, "SalesOrders('\(order)')/GrossAmount/$value").bodyText == amount)
    }

    @Test("$expand=Nav/$count gives only Nav@odata.count, no empty array beside it")
    func expandCount() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        let order = OfflineFixtures.sales.salesOrderID(0)
        let partner = try #require(try store.execute(.get, "SalesOrders('\(order)')").json()?["CustomerID"]?.stringValue)
        let all = try #require(try store.execute(.get, "BusinessPartners('\(partner)')/ToSalesOrders/$count").bodyText)
        let json = try #require(try store.execute(.get, "BusinessPartners('\(partner)')?$expand=ToSalesOrders/$count").json())
        #expect(json["ToSalesOrders@odata.count"]?.numberValue?.text == all)
        #expect(json["ToSalesOrders"] == nil)
    }

    @Test("a single-valued navigation's /$ref is one reference, a collection's a list")
    func singleReference() async throws {
        let loaded = try await LoadedStore()
        defer { withExtendedLifetime(loaded) {} }
        let store = loaded.store
        let order = OfflineFixtures.sales.salesOrderID(0)
        let partner = try #require(try store.execute(.get, "SalesOrders('\(order)')").json()?["CustomerID"]?.stringValue)
        let one = try #require(try store.execute(.get, "SalesOrders('\(order)')/ToCustomer/$ref").json())
        #expect(one["@odata.context"]?.stringValue == "$metadata#$ref")
        #expect(one["@odata.id"]?.stringValue == "BusinessPartners('\(partner)')" && one["value"] == nil)
        let many = try #require(try store.execute(.get, "BusinessPartners('\(partner)')/ToSalesOrders/$ref").json())
        #expect(many["@odata.context"]?.stringValue == "$metadata#Collection($ref)" && (many["value"]?.arrayValue?.count ?? 0) > 0)
    }
}
