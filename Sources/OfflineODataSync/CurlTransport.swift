#if canImport(CCurl)
import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport on Linux: libcurl's multi interface, driven by one thread of the
/// transport's own, without FoundationNetworking in between.
///
/// Why not `URLSessionTransport` there: FoundationNetworking keeps a socket's write source
/// armed once libcurl has sent a request body, and a socket is always writable, so from then
/// until the answer arrives its queue spins (wake, ask libcurl, nothing to do, re-arm): every
/// upload burnt a core for as long as the back end took to answer (measured: 35–43 µs of
/// kernel time per request of a 100-request `$batch` on loopback, about half the client's CPU
/// per request). It also hops to the delegate's queue for every 16 KiB piece of an answer.
/// Here libcurl polls the socket for what it needs, and hands an answer over in pieces of up
/// to 256 KiB on the transport's thread.
///
/// Behaviour, as `URLSessionTransport`'s: one cookie store for the transport's life (session
/// cookies, a load balancer's affinity); an HTTP answer of any status is returned, never thrown;
/// an exchange without an answer throws a `TransportError`. The answer is returned once its
/// status and headers are in and its body streams, or comes whole for a request that
/// `collectsBody`. A request's timeout is the time it may stay without progress (no
/// connection, or no byte sent or received for that long), as URLSession's, not a limit on a
/// long download. A stored stream is sent as it is read, with its `Content-Length`.
///
/// Redirects: a `GET` or `HEAD` follows 301, 302, 303, 307 and 308; a request with another
/// method follows only 307 and 308, which keep the method and the body (sent again, a stored
/// stream from a fresh reader); any other redirect of a write comes back as the answer (a
/// write turned into a `GET` by a 303 is not the write the caller sent). At most 5 hops; an
/// `Authorization` header is not carried to another host.
///
/// Authentication: with `credential`, a `401` that asks for Basic is answered once, the request
/// sent again with it, and later requests to that host carry it from the start. Other schemes
/// are not answered: the `401` comes back with its `WWW-Authenticate`.
public final class CurlTransport: Transport, @unchecked Sendable {  // state behind `lock`, or the loop thread's
    /// Seconds an exchange may go without progress when the request sets no timeout.
    public let defaultTimeout: Double
    private let credential: (user: String, password: String)?
    private let loop: CurlLoop
    private let basicHosts = BasicAuthHosts()

    /// `credential`: a user and password for Basic authentication, as `URLSessionTransport`'s.
    public init(timeout: Double = 60, credential: URLCredential? = nil) throws {
        defaultTimeout = timeout
        if let credential, let user = credential.user, let password = credential.password {
            self.credential = (user, password)
        } else {
            self.credential = nil
        }
        loop = try CurlLoop()
    }

    deinit { loop.stop() }

    public var acceptsStreamedBodies: Bool { true }

    public func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        var current = request
        var url = try Self.parse(request.url)
        if let authorization = basicAuthorization(for: url) { current.headers.append((name: "Authorization", value: authorization)) }
        var answer = try await send(current, to: url)
        if answer.status == 401, credential != nil, current.header("Authorization") == nil,
           answer.header("WWW-Authenticate")?.lowercased().hasPrefix("basic") == true,
           let authorization = basicAuthorization(for: url, asked: true) {
            _ = try? await answer.body.collect(upTo: 1 << 20)
            current.headers.append((name: "Authorization", value: authorization))
            answer = try await send(current, to: url)
        }
        var hops = 0
        let safe = current.method == "GET" || current.method == "HEAD"
        while hops < 5, [301, 302, 303, 307, 308].contains(answer.status), safe || answer.status >= 307,
              let location = answer.header("Location"), let next = URL(string: location, relativeTo: url)?.absoluteURL,
              next.scheme == "http" || next.scheme == "https", next.host != nil {
            _ = try? await answer.body.collect(upTo: 1 << 20)
            hops += 1
            if BasicAuthHosts.key(next) != BasicAuthHosts.key(url) {
                current.headers.removeAll { $0.name.lowercased() == "authorization" }
            }
            url = next
            current.url = next.absoluteString
            answer = try await send(current, to: url)
        }
        return answer
    }

    static func parse(_ string: String) throws -> URL {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil else {
            throw TransportError(.invalidURL, "'\(string)' is not an absolute http or https URL")
        }
        return url
    }

    /// `Authorization: Basic …` for `url` when there is a credential and its host asked for
    /// Basic before (or `asked`: it just did).
    private func basicAuthorization(for url: URL, asked: Bool = false) -> String? {
        guard let credential else { return nil }
        return basicHosts.authorization(for: url, user: credential.user, password: credential.password, asked: asked)
    }

    /// One request, one answer (no redirect or challenge followed).
    /// `url`: the request's URL as `parse` read it.
    private func send(_ request: HTTPRequest, to url: URL) async throws -> HTTPResponse {
        let transfer = try CurlTransfer(request, url: url, timeout: request.timeout ?? defaultTimeout, loop: loop)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                transfer.continuation = continuation
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }
}

/// The multi handle and the thread that drives it. Every libcurl call on a handle that has been
/// submitted happens on this thread; others hand their work over through `lock`.
final class CurlLoop: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private let share: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var incoming: [CurlTransfer] = []
    private var cancelling: [CurlTransfer] = []
    private var stopping = false
    /// The thread has ended or is ending: no more wake-ups (under `lock`).
    private var closed = false
    /// Transfers in the multi handle, by easy handle (loop thread only).
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    private static let initialized: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    init() throws {
        guard Self.initialized == CURLE_OK, let multi = curl_multi_init(), let share = curl_share_init() else {
            throw TransportError(.other, "libcurl could not be initialised")
        }
        self.multi = multi
        self.share = share
        // Cookies are shared by the transport's transfers, all run on the one thread (no locks).
        _ = oo_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        _ = oo_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
        let thread = Thread { [self] in run() }
        thread.name = "OfflineODataSync.CurlTransport"
        thread.stackSize = 1 << 20
        thread.start()
    }

    // The wake-ups are made under `lock`, and the thread frees the multi handle only after it
    // set `closed` under it: none can reach a freed handle (a body's reader that stops late).

    func submit(_ transfer: CurlTransfer) {
        let refused = lock.withLock { () -> Bool in
            guard !closed else { return true }
            incoming.append(transfer)
            curl_multi_wakeup(multi)
            return false
        }
        if refused { transfer.complete(failure: TransportError(.cancelled, "\(transfer.description): the transport was released")) }
    }

    func cancel(_ transfer: CurlTransfer) {
        lock.withLock {
            guard !closed else { return }
            cancelling.append(transfer)
            curl_multi_wakeup(multi)
        }
    }

    /// Ends the thread once the transfers under way are done.
    func stop() {
        lock.withLock {
            guard !closed else { return }
            stopping = true
            curl_multi_wakeup(multi)
        }
    }

    private func run() {
        while true {
            let (added, cancelled, stop) = lock.withLock { () -> ([CurlTransfer], [CurlTransfer], Bool) in
                defer { incoming = []; cancelling = [] }
                // Released, nothing under way and nothing handed over: closed from here on.
                if stopping, running.isEmpty, incoming.isEmpty { closed = true }
                return (incoming, cancelling, stopping)
            }
            for transfer in added {
                // Its continuation was set before `submit`, so it is safe to touch from here on.
                transfer.submitted = true
                if transfer.cancelRequested {
                    transfer.complete(failure: TransportError(.cancelled, "\(transfer.description) was cancelled"))
                    continue
                }
                transfer.attach(share)
                let code = curl_multi_add_handle(multi, transfer.easy)
                if code == CURLM_OK {
                    running[transfer.easy] = transfer
                } else {
                    transfer.complete(failure: TransportError(.other, "\(transfer.description): libcurl refused the transfer (\(code.rawValue))"))
                }
            }
            for transfer in cancelled {
                // One cancelled before its `submit` was seen here ends when it is.
                guard transfer.submitted else {
                    transfer.cancelRequested = true
                    continue
                }
                remove(transfer)
                transfer.complete(failure: TransportError(.cancelled, "\(transfer.description) was cancelled"))
            }
            if stop, running.isEmpty, added.isEmpty {
                // Released with nothing left to carry (a body still being read when the
                // transport was let go is carried to its end, as URLSession's
                // `finishTasksAndInvalidate`). `closed` was set with this batch.
                curl_multi_cleanup(multi)
                curl_share_cleanup(share)
                return
            }
            var active: Int32 = 0
            _ = curl_multi_perform(multi, &active)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                      let transfer = running[easy] else { continue }
                let result = message.pointee.data.result
                remove(transfer)
                transfer.complete(result: result)
            }
            var ready: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, 10_000, &ready)
        }
    }

    /// Out of the multi handle, and its easy handle cleaned up here: it was attached to the
    /// share, which has no locks and is only ever touched from this thread.
    private func remove(_ transfer: CurlTransfer) {
        guard running.removeValue(forKey: transfer.easy) != nil else { return }
        curl_multi_remove_handle(multi, transfer.easy)
        transfer.cleanUp()
    }
}

/// One request on its easy handle: the callbacks' state, touched only by the loop's thread once
/// submitted.
final class CurlTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let description: String
    var continuation: CheckedContinuation<HTTPResponse, any Error>?
    private(set) var finished = false
    /// The loop has taken it from its queue (loop thread only).
    var submitted = false
    /// A cancel that came before the loop took it (loop thread only).
    var cancelRequested = false
    private var cleanedUp = false
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private let collects: Bool
    private let loop: CurlLoop
    /// The answer's status line and headers, as the header callback sees them (a `100
    /// Continue` before the final answer starts them afresh).
    private var status = 0
    private var headers: [(name: String, value: String)] = []
    private var contentLength: Int?
    /// Whether the answer has been handed to the caller (its body streaming since).
    private var answered = false
    private var body: AsyncThrowingStream<[UInt8], any Error>.Continuation?
    private var pending: [UInt8] = []
    private var whole = Data()
    /// A streamed request body: its source, the reader of this pass, the piece being sent.
    private let streamed: HTTPStreamedBody?
    private var reader: (any HTTPBodyReader)?
    private var piece: [UInt8] = []
    private var offset = 0
    private var sent: Int64 = 0
    private var readFailure: TransportError?
    /// Set from any thread when the body's reader stops reading.
    private let abandoned = ManagedFlag()

    /// `OODATA_CURL_VERBOSE` set: libcurl traces every transfer on standard error (for a
    /// problem in the field). Read once: reading the environment per request was 6 % of the
    /// client's CPU of an upload one request at a time (perf).
    static let verbose = ProcessInfo.processInfo.environment["OODATA_CURL_VERBOSE"] != nil

    /// The size of the pieces a streamed answer is handed over in (the last may be shorter).
    static let pieceBytes = 256 << 10

    /// `url`: `request.url` as `CurlTransport.parse` read it. Its text is what libcurl gets:
    /// Foundation escapes what a URL may not hold as it is (the blanks of a `$filter`), and
    /// libcurl takes only a well-formed URL.
    init(_ request: HTTPRequest, url: URL, timeout: Double, loop: CurlLoop) throws {
        for (name, value) in request.headers where name.isEmpty || (name + value).utf8.contains(where: { $0 == 13 || $0 == 10 }) {
            throw TransportError(.other, "the header '\(name)' of \(request.method) \(request.url) has an empty name or a line break")
        }
        guard let easy = curl_easy_init() else { throw TransportError(.other, "libcurl could not make a handle") }
        self.easy = easy
        self.loop = loop
        description = "\(request.method) \(request.url)"
        collects = request.collectsBody
        streamed = request.streamedBody
        errorBuffer.initialize(to: 0)
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = oo_easy_setopt_string(easy, CURLOPT_URL, url.absoluteString)
        if Self.verbose { _ = oo_easy_setopt_long(easy, CURLOPT_VERBOSE, 1) }
        _ = oo_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = oo_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = oo_easy_setopt_string(easy, CURLOPT_COOKIEFILE, "")   // the cookie engine on, nothing read
        _ = oo_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")   // every coding libcurl decodes
        _ = oo_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, Self.pieceBytes)
        // No progress for `timeout` seconds ends the exchange; a long transfer that moves does not.
        let seconds = max(1, Int(timeout.rounded(.up)))
        _ = oo_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(timeout * 1000)))
        _ = oo_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = oo_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, seconds)
        _ = oo_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, curlHeader)
        _ = oo_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        _ = oo_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, curlWrite)
        _ = oo_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)

        var lines = request.headers.map { "\($0.name): \($0.value)" }
        lines.append("Expect:")   // no `100-continue` round trip before a large body
        switch request.method {
        case "GET":
            _ = oo_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "HEAD":
            _ = oo_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        default:
            _ = oo_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
            if let streamed {
                _ = oo_easy_setopt_long(easy, CURLOPT_POST, 1)
                _ = oo_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(streamed.length))
                _ = oo_easy_setopt_read_function(easy, curlRead)
                _ = oo_easy_setopt_pointer(easy, CURLOPT_READDATA, me)
                _ = oo_easy_setopt_seek_function(easy, curlSeek)
                _ = oo_easy_setopt_pointer(easy, CURLOPT_SEEKDATA, me)
                do { reader = try streamed.makeReader() } catch {
                    curl_easy_cleanup(easy)
                    errorBuffer.deallocate()
                    throw TransportError(.other, "the body of \(description) could not be read: \(error)")
                }
            } else if request.body != nil || request.method != "DELETE" {
                // A body, or a write without one: sent with `Content-Length` (0 for none).
                let bytes = request.body ?? []
                _ = oo_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                if bytes.isEmpty {
                    _ = oo_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
                } else {
                    bytes.withUnsafeBytes { _ = oo_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
                }
            }
            if request.streamedBody != nil || request.body != nil || request.method != "DELETE",
               request.header("Content-Type") == nil {
                lines.append("Content-Type:")   // not libcurl's form type
            }
        }
        for line in lines { headerList = curl_slist_append(headerList, line) }
        _ = oo_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)
    }

    deinit {
        if !cleanedUp { curl_easy_cleanup(easy) }
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// The transport's cookies and DNS cache, for this transfer (loop thread).
    func attach(_ share: UnsafeMutableRawPointer) {
        _ = oo_easy_setopt_share(easy, share)
    }

    /// The easy handle released (loop thread, once it left the multi handle).
    func cleanUp() {
        guard !cleanedUp else { return }
        cleanedUp = true
        curl_easy_cleanup(easy)
    }

    // MARK: callbacks (loop thread)

    fileprivate func header(_ bytes: UnsafeBufferPointer<UInt8>) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 13 || bytes[end - 1] == 10 { end -= 1 }   // the line's CRLF
        let line = Substring(decoding: UnsafeBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            // A status line: a new answer begins (after a `100 Continue`).
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
            headers = []
            contentLength = nil
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        headers.append((name: name, value: value))
        if name.lowercased() == "content-length" { contentLength = Int(value) }
    }

    /// Bytes of the answer's body; false to stop the transfer (the reader is gone).
    fileprivate func write(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if abandoned.isSet { return false }
        if collects {
            if whole.isEmpty, let contentLength { whole.reserveCapacity(HTTPBody.reservation(contentLength, limit: HTTPBody.maxReserved)) }
            whole.append(bytes)
            return true
        }
        if !answered { answer() }
        if pending.isEmpty { pending.reserveCapacity(Self.pieceBytes + bytes.count) }
        pending.append(contentsOf: bytes)
        if pending.count >= Self.pieceBytes {
            var out: [UInt8] = []
            swap(&out, &pending)
            body?.yield(out)
        }
        return true
    }

    /// The answer handed to the caller, its body to stream.
    private func answer() {
        answered = true
        let (stream, body) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let abandoned = self.abandoned
        let loop = self.loop
        body.onTermination = { [weak self] termination in
            if case .cancelled = termination {
                abandoned.set()
                if let self { loop.cancel(self) }
            }
        }
        self.body = body
        continuation?.resume(returning: HTTPResponse(status: status, headers: headers, body: HTTPBody(stream)))
        continuation = nil
    }

    /// Up to `capacity` bytes of the request body into `buffer`; nil after a failed read.
    fileprivate func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int? {
        guard let streamed, let reader else { return 0 }
        while offset >= piece.count {
            do {
                guard let next = try reader.next() else {
                    guard sent == streamed.length else {
                        readFailure = TransportError(.other, "the request body ended after \(sent) of its \(streamed.length) bytes")
                        return nil
                    }
                    return 0
                }
                guard sent + Int64(next.count) <= streamed.length else {
                    readFailure = TransportError(.other, "the request body runs past its length of \(streamed.length) bytes")
                    return nil
                }
                piece = next
                offset = 0
            } catch {
                readFailure = TransportError(.other, "the body of \(description) could not be read: \(error)")
                return nil
            }
        }
        let n = min(capacity, piece.count - offset)
        piece.withUnsafeBytes { source in
            if let base = source.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: n) }
        }
        offset += n
        sent += Int64(n)
        return n
    }

    /// Back to the start of the request body (libcurl sends it again on a new connection).
    fileprivate func rewind() -> Bool {
        guard let streamed else { return true }
        do {
            reader = try streamed.makeReader()
        } catch {
            readFailure = TransportError(.other, "the body of \(description) could not be read again: \(error)")
            return false
        }
        piece = []
        offset = 0
        sent = 0
        return true
    }

    // MARK: the end (loop thread)

    func complete(result: CURLcode) {
        guard result == CURLE_OK else {
            complete(failure: readFailure ?? failure(of: result))
            return
        }
        guard !finished else { return }
        finished = true
        if let continuation {
            self.continuation = nil
            let body = collects ? HTTPBody(data: whole) : HTTPBody([])
            continuation.resume(returning: HTTPResponse(status: status, headers: headers, body: body))
            return
        }
        if !pending.isEmpty { body?.yield(pending) }
        pending = []
        body?.finish()
    }

    func complete(failure: TransportError) {
        guard !finished else { return }
        finished = true
        if let continuation {
            self.continuation = nil
            continuation.resume(throwing: failure)
        } else {
            body?.finish(throwing: failure.kind == .cancelled ? failure : TransportError(.reset, "\(description): \(failure.message)"))
        }
        pending = []
    }

    private func failure(of code: CURLcode) -> TransportError {
        let detail = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        let message = "\(description): \(detail)"
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return TransportError(.refused, message)
        case CURLE_OPERATION_TIMEDOUT:
            return TransportError(.timeout, message)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return TransportError(.reset, message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_SHUTDOWN_FAILED:
            return TransportError(.tls, message)
        case CURLE_URL_MALFORMAT:
            return TransportError(.invalidURL, message)
        case CURLE_WRITE_ERROR where abandoned.isSet, CURLE_ABORTED_BY_CALLBACK where abandoned.isSet:
            return TransportError(.cancelled, message)
        default:
            return TransportError(.other, "\(message) (libcurl \(code.rawValue))")
        }
    }
}

/// A flag set once, from any thread.
private final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

// The C callbacks: `userdata` is the transfer, retained by the loop while it runs.

private func curlHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let data, let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    transfer.header(UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count))
    return size * count
}

private func curlWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let data, let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let ok = transfer.write(UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count))
    return ok ? size * count : 0
}

private func curlRead(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let userdata else { return OO_CURL_READFUNC_ABORT }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.read(into: buffer, capacity: size * count) ?? OO_CURL_READFUNC_ABORT
}

private func curlSeek(_ userdata: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let userdata, offset == 0, origin == SEEK_SET else { return OO_CURL_SEEKFUNC_CANTSEEK }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.rewind() ? OO_CURL_SEEKFUNC_OK : OO_CURL_SEEKFUNC_CANTSEEK
}
#endif
