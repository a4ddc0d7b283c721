import Foundation
import OfflineODataModel
import OfflineODataStore

/// One line of the `shell` console (modelled on SAP's ILOData):
///
///     GET /SalesOrders?$top=3
///     POST /SalesOrders {"SalesOrderID":"X1", …}
///     PATCH /SalesOrders('1') If-Match:W/"abc" {"Note":"rush"}
///     DELETE /SalesOrders('1')
///     explain /SalesOrders?$filter=CustomerID eq '0100000000'
///     help | quit
enum ShellLine: Equatable {
    case request(method: ODataMethod, url: String, headers: [String: String], body: String?)
    case explain(String)
    /// Download from the store's back end (the named defining queries, or all).
    case download([String])
    /// Upload the queue (the named upload categories, or all).
    case upload([String])
    /// The ErrorArchive.
    case errors
    /// Undo the pending changes of one entity (`Set(key)`).
    case undo(String)
    /// Withdraw an action invoked offline before it is uploaded (its RequestID).
    case withdraw(Int64)
    /// `media put <Set(key)[/Prop]> <file> [type]`: a stream replaced from a file.
    case putMedia(url: String, file: String, contentType: String?)
    /// `media get <Set(key)[/Prop]> <file>`: a stream written to a file.
    case getMedia(url: String, file: String)
    /// `media new <Set> <file> [type]`: a media entity created from a file.
    case newMedia(set: String, file: String, contentType: String?)
    case help
    /// The lines of this session, numbered (`!N` runs line N again).
    case history
    case quit
    case empty

    static let helpText = """
        GET <url>                          read (e.g. GET /SalesOrders?$top=3&$orderby=GrossAmount desc)
        POST <url> <json>                  create
        PATCH <url> [If-Match:<etag>] <json>   update the given properties (PUT replaces)
        … <url> [Name:Value …] [<json>]    any request header, e.g. OfflineOData.TransactionID:t1 Prefer:return=minimal
        POST /$batch Content-Type:multipart/mixed;boundary=b   then the parts on the next lines, up to --b--
        DELETE <url> [If-Match:<etag>]     delete
        explain <url>                      the query plan of a GET
        download [NAME …]                  download the defining queries from the store's back end
        upload [CATEGORY …]                send the request queue to the back end
        errors                             the ErrorArchive
        undo <entity path>                 drop an entity's pending changes (back to the back end's version): Set(key), Me, People('x')/Trips(0)
        withdraw <RequestID>               withdraw an action invoked offline (POST ActionImport) before it is uploaded
        media put <Set(key)[/Prop]> <file> [type]   replace a stream (media resource or stream property) from a file
        media get <Set(key)[/Prop]> <file>          write a stored stream to a file
        media new <Set> <file> [type]               create a media entity from a file (type from the extension if not given)
        history                            the lines of this session, numbered; !N runs line N again
        help                               this text
        quit                               leave (also exit, Ctrl-D)
        URLs are relative to the service root; a leading / is optional. System sets:
        RequestQueue, ErrorArchive, EventLog. A JSON body may span lines: a line whose body
        leaves a { or [ open goes on with the next. On a terminal: ←/→, Home/End, Ctrl-A/E/K/U/W,
        Alt-B/F edit the line; ↑/↓ go through this session's lines (and earlier sessions' when
        OODATA_HISTORY names a file to keep them in: lines hold the store's data in clear); Ctrl-C
        drops the line, Ctrl-D leaves.
        """

    /// Parses a line; throws a one-line `CLIFailure` for anything it does not understand.
    static func parse(_ line: String) throws(CLIFailure) -> ShellLine {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty || text.hasPrefix("#") { return .empty }
        let (word, rest) = split(text[...])
        switch word.lowercased() {
        case "help", "?": return .help
        case "quit", "exit", "q": return .quit
        case "download": return .download(rest.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init))
        case "upload": return .upload(rest.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init))
        case "errors": return .errors
        case "withdraw":
            guard let id = Int64(rest.trimmingCharacters(in: .whitespaces)) else {
                throw CLIFailure(message: "withdraw needs the action's RequestID, e.g. withdraw 7 (GET RequestQueue lists them)")
            }
            return .withdraw(id)
        case "history": return .history
        case "media":
            let words = rest.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard words.count >= 3 else {
                throw CLIFailure(message: "media needs put|get|new, a URL and a file, e.g. media get Photos(1) photo.jpg")
            }
            let url = normalize(words[1])
            switch words[0].lowercased() {
            case "put" where words.count <= 4: return .putMedia(url: url, file: words[2], contentType: words.count == 4 ? words[3] : nil)
            case "get" where words.count == 3: return .getMedia(url: url, file: words[2])
            case "new" where words.count <= 4: return .newMedia(set: url, file: words[2], contentType: words.count == 4 ? words[3] : nil)
            default:
                throw CLIFailure(message: "media put|new <url> <file> [type], media get <url> <file>")
            }
        case "undo":
            guard !rest.isEmpty else { throw CLIFailure(message: "undo needs an entity, e.g. undo SalesOrders('SO001')") }
            return .undo(normalize(String(rest)))
        case "explain":
            guard !rest.isEmpty else { throw CLIFailure(message: "explain needs a URL, e.g. explain /SalesOrders?$top=3") }
            return .explain(normalize(String(rest)))
        default: break
        }
        guard let method = ODataMethod(name: word.uppercased()) else {
            throw CLIFailure(message: "unknown command '\(word)' (try help)")
        }
        // Words are slices of the line, never copies of what remains of it, so a long line is
        // split in linear time (copying the remainder at each word took 59 s for a 64 KB line).
        // A multipart body (`POST $batch Content-Type:multipart/mixed;boundary=b` and the parts
        // on the lines after it, up to `--b--`): the first line is the request, the rest its body.
        var requestLine = rest
        var attached: String?
        if let parts = multipartParts(rest) {
            requestLine = parts.head
            attached = parts.body
        }
        let (firstWord, rest2) = split(requestLine)
        var url = String(firstWord)
        var remainder = rest2
        guard !url.isEmpty else { throw CLIFailure(message: "\(method.rawValue) needs a URL") }
        // URLs may contain spaces inside $filter: everything up to the body (`{` or `[`) or an
        // `If-Match:` word is the URL.
        var headers: [String: String] = [:]
        var body: String?
        while !remainder.isEmpty {
            if remainder.hasPrefix("{") || remainder.hasPrefix("[") {
                body = String(remainder)
                break
            }
            let (next, after) = split(remainder)
            if next.lowercased().hasPrefix("if-match:") {
                let value = String(next.dropFirst("if-match:".count))
                guard !value.isEmpty else { throw CLIFailure(message: "If-Match: needs an ETag, e.g. If-Match:W/\"1\"") }
                headers["If-Match"] = value
            } else if let (name, value) = header(next) {
                // Any request header as Name:Value (no blank in the value): Prefer,
                // OfflineOData.TransactionID, OfflineOData.RemoveAfterUpload, custom tags, …
                headers[name] = value
            } else {
                url += " "
                url += next
            }
            remainder = after
        }
        if let attached {
            guard body == nil else { throw CLIFailure(message: "a multipart request takes its body from the lines after it, not a JSON body") }
            guard method == .post else { throw CLIFailure(message: "only POST takes a multipart body (POST /$batch)") }
            return .request(method: method, url: normalize(url), headers: headers, body: attached)
        }
        if let body {
            do { _ = try JSONReader.parse(body) } catch {
                throw CLIFailure(message: "bad JSON body: \(error.message)\(error.location.map { " at \($0)" } ?? "")")
            }
        }
        switch method {
        case .post, .put, .patch, .merge:
            guard body != nil else { throw CLIFailure(message: "\(method.rawValue) needs a JSON body, e.g. \(method.rawValue) \(url) {\"Note\":\"x\"}") }
        default:
            guard body == nil else { throw CLIFailure(message: "\(method.rawValue) takes no body") }
        }
        return .request(method: method, url: normalize(url), headers: headers, body: body)
    }

    /// The boundary when the first line of `text` names a multipart `Content-Type` header
    /// (`Content-Type:multipart/mixed;boundary=b`).
    static func multipartBoundary(_ text: Substring) -> String? {
        let head = text.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" }
        for word in head.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            guard let (name, value) = header(word), name.lowercased() == "content-type",
                  value.lowercased().hasPrefix("multipart/") else { continue }
            for parameter in value.split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" {
                    let boundary = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
                    return boundary.isEmpty ? nil : boundary
                }
            }
        }
        return nil
    }

    /// The request line and the multipart body after it, its lines joined with CRLF (RFC 2046
    /// §5.1.1), for a text whose first line names a multipart `Content-Type`.
    static func multipartParts(_ text: Substring) -> (head: Substring, body: String)? {
        guard multipartBoundary(text) != nil else { return nil }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        guard let head = lines.first, lines.count > 1 else { return nil }
        return (head, lines.dropFirst().joined(separator: "\r\n") + "\r\n")
    }

    /// Whether a line's body is still open, so that the console reads the next line into the
    /// same request (a body pasted or typed over several lines): a JSON body, from its first
    /// `{` or `[` that starts a word, with more brackets open than close outside strings; a
    /// multipart body (its first line names `Content-Type:multipart/…;boundary=b`) until a
    /// line `--b--`.
    static func unfinishedBody(_ line: String) -> Bool {
        if let boundary = multipartBoundary(line[...]) {
            return !line.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).dropFirst().contains {
                $0.trimmingCharacters(in: .whitespaces) == "--" + boundary + "--"
            }
        }
        var depth = 0
        var inString = false
        var escaped = false
        var started = false
        var previous: Character = " "
        for c in line {
            defer { previous = c }
            if !started {
                guard c == "{" || c == "[", previous == " " || previous == "\t" || previous == "\n" else { continue }
                started = true
            }
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            switch c {
            case "\"": inString = true
            case "{", "[": depth += 1
            case "}", "]": depth -= 1
            default: break
            }
        }
        return started && (depth > 0 || inString)
    }

    /// `Name:Value` when `word` is a request header: a token (letters, digits, `.`, `-`, `_`)
    /// that starts with a letter, a colon, a non-empty value.
    private static func header(_ word: Substring) -> (String, String)? {
        guard let colon = word.firstIndex(of: ":"), colon != word.startIndex, word.index(after: colon) < word.endIndex,
              let first = word.first, first.isLetter,
              word[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }) else { return nil }
        return (String(word[..<colon]), String(word[word.index(after: colon)...]))
    }

    /// The first word of `text` and what follows it, without the blanks between: both are
    /// slices of `text` (no copy).
    private static func split(_ text: Substring) -> (Substring, Substring) {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        guard let space = text.firstIndex(where: blank) else { return (text, text[text.endIndex...]) }
        return (text[..<space], text[space...].drop(while: blank))
    }

    private static func normalize(_ url: String) -> String {
        var url = url
        while url.hasPrefix("/") { url.removeFirst() }
        return url
    }
}
