import OfflineODataModel

/// Writes `multipart/mixed` batch bodies (docs/MultipartBatch.md): CRLF line breaks, each part
/// `--boundary CRLF content CRLF`, then `--boundary-- CRLF`; `application/http` parts carry
/// `Content-Transfer-Encoding: binary` and an optional `Content-ID`.
enum MultipartWriter {
    static let crlf: [UInt8] = [0x0D, 0x0A]

    /// `multipart/mixed; boundary=b`, quoting the boundary when it is not a token.
    static func contentType(_ boundary: String) -> String {
        let token = !boundary.isEmpty && boundary.unicodeScalars.allSatisfy(MultipartReader.isTokenCharacter)
        return "multipart/mixed; boundary=" + (token ? boundary : "\"" + boundary + "\"")
    }

    /// A multipart entity from the contents of its parts.
    static func multipart(_ boundary: String, _ contents: [[UInt8]]) -> [UInt8] {
        let dash = Array(("--" + boundary).utf8)
        var out: [UInt8] = []
        for content in contents {
            out += dash + crlf
            out += content
            out += crlf
        }
        out += dash + Array("--".utf8) + crlf
        return out
    }

    /// Header lines and the blank line after them.
    static func headerBlock(_ fields: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, value) in fields { out += Array("\(name): \(value)".utf8) + crlf }
        return out + crlf
    }

    /// The MIME headers of an `application/http` part.
    static func httpPartHeaders(_ contentID: String?) -> [UInt8] {
        var fields = [("Content-Type", "application/http"), ("Content-Transfer-Encoding", "binary")]
        if let contentID { fields.append(("Content-ID", contentID)) }
        return headerBlock(fields)
    }

    /// HTTP headers sorted by name, `Content-Length` recomputed for a body.
    static func httpHeaders(_ headers: [String: String], body: [UInt8]?) -> [(String, String)] {
        var fields = headers.filter { $0.key.lowercased() != "content-length" }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let body { fields.append(("Content-Length", String(body.count))) }
        return fields
    }

    static func requestPart(_ part: MultipartBatchRequest.Part) -> [UInt8] {
        var out = httpPartHeaders(part.contentID)
        out += Array("\(part.request.method.rawValue) \(part.request.url) HTTP/1.1".utf8) + crlf
        out += headerBlock(httpHeaders(part.request.headers, body: part.request.body))
        if let body = part.request.body { out += body }
        return out
    }

    static func responsePart(_ part: MultipartBatchResponse.Part) -> [UInt8] {
        var out = httpPartHeaders(part.contentID)
        out += Array("HTTP/1.1 \(part.response.status) \(ODataResponse.reasonPhrase(part.response.status) ?? "Status")".utf8) + crlf
        out += headerBlock(httpHeaders(part.response.headers, body: part.response.body))
        if let body = part.response.body { out += body }
        return out
    }

    /// True when `needle` occurs in `haystack` (for choosing a boundary that no body contains).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0] {
                var k = 1
                while k < needle.count, haystack[i + k] == needle[k] { k += 1 }
                if k == needle.count { return true }
            }
            i += 1
        }
        return false
    }
}
