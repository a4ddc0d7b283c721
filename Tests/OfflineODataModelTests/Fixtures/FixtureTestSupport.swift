import Foundation
import OfflineODataFixtures
import Testing

/// Helpers shared by the fixture generator tests.
enum FixtureTestSupport {
    /// Parses a JSON object with Foundation (an independent parser from the generator's writer).
    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        return try #require(parsed as? [String: Any], "not a JSON object: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
    }

    /// Every page of `set`, fetched by following next links from the first page.
    static func allPages(
        _ generator: SalesServiceGenerator, _ set: SalesEntitySet, pageSize: Int,
        options: PageOptions = PageOptions()
    ) throws -> [[UInt8]] {
        var pages = [try generator.page(set: set, index: 0, pageSize: pageSize, options: options)]
        while let link = try object(pages[pages.count - 1])["@odata.nextLink"] as? String {
            let token = try SalesServiceGenerator.skipToken(inNextLink: link)
            pages.append(try generator.page(set: set, skipToken: token, pageSize: pageSize, options: options))
            if pages.count > 100_000 { break }
        }
        return pages
    }

    /// All entities of `set` as Foundation dictionaries.
    static func entities(_ generator: SalesServiceGenerator, _ set: SalesEntitySet) throws -> [[String: Any]] {
        var result: [[String: Any]] = []
        for page in try allPages(generator, set, pageSize: 250) {
            result += try #require(try object(page)["value"] as? [[String: Any]])
        }
        return result
    }

    /// The raw JSON texts that follow `"name":` in `bytes` (up to the next `,` or `}`), i.e. the
    /// exact literals the generator wrote for a number-valued property.
    static func rawValues(of name: String, in bytes: [UInt8]) -> [String] {
        let text = String(decoding: bytes, as: UTF8.self)
        var values: [String] = []
        var rest = text[...]
        let marker = "\"" + name + "\":"
        while let range = rest.range(of: marker) {
            let tail = rest[range.upperBound...]
            let end = tail.firstIndex { $0 == "," || $0 == "}" } ?? tail.endIndex
            values.append(String(tail[..<end]))
            rest = tail[end...]
        }
        return values
    }

    /// A fixed-scale decimal literal (`1234.500`) as an integer count of thousandths; nil if the
    /// text is not exactly `digits.ddd`.
    static func thousandths(_ literal: String) -> Int64? {
        let parts = literal.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 3, !parts[0].isEmpty,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let whole = Int64(parts[0]), let fraction = Int64(parts[1])
        else { return nil }
        return whole * 1000 + fraction
    }

    /// The repository root (…/Tests/OfflineODataModelTests/Fixtures/<file> → four levels up).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let corporaURL = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")

    static var corporaAvailable: Bool {
        FileManager.default.fileExists(atPath: corporaURL.appendingPathComponent("gwsample_basic/metadata.xml").path)
    }
}
