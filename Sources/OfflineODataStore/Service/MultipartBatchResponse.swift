import OfflineODataModel

/// A `multipart/mixed` `$batch` response (docs/MultipartBatch.md): one `application/http`
/// part per request outside change sets, a nested multipart per applied change set (one part
/// per request, `Content-ID` echoed), and a single `application/http` error part for a change
/// set that failed. `parse` reads such a body (e.g. a back end's answer to an upload).
public struct MultipartBatchResponse: Sendable, Hashable {
    /// One `application/http` response part.
    public struct Part: Sendable, Hashable {
        public var contentID: String?
        /// Status, headers and body (`entity` and `requestID` are not part of the format).
        public var response: ODataResponse

        public init(contentID: String? = nil, response: ODataResponse) {
            self.contentID = contentID
            self.response = response
        }
    }

    public enum Item: Sendable, Hashable {
        case response(Part)
        case changeSet(boundary: String, [Part])
    }

    public var boundary: String
    public var items: [Item]

    public init(boundary: String, items: [Item]) {
        self.boundary = boundary
        self.items = items
    }

    /// `multipart/mixed; boundary=<boundary>`.
    public var contentType: String { MultipartWriter.contentType(boundary) }

    /// Every response in order, change sets flattened.
    public var parts: [Part] {
        items.flatMap { item -> [Part] in
            switch item {
            case .response(let part): return [part]
            case .changeSet(_, let parts): return parts
            }
        }
    }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        MultipartWriter.appendMultipart(boundary, count: items.count, into: &out) { i, out in
            switch items[i] {
            case .response(let part):
                MultipartWriter.appendResponsePart(part, into: &out)
            case .changeSet(let inner, let parts):
                MultipartWriter.appendField("Content-Type", MultipartWriter.contentType(inner), into: &out)
                out += MultipartWriter.crlf
                MultipartWriter.appendMultipart(inner, count: parts.count, into: &out) { k, out in
                    MultipartWriter.appendResponsePart(parts[k], into: &out)
                }
            }
        }
        return out
    }

    /// Parses a batch response body given its `Content-Type`. Throws `invalidBatch` (3114) or
    /// `oversizeBatchHeader` (3117) with the byte offset.
    public static func parse(_ body: [UInt8], contentType: String) throws(ODataError) -> MultipartBatchResponse {
        guard let boundary = try MultipartReader.multipartBoundary(contentType, at: "Content-Type") else {
            throw .serviceInvalidBatch("'\(contentType)' is not multipart/mixed", "Content-Type")
        }
        let reader = MultipartReader(body: body)
        var items: [Item] = []
        for range in try reader.parts(in: 0..<body.count, boundary: boundary) {
            let mime = try reader.headers(from: range.lowerBound, end: range.upperBound, what: "the part at offset \(range.lowerBound)")
            if let inner = try MultipartReader.multipartBoundary(mime.value("Content-Type") ?? "", at: "offset \(range.lowerBound)") {
                var parts: [Part] = []
                for partRange in try reader.parts(in: mime.next..<range.upperBound, boundary: inner) {
                    let partMIME = try reader.headers(from: partRange.lowerBound, end: partRange.upperBound,
                                                      what: "the part at offset \(partRange.lowerBound)")
                    parts.append(try parsePart(reader, partRange, mime: partMIME))
                }
                items.append(.changeSet(boundary: inner, parts))
            } else {
                items.append(.response(try parsePart(reader, range, mime: mime)))
            }
        }
        return MultipartBatchResponse(boundary: boundary, items: items)
    }

    private static func parsePart(_ reader: MultipartReader, _ range: Range<Int>, mime: MultipartReader.Headers) throws(ODataError) -> Part {
        guard mime.closed else { throw .serviceInvalidBatch("the part at offset \(range.lowerBound) has no status line", "offset \(range.lowerBound)") }
        guard try MultipartReader.mediaType(mime.value("Content-Type") ?? "", at: "offset \(range.lowerBound)").type == "application/http" else {
            throw .serviceInvalidBatch("the part's Content-Type is '\(mime.value("Content-Type") ?? "")', not application/http", "offset \(range.lowerBound)")
        }
        let (lineRange, next) = reader.line(from: mime.next, end: range.upperBound)
        let statusLine = try reader.text(lineRange, what: "the status line")
        let words = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard words.count >= 2, words[0].hasPrefix("HTTP/"), let status = Int(words[1]), (100...599).contains(status) else {
            throw .serviceInvalidBatch("'\(statusLine.prefix(80))' is not a status line (HTTP/1.1 200 OK)", "offset \(lineRange.lowerBound)")
        }
        let http = try reader.headers(from: next, end: range.upperBound, what: "the response at offset \(lineRange.lowerBound)")
        var headers: [String: String] = [:]
        var contentID = mime.value("Content-ID")
        for field in http.fields {
            if MultipartReader.equalsIgnoringASCIICase(field.name, "Content-ID") {
                if contentID == nil { contentID = field.value }
                continue
            }
            // The boundary delimits the body.
            if MultipartReader.equalsIgnoringASCIICase(field.name, "Content-Length") { continue }
            headers[field.name] = field.value
        }
        let bodyRange = http.next..<range.upperBound
        let body: [UInt8]? = bodyRange.isEmpty ? nil : Array(reader.body[bodyRange])
        return Part(contentID: contentID, response: ODataResponse(status: status, headers: headers, body: body))
    }
}
