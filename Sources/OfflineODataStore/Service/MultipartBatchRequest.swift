import OfflineODataModel

/// A `multipart/mixed` `$batch` request (OData 4.01 Part 1 §11.7.7, OData V2 batch; the byte
/// layout is in docs/MultipartBatch.md): individual requests and change sets, each request an
/// `application/http` part. `parse` checks the whole structure before anything runs, so a
/// malformed batch changes nothing; `serialized()` writes the same format (CRLF line breaks).
public struct MultipartBatchRequest: Sendable, Hashable {
    /// One `application/http` request part.
    public struct Part: Sendable, Hashable {
        /// The part's `Content-ID` (MIME header, or an HTTP header of the request).
        public var contentID: String?
        /// Method, URL exactly as written (relative, absolute, or `$<Content-ID>…`), the HTTP headers, the body.
        public var request: ODataRequest
        /// Byte offset of the part's content in the batch body (0 for built batches).
        public var offset: Int

        public init(contentID: String? = nil, request: ODataRequest, offset: Int = 0) {
            self.contentID = contentID
            self.request = request
            self.offset = offset
        }
    }

    /// A top-level entry: a single request, or a change set (applied atomically).
    public enum Item: Sendable, Hashable {
        case request(Part)
        case changeSet(boundary: String, [Part])
    }

    public var boundary: String
    public var items: [Item]

    public init(boundary: String, items: [Item]) {
        self.boundary = boundary
        self.items = items
    }

    /// `multipart/mixed; boundary=<boundary>` (quoted when the boundary needs it).
    public var contentType: String { MultipartWriter.contentType(boundary) }

    // MARK: parse

    /// Parses a batch body given its `Content-Type` (`multipart/mixed; boundary=…`). Throws
    /// `invalidBatch` (3114), `oversizeBatchHeader` (3117) or `unknownContentID` (3118) with the
    /// byte offset; never anything else.
    public static func parse(_ body: [UInt8], contentType: String) throws(ODataError) -> MultipartBatchRequest {
        guard let boundary = try MultipartReader.multipartBoundary(contentType, at: "Content-Type") else {
            throw .serviceInvalidBatch("'\(contentType)' is not multipart/mixed", "Content-Type")
        }
        let reader = MultipartReader(body: body)
        var items: [Item] = []
        var known = Set<String>()  // Content-IDs of earlier requests
        for range in try reader.parts(in: 0..<body.count, boundary: boundary) {
            let mime = try reader.headers(from: range.lowerBound, end: range.upperBound, what: "the part at offset \(range.lowerBound)")
            guard mime.closed else { throw noRequestLine(range.lowerBound) }
            let type = mime.value("Content-Type") ?? ""
            if let inner = try MultipartReader.multipartBoundary(type, at: "offset \(range.lowerBound)") {
                var parts: [Part] = []
                var ids = Set<String>()
                for partRange in try reader.parts(in: mime.next..<range.upperBound, boundary: inner) {
                    let part = try parsePart(reader, partRange, inChangeSet: true, known: known)
                    if let id = part.contentID {
                        guard ids.insert(id).inserted else {
                            throw .serviceInvalidBatch("Content-ID '\(id)' occurs twice in one change set", "offset \(partRange.lowerBound)")
                        }
                        known.insert(id)
                    }
                    parts.append(part)
                }
                items.append(.changeSet(boundary: inner, parts))
            } else {
                let part = try parsePart(reader, range, mime: mime, inChangeSet: false, known: known)
                if let id = part.contentID { known.insert(id) }
                items.append(.request(part))
            }
        }
        return MultipartBatchRequest(boundary: boundary, items: items)
    }

    /// `$batch`, `$metadata` … : URL segments that are not Content-ID references.
    static let reservedSegments: Set<String> = ["batch", "metadata", "crossjoin", "all", "entity", "root"]

    private static func noRequestLine(_ offset: Int) -> ODataError {
        .serviceInvalidBatch("the part at offset \(offset) has no request line (its headers are not followed by a blank line)",
                             "offset \(offset)")
    }

    private static func parsePart(_ reader: MultipartReader, _ range: Range<Int>, mime given: MultipartReader.Headers? = nil,
                                  inChangeSet: Bool, known: Set<String>) throws(ODataError) -> Part {
        let at = "offset \(range.lowerBound)"
        let mime: MultipartReader.Headers
        if let given { mime = given } else {
            mime = try reader.headers(from: range.lowerBound, end: range.upperBound, what: "the part at offset \(range.lowerBound)")
        }
        guard mime.closed else { throw noRequestLine(range.lowerBound) }
        let type = try MultipartReader.mediaType(mime.value("Content-Type") ?? "", at: at).type
        if type == "multipart/mixed" {
            throw .serviceInvalidBatch("a change set inside a change set (OData allows one level)", at)
        }
        guard type == "application/http" else {
            throw .serviceInvalidBatch("the part's Content-Type is '\(mime.value("Content-Type") ?? "")', not application/http or multipart/mixed", at)
        }
        if let encoding = mime.value("Content-Transfer-Encoding"), !["binary", "8bit", "7bit"].contains(encoding.lowercased()) {
            throw .serviceInvalidBatch("Content-Transfer-Encoding '\(encoding)' is not supported (use binary)", at)
        }
        // Request line: METHOD SP URL [SP HTTP/1.1]
        var position = mime.next
        while position < range.upperBound {  // blank lines before the request line are skipped
            let blank = reader.line(from: position, end: range.upperBound)
            guard blank.text.isEmpty else { break }
            position = blank.next
        }
        guard position < range.upperBound else { throw noRequestLine(range.lowerBound) }
        let (lineRange, next) = reader.line(from: position, end: range.upperBound)
        let requestLine = try reader.text(lineRange, what: "the request line")
        let words = requestLine.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard words.count == 2 || words.count == 3 else {
            throw .serviceInvalidBatch("'\(requestLine.prefix(80))' is not a request line (METHOD URL HTTP/1.1)", "offset \(lineRange.lowerBound)")
        }
        if words.count == 3, !words[2].hasPrefix("HTTP/") {
            throw .serviceInvalidBatch("'\(words[2].prefix(40))' in the request line is not an HTTP version", "offset \(lineRange.lowerBound)")
        }
        guard let method = ODataMethod(name: words[0]) else {
            throw .serviceInvalidBatch("'\(words[0].prefix(40))' is not a supported method (GET POST PUT PATCH MERGE DELETE)",
                                       "offset \(lineRange.lowerBound)")
        }
        if inChangeSet, method == .get {
            throw .serviceInvalidBatch("GET '\(words[1].prefix(80))' inside a change set (only changes are allowed there)",
                                       "offset \(lineRange.lowerBound)")
        }
        let http = try reader.headers(from: next, end: range.upperBound, what: "the request at offset \(lineRange.lowerBound)")
        var headers: [String: String] = [:]
        var contentID = mime.value("Content-ID")
        for field in http.fields {
            switch field.name.lowercased() {
            case "content-id":
                if contentID == nil { contentID = field.value }
                continue
            case "content-length":
                continue  // the boundary delimits the body
            default: break
            }
            if let existing = headers[field.name] { headers[field.name] = existing + ", " + field.value } else { headers[field.name] = field.value }
        }
        if let id = contentID, id.isEmpty { contentID = nil }
        let url = words[1]
        if url.hasPrefix("$") {
            let rest = url.dropFirst()
            let name = String(rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex)])
            guard known.contains(name) || reservedSegments.contains(name) else { throw .serviceUnknownContentID("$" + name, "offset \(lineRange.lowerBound)") }
        }
        let bodyRange = http.next..<range.upperBound
        let body: [UInt8]? = reader.isBlank(bodyRange) ? nil : Array(reader.body[bodyRange])
        return Part(contentID: contentID, request: ODataRequest(method, url, headers: headers, body: body), offset: range.lowerBound)
    }

    // MARK: serialise

    /// The batch body (CRLF line breaks, `Content-Length` added for bodies).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(items.reduce(256) { total, item in
            switch item {
            case .request(let part): return total + 256 + (part.request.body?.count ?? 0)
            case .changeSet(_, let parts): return parts.reduce(total + 256) { $0 + 256 + ($1.request.body?.count ?? 0) }
            }
        })
        MultipartWriter.appendMultipart(boundary, count: items.count, into: &out) { i, out in
            switch items[i] {
            case .request(let part):
                MultipartWriter.appendRequestPart(part, into: &out)
            case .changeSet(let inner, let parts):
                MultipartWriter.appendField("Content-Type", MultipartWriter.contentType(inner), into: &out)
                out += MultipartWriter.crlf
                MultipartWriter.appendMultipart(inner, count: parts.count, into: &out) { k, out in
                    MultipartWriter.appendRequestPart(parts[k], into: &out)
                }
            }
        }
        return out
    }
}
