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

    // Writers that append to one buffer: a batch of 100 requests was built from about ten
    // small arrays per request (a line, its CRLF, the part, the change set, the batch), each
    // copied into the next; written in place it is one buffer grown a few times.

    /// `--boundary CRLF`.
    static func appendDelimiter(_ boundary: String, into out: inout [UInt8]) {
        out.append(0x2D)
        out.append(0x2D)
        out += boundary.utf8
        out += crlf
    }

    /// `--boundary-- CRLF`.
    static func appendClose(_ boundary: String, into out: inout [UInt8]) {
        out.append(0x2D)
        out.append(0x2D)
        out += boundary.utf8
        out.append(0x2D)
        out.append(0x2D)
        out += crlf
    }

    /// `name: value CRLF`.
    static func appendField(_ name: String, _ value: String, into out: inout [UInt8]) {
        out += name.utf8
        out.append(0x3A)
        out.append(0x20)
        out += value.utf8
        out += crlf
    }

    /// A multipart entity whose parts `write` appends in turn (`count` of them): each part
    /// `--boundary CRLF content CRLF`, then `--boundary-- CRLF`.
    static func appendMultipart(_ boundary: String, count: Int, into out: inout [UInt8], _ write: (Int, inout [UInt8]) -> Void) {
        for i in 0..<count {
            appendDelimiter(boundary, into: &out)
            write(i, &out)
            out += crlf
        }
        appendClose(boundary, into: &out)
    }

    /// The MIME headers of an `application/http` part, and the blank line after them.
    static func appendHTTPPartHeaders(_ contentID: String?, into out: inout [UInt8]) {
        appendField("Content-Type", "application/http", into: &out)
        appendField("Content-Transfer-Encoding", "binary", into: &out)
        if let contentID { appendField("Content-ID", contentID, into: &out) }
        out += crlf
    }

    /// HTTP header lines sorted by name, `Content-Length` recomputed for a body, and the blank
    /// line after them.
    static func appendHTTPHeaders(_ headers: [String: String], body: [UInt8]?, into out: inout [UInt8]) {
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) where name.lowercased() != "content-length" {
            appendField(name, value, into: &out)
        }
        if let body { appendField("Content-Length", String(body.count), into: &out) }
        out += crlf
    }

    static func appendRequestPart(_ part: MultipartBatchRequest.Part, into out: inout [UInt8]) {
        appendHTTPPartHeaders(part.contentID, into: &out)
        out += part.request.method.rawValue.utf8
        out.append(0x20)
        out += part.request.url.utf8
        out += " HTTP/1.1".utf8
        out += crlf
        appendHTTPHeaders(part.request.headers, body: part.request.body, into: &out)
        if let body = part.request.body { out += body }
    }

    static func appendResponsePart(_ part: MultipartBatchResponse.Part, into out: inout [UInt8]) {
        appendHTTPPartHeaders(part.contentID, into: &out)
        out += "HTTP/1.1 \(part.response.status) \(ODataResponse.reasonPhrase(part.response.status) ?? "Status")".utf8
        out += crlf
        appendHTTPHeaders(part.response.headers, body: part.response.body, into: &out)
        if let body = part.response.body { out += body }
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
