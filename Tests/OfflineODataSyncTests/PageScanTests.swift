import Foundation
import OfflineODataFixtures
import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataSync

/// The receiving thread's scan of each downloaded page (`PageScan`): the links the general
/// reader reads, for pages of every shape the generated service gives (V4 and V2, links before
/// or after the entities, escapes in strings); every truncation a typed `invalidPayload`; any
/// damage an answer or a typed error, never a crash.
@Suite struct PageScanTests {
    static let generator = SalesServiceGenerator(seed: 5, scale: .entities(salesOrders: 20))

    /// A page of orders with items expanded, its links placed by `c`.
    static func page(_ c: inout [Int]) -> (bytes: [UInt8], next: String?, delta: String?) {
        func draw(_ n: Int) -> Int { c.isEmpty ? 0 : c.removeFirst() % max(1, n) }
        var entities: [[UInt8]] = []
        for order in 0..<draw(5) {
            var body = generator.entityProperties(set: .salesOrders, index: order) ?? Array("{}".utf8)
            body.removeLast()
            body += Array(#","Note@x.y":"a \"quoted\" \\ [{ note","ToItems":["#.utf8)
            body += generator.itemRange(ofSalesOrder: order).compactMap { generator.entityProperties(set: .salesOrderItems, index: $0) }
                .joined(separator: Array(",".utf8))
            entities.append(body + Array("]}".utf8))
        }
        let next: String? = draw(2) == 0 ? nil : "SalesOrders?$skiptoken='a%5Bb'&x=\(draw(1000))"
        let delta: String? = draw(3) == 0 ? "SalesOrders?$deltatoken=\(draw(1000))" : nil
        var members: [String] = [#""@odata.context":"$metadata#SalesOrders""#,
                                 #""value":["# + entities.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",") + "]"]
        if let next { members.insert(#""@odata.nextLink":"\#(next)""#, at: draw(3)) }
        if let delta { members.insert(#""@odata.deltaLink":"\#(delta)""#, at: draw(members.count + 1)) }
        if draw(2) == 0 { members.insert(#""@odata.count":42"#, at: draw(members.count + 1)) }
        return (Array(("{" + members.joined(separator: draw(2) == 0 ? "," : " ,\n ") + "}").utf8), next, delta)
    }

    @Test("links as the general reader reads them; every truncation an invalidPayload with its offset")
    func linksAndTruncations() async throws {
        let reader = ODataJSONReader(model: try ServiceModel.parse(metadata: Array(Self.generator.metadataXML().utf8)))
        await propertyCheck(count: 150, input: Gen.int(in: 0...1_000).array(of: 0...12)) { values in
            var c = values
            let (bytes, next, delta) = Self.page(&c)
            let text = String(decoding: bytes, as: UTF8.self)
            let general = try? reader.readCollection(bytes, entitySet: "SalesOrders")
            #expect(general != nil, "the general reader refused \(text)")
            guard let scan = try? PageScan.scan(bytes, what: "page") else {
                Issue.record("the scan refused \(text)")
                return
            }
            #expect(scan.nextLink == next && scan.nextLink == general?.nextLink, "\(text)")
            #expect(scan.deltaLink == delta && scan.deltaLink == general?.deltaLink, "\(text)")
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
                do throws(ODataError) {
                    _ = try PageScan.scan(Array(bytes[0..<cut]), what: "page")
                    Issue.record("a page cut at \(cut) of \(bytes.count) was taken: \(text)")
                } catch {
                    #expect(error.name == "invalidPayload" && error.location?.hasPrefix("offset ") == true,
                            "cut at \(cut): \(error.name) \(error.location ?? "")")
                }
            }
        }
    }

    @Test("strings full of escaped quotes and backslashes, at every offset of the eight-byte words the scan reads: the link after them found")
    func escapesAtEveryOffset() async throws {
        // Contents drawn from quotes, backslashes, brackets, letters and a two-byte UTF-8
        // character, escaped as JSON, so that an escape falls on every position of a word.
        let alphabet: [String] = ["\"", "\\", "[", "]", "{", "}", "a", "é", " "]
        await propertyCheck(count: 300, input: Gen.int(in: 0...1_000).array(of: 1...40)) { values in
            var strings: [String] = []
            var current = ""
            for value in values {
                if value % 11 == 0 {
                    strings.append(current)
                    current = ""
                } else {
                    current += alphabet[value % alphabet.count]
                }
            }
            strings.append(current)
            func quoted(_ text: String) -> String {
                "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            }
            let padding = String(repeating: " ", count: (values.first ?? 0) % 8)
            let text = "{\(padding)\"value\":[" + strings.map { "{\"Note\":\(quoted($0))}" }.joined(separator: ",")
                + "],\"@odata.nextLink\":\"next\"}"
            let bytes = Array(text.utf8)
            #expect((try? JSONReader.parse(bytes)) != nil, "the test's page is not JSON: \(text)")
            let scan = try? PageScan.scan(bytes, what: "page")
            #expect(scan?.nextLink == "next", "\(text)")
        }
    }

    @Test("damaged pages: an answer or a typed invalidPayload, never a crash")
    func damage() async throws {
        await propertyCheck(count: 300, input: Gen.int(in: 0...100_000).array(of: 0...16)) { values in
            var c = values
            var bytes = Self.page(&c).bytes
            for value in values.prefix(4) {
                let at = value % (bytes.count + 1)
                switch value % 3 {
                case 0 where at < bytes.count: bytes[at] = Array(#"{}[]",\:"#.utf8)[value % 8]
                case 1 where at < bytes.count: bytes.remove(at: at)
                default: bytes.insert(contentsOf: Array(#"]}"\"#.utf8).prefix(1 + value % 3), at: at)
                }
            }
            do throws(ODataError) {
                _ = try PageScan.scan(bytes, what: "page")
            } catch {
                #expect(error.name == "invalidPayload", "\(error.name): \(error.message)")
            }
        }
    }
}
