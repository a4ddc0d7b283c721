import Foundation
import OfflineODataModel
import OfflineODataStore

/// Turns OData responses into readable text: the status line, the interesting headers, and the
/// body as indented JSON (plain text when it is not JSON, e.g. `/$count`).
enum ResponsePrinter {
    static func statusLine(_ response: ODataResponse) -> String {
        var line = "\(response.status) \(reason(response.status))"
        if let etag = response.headers["ETag"] { line += "  ETag: \(etag)" }
        if let location = response.headers["Location"] { line += "  Location: \(location)" }
        if let id = response.requestID { line += "  RequestID: \(id)" }
        return line
    }

    static func body(_ response: ODataResponse) -> String? {
        guard let body = response.body, !body.isEmpty else { return nil }
        return pretty(body)
    }

    /// Indented JSON, or the text itself when it does not parse as JSON.
    static func pretty(_ bytes: [UInt8]) -> String {
        guard let value = try? JSONReader.parse(bytes) else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: value.serialized(options: JSONWriter.Options(pretty: true)), as: UTF8.self)
    }

    static func reason(_ status: Int) -> String { ODataResponse.reasonPhrase(status) ?? "" }
}
