import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataStore

/// The steps of `offline-odata demo`: everything an app does with an offline store, printed
/// with timings. Every request goes through the store's OData interface, as an app's would.
struct StoreTour {
    let orders: Int
    let pageSize: Int
    let path: String?
    let seed: UInt64

    static let passphrase = "demo passphrase: correct horse battery staple"

    func run() async throws {
        let keep = path != nil
        let dir = path ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("offline-odata-demo-\(UUID().uuidString)").path
        defer { if !keep { try? FileManager.default.removeItem(atPath: dir) } }
        let generator = SalesServiceGenerator(seed: seed, scale: .entities(salesOrders: orders))
        let scale = generator.scale
        let metadata = Array(generator.metadataXML().utf8)
        print("OfflineOData store demo: EPM-like sales service, \(scale.totalEntities.formatted) entities "
              + "(\(scale.salesOrders.formatted) sales orders, \(scale.salesOrderItems.formatted) items, "
              + "\(scale.businessPartners.formatted) partners, \(scale.products.formatted) products)")
        print("store: \(dir)/localstore.oostore")
        let tourStart = Date()

        // 1. Open
        step(1, "Open an encrypted store (passphrase → Argon2id → data key)")
        let location = StoreLocation(path: dir, storeName: "localstore")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        if location.folderExists { try OfflineStore.clear(storePath: dir) }
        try Data(metadata).write(to: URL(fileURLWithPath: location.metadataFile))
        var parameters = OfflineStoreParameters(storePath: dir, encryption: .passphrase(Self.passphrase))
        parameters.pageSize = pageSize
        parameters.definingQueries = SalesEntitySet.allCases.map { DefiningQuery(name: $0.name, url: $0.name) }
        var t = Date()
        var store = try await OfflineStore.open(metadata: metadata, parameters: parameters)
        print("opened in \(milliseconds(since: t)); defining queries: "
              + (try store.definingQueries()).map(\.url).joined(separator: ", "))

        // 2. Download
        step(2, "Apply the download: every page of every defining query (with ETags)")
        let options = PageOptions(includeETags: true)
        let downloadStart = Date()
        for set in SalesEntitySet.allCases {
            t = Date()
            let pages = try generator.pages(of: set, pageSize: pageSize, options: options)
            let summary = try await store.applyDownload(definingQuery: set.name, pages: pages)
            let seconds = Date().timeIntervalSince(t)
            print(pad(set.name, 16) + pad("\(summary.entitiesApplied.formatted) entities", 20)
                  + pad("\(pages.underestimatedCount) page(s)", 12)
                  + String(format: "%8.1f ms  %9.0f entities/s", seconds * 1000, Double(summary.entitiesApplied) / max(seconds, 1e-9)))
        }
        print(String(format: "download applied in %.2f s", Date().timeIntervalSince(downloadStart)))

        // 3. Indexes
        step(3, "Declare indexes (built over the existing data; foreign keys such as CustomerID are indexed automatically)")
        let indexes = [
            IndexDefinition(name: "OrdersByAmount", entitySet: "SalesOrders", properties: ["GrossAmount"]),
            IndexDefinition(name: "ProductsByCategory", entitySet: "Products", properties: ["Category"]),
        ]
        for index in indexes {
            t = Date()
            try await store.declareIndex(index)
            print("\(pad(index.name, 20)) \(index.entitySet)(\(index.properties.joined(separator: ","))) in \(milliseconds(since: t))")
        }

        let customer = generator.businessPartnerID(1)
        let product = generator.productID(2)
        let orderA = generator.salesOrderID(1)
        let orderB = generator.salesOrderID(2)

        // 4. Filters
        step(4, "Filters: indexed and not (explain shows the plan)")
        for url in ["SalesOrders?$filter=CustomerID eq '\(customer)'&$count=true&$top=3&$select=SalesOrderID,CustomerID,GrossAmount",
                    "SalesOrderItems?$filter=ProductID eq '\(product)' and Quantity gt 2&$count=true&$top=3&$select=SalesOrderID,ItemPosition,Quantity",
                    "SalesOrders?$filter=GrossAmount ge 50000&$count=true&$top=3&$select=SalesOrderID,GrossAmount",
                    "SalesOrders?$filter=contains(Note,'quarter')&$count=true&$top=3&$select=SalesOrderID,Note"] {
            try get(store, url, columns: [])
            print(indent(try store.explain(url)))
        }

        // 5. $expand
        step(5, "$expand: an order with its items and customer")
        try get(store, "SalesOrders('\(orderA)')?$select=SalesOrderID,GrossAmount&$expand=ToItems($select=ItemPosition,ProductID,Quantity),ToCustomer($select=CompanyName)",
                columns: [], showBody: true)

        // 6. $orderby + $top
        step(6, "$orderby + $top: the five largest orders")
        try get(store, "SalesOrders?$orderby=GrossAmount desc&$top=5&$select=SalesOrderID,CustomerName,GrossAmount",
                columns: ["SalesOrderID", "CustomerName", "GrossAmount"])

        // 7. Paging
        step(7, "Server-driven paging: follow @odata.nextLink (page size \(pageSize))")
        t = Date()
        var next: String? = "SalesOrderItems?$select=SalesOrderID,ItemPosition"
        var pages = 0
        var rows = 0
        while let url = next {
            let body = try json(try store.execute(.get, url))
            pages += 1
            rows += body["value"]?.arrayValue?.count ?? 0
            next = body["@odata.nextLink"]?.stringValue
            if pages <= 2, let next { print("page \(pages): \(body["value"]?.arrayValue?.count ?? 0) rows, nextLink \(next)") }
        }
        print("\(rows.formatted) rows in \(pages) pages in \(milliseconds(since: t))")

        // 8. $count
        step(8, "$count")
        for url in ["SalesOrderItems/$count", "SalesOrders/$count?$filter=CustomerID eq '\(customer)'", "Products/$count?$filter=Price ge 500"] {
            t = Date()
            let response = try store.execute(.get, url)
            print("GET \(url) → \(response.status), count \(response.bodyText ?? "?") (\(milliseconds(since: t)))")
        }

        // 9. Local changes
        step(9, "Local create, update and delete (queued for upload)")
        let newID = "DEMO000001"
        let created = try write(store, .post, "SalesOrders", body: """
            {"SalesOrderID":"\(newID)","Note":"created offline","CustomerID":"\(customer)","CustomerName":"Demo customer",\
            "CurrencyCode":"EUR","GrossAmount":119,"NetAmount":100,"TaxAmount":19,"LifecycleStatus":"N","BillingStatus":"",\
            "DeliveryStatus":"","CreatedAt":"2026-11-22T08:00:00Z","ChangedAt":"2026-11-22T08:00:00Z","DeliveryDate":"2026-12-01"}
            """)
        let current = try store.execute(.get, "SalesOrders('\(orderA)')")
        let serverETag = try current.headers["ETag"] ?? json(current)["@odata.etag"]?.stringValue
        print("server ETag of \(orderA): \(serverETag ?? "none")")
        let updated = try write(store, .patch, "SalesOrders('\(orderA)')", body: #"{"Note":"rush delivery","GrossAmount":999.5}"#,
                                headers: serverETag.map { ["If-Match": $0] } ?? [:])
        _ = try write(store, .delete, "SalesOrders('\(orderB)')")
        _ = created

        // 10. The request queue
        step(10, "The request queue")
        try get(store, "RequestQueue?$orderby=RequestID", columns: ["RequestID", "Method", "URL"])

        // 11. Conflict
        step(11, "ETag conflict: PATCH with the stale server ETag")
        if let serverETag {
            do {
                let response = try store.execute(.patch, "SalesOrders('\(orderA)')", body: #"{"Note":"second edit"}"#,
                                                 headers: ["If-Match": serverETag])
                print("PATCH If-Match \(serverETag) → \(ResponsePrinter.statusLine(response)) (unexpected)")
            } catch {
                let response = ODataResponse.error(error)
                print("PATCH If-Match \(serverETag) → \(response.status) \(ResponsePrinter.reason(response.status)): \(error.name) (\(error.code))")
            }
        }

        // 12. ErrorArchive
        step(12, "The back end rejects the update at upload: it lands in the ErrorArchive")
        if let requestID = updated.requestID {
            t = Date()
            try store.service.markFailed(requestID: requestID, httpStatus: 412, code: "ETAG_MISMATCH",
                                         message: "The order was changed on the server")
            print("markFailed(requestID: \(requestID), httpStatus: 412) in \(milliseconds(since: t))")
        }
        try get(store, "ErrorArchive?$filter=HTTPStatusCode eq 412", columns: ["RequestID", "HTTPStatusCode", "RequestMethod", "RequestURL", "Message"])

        // 13. Undo
        step(13, "Undo: the failed order returns to its server version")
        t = Date()
        let undone = try store.service.undoPendingChanges(set: "SalesOrders", key: [.string(orderA)])
        print("undoPendingChanges(SalesOrders('\(orderA)')) → \(undone) in \(milliseconds(since: t))")
        try get(store, "SalesOrders('\(orderA)')?$select=SalesOrderID,Note,GrossAmount", columns: [], showBody: true)
        let afterUndo = try store.stats()
        print("queue: \(afterUndo.queuedRequests) request(s), ErrorArchive: \(afterUndo.failedRequests) entr(ies)")

        // 14. Close, reopen, verify
        step(14, "Close, reopen, verify")
        let before = try store.stats()
        t = Date()
        try store.close()
        print("closed in \(milliseconds(since: t))")
        t = Date()
        var reopenParameters = OfflineStoreParameters(storePath: dir, encryption: .passphrase(Self.passphrase))
        reopenParameters.pageSize = pageSize
        store = try await OfflineStore.open(metadata: metadata, parameters: reopenParameters)
        print("reopened in \(milliseconds(since: t)) (including Argon2id key derivation)")
        let after = try store.stats()
        let same = after.entityCounts == before.entityCounts && after.queuedRequests == before.queuedRequests
        for set in SalesEntitySet.allCases {
            print("\(pad(set.name, 16)) \((after.entityCounts[set.name] ?? 0).formatted)")
        }
        print("queue \(after.queuedRequests), ErrorArchive \(after.failedRequests): "
              + (same ? "identical to before closing" : "DIFFERENT from before closing"))
        let createdBack = try store.execute(.get, "SalesOrders('\(newID)')")
        print("GET SalesOrders('\(newID)') → \(createdBack.status) (the offline creation survived)")
        try store.close()
        guard same, createdBack.status == 200 else { throw CLIFailure(message: "verification after reopen failed") }
        print(String(format: "\ndone in %.2f s.", Date().timeIntervalSince(tourStart)))
    }

    // MARK: printing

    private func step(_ number: Int, _ title: String) { print("\n== \(number). \(title)") }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "    plan: " + $0 }.joined(separator: "\n")
    }

    private func json(_ response: ODataResponse) throws -> JSONValue {
        guard response.status < 400, let body = response.body else {
            throw CLIFailure(message: "unexpected response \(response.status): \(response.bodyText ?? "")")
        }
        return try JSONReader.parse(body)
    }

    /// GET with timing; prints the row count (and total), then a few rows as columns.
    private func get(_ store: OfflineStore, _ url: String, columns: [String], showBody: Bool = false) throws {
        let t = Date()
        let response = try store.execute(.get, url)
        let elapsed = milliseconds(since: t)
        let body = try json(response)
        if showBody {
            print("GET \(url) → \(response.status) (\(elapsed))")
            print(ResponsePrinter.pretty(response.body ?? []).split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            return
        }
        let values = body["value"]?.arrayValue ?? []
        var line = "GET \(url) → \(response.status), \(values.count) row(s)"
        if let count = body["@odata.count"]?.numberValue { line += " of \(count)" }
        print(line + " (\(elapsed))")
        let shown = columns.isEmpty ? (values.first?.objectValue.map { $0.map(\.key).filter { !$0.hasPrefix("@") } } ?? []) : columns
        for row in values.prefix(6) {
            print("    " + shown.map { key in "\(key)=\(row[key].map(Self.text) ?? "–")" }.joined(separator: "  "))
        }
        if values.count > 6 { print("    …") }
    }

    static func text(_ value: JSONValue) -> String {
        if let s = value.stringValue { return s.count > 48 ? String(s.prefix(45)) + "…" : s }
        return value.description
    }

    /// A write with timing: prints status, ETag and RequestID.
    @discardableResult
    private func write(_ store: OfflineStore, _ method: ODataMethod, _ url: String, body: String? = nil,
                       headers: [String: String] = [:]) throws -> ODataResponse {
        let t = Date()
        let response = try store.execute(method, url, body: body, headers: headers)
        let ifMatch = headers["If-Match"].map { " If-Match \($0)" } ?? ""
        print("\(method.rawValue) \(url)\(ifMatch) → \(ResponsePrinter.statusLine(response)) (\(milliseconds(since: t)))")
        return response
    }
}

extension Int {
    /// 12,345
    var formatted: String {
        let digits = String(self.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return (self < 0 ? "-" : "") + out
    }
}
