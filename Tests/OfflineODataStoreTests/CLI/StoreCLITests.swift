import Foundation
import OfflineODataFixtures
import Testing

/// The `offline-odata` store commands end to end: the binary is started as a user would.
@Suite struct StoreCLITests {
    typealias R = CLIRunner

    /// Imports a generated corpus (20 orders) into `scratch/store` and returns the generator.
    func importGenerated(_ scratch: R.Scratch) throws -> SalesServiceGenerator {
        let generator = try R.writeGeneratedCorpus(to: scratch.path + "/corpus")
        let result = try R.run(["import", scratch.path + "/corpus", scratch.path + "/store"])
        try #require(result.status == 0, "import failed: \(result.stderr)")
        return generator
    }

    @Test func demoAtATinyScaleRunsTheWholeTour() throws {
        let result = try R.run(["demo", "--orders", "20", "--page-size", "10"], passphrase: nil)
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        for section in ["Open an encrypted store", "Apply the download", "Declare indexes", "explain", "$expand",
                        "$orderby + $top", "Server-driven paging", "$count", "Local create, update and delete",
                        "request queue", "ETag conflict", "ErrorArchive", "Undo", "Close, reopen, verify"] {
            #expect(out.contains(section), "missing section \(section)")
        }
        #expect(out.contains("nextLink"))                                   // paging followed a next link
        #expect(out.contains("80 rows in 8 pages"))                         // 20 orders → 80 items, pages of 10
        #expect(out.contains("→ 412 Precondition Failed"))                  // the stale If-Match
        #expect(out.contains("HTTPStatusCode=412"))                         // the ErrorArchive row
        #expect(out.contains("undoPendingChanges(SalesOrders('0500000001')) → true"))
        #expect(out.contains("identical to before closing"))
        #expect(out.contains("the offline creation survived"))
        #expect(result.stderr.isEmpty)
    }

    @Test func importThenQueryGivesTheGeneratedCounts() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let generator = try importGenerated(scratch)
        let store = scratch.path + "/store"
        for set in SalesEntitySet.allCases {
            let count = try R.run(["query", store, "\(set.name)/$count"])
            #expect(count.status == 0, "\(count.stderr)")
            #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(generator.count(of: set)), "\(set)")
        }
        let firstOrder = try JSONSerialization.jsonObject(with: Data(try generator.entityJSON(set: .salesOrders, index: 0))) as? [String: Any]
        let customer = try #require(firstOrder?["CustomerID"] as? String)
        let filtered = try R.run(["query", store, "/SalesOrders?$filter=CustomerID eq '\(customer)'&$select=SalesOrderID,CustomerID"])
        #expect(filtered.status == 0, "\(filtered.stderr)")
        #expect(filtered.stdout.contains("\"CustomerID\": \"\(customer)\""))   // pretty JSON
        #expect(!filtered.stdout.contains("\"CustomerName\""))                  // $select applied
        let plan = try R.run(["query", store, "SalesOrders?$filter=GrossAmount gt 10", "--explain"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("access:"))
        let stats = try R.run(["stats", store])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("SalesOrderItems"))
        #expect(stats.stdout.contains("request queue: 0 request(s)"))
        let check = try R.run(["check", store])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains(": clean"))
    }

    @Test func shellCommandsCreateUpdateDeleteAndQueue() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let generator = try importGenerated(scratch)
        let store = scratch.path + "/store"
        let customer = generator.businessPartnerID(0)
        let order = """
            {"SalesOrderID":"NEW1","CustomerID":"\(customer)","CustomerName":"X","CurrencyCode":"EUR","GrossAmount":1,\
            "NetAmount":1,"TaxAmount":0,"LifecycleStatus":"N","BillingStatus":"","DeliveryStatus":"",\
            "CreatedAt":"2026-01-01T00:00:00Z","ChangedAt":"2026-01-01T00:00:00Z","DeliveryDate":"2026-01-02"}
            """
        let result = try R.run(["shell", store,
                                "-c", "GET /SalesOrders?$top=2&$select=SalesOrderID",
                                "-c", "POST /SalesOrders \(order)",
                                "-c", #"PATCH /SalesOrders('NEW1') {"Note":"changed offline"}"#,
                                "-c", "GET /SalesOrders('NEW1')?$select=Note",
                                "-c", "DELETE /SalesOrders('\(generator.salesOrderID(3))')",
                                "-c", "GET /RequestQueue?$orderby=RequestID&$select=RequestID,Method"])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("201 Created"))
        #expect(out.contains("204 No Content  ETag:"))         // the PATCH answers with the new ETag
        #expect(out.contains("\"Note\": \"changed offline\""))
        #expect(out.contains("\"Method\": \"DELETE\""))
        #expect(out.components(separatedBy: "\"RequestID\":").count - 1 == 3)   // POST, PATCH, DELETE queued
        // The changes are in the store for the next process.
        let count = try R.run(["query", store, "SalesOrders/$count"])
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(generator.count(of: .salesOrders)))
    }

    @Test("shell: a multipart $batch typed over several lines (piped) or given in one -c, its change set queued; a multipart body on a GET is refused")
    func shellMultipartBatch() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let generator = try importGenerated(scratch)
        let store = scratch.path + "/store"
        let first = generator.salesOrderID(0), second = generator.salesOrderID(1)
        let batch = """
            POST /$batch Content-Type:multipart/mixed;boundary=b
            --b
            Content-Type: application/http

            GET SalesOrders('\(first)')?$select=SalesOrderID HTTP/1.1

            --b
            Content-Type: multipart/mixed;boundary=cs

            --cs
            Content-Type: application/http
            Content-ID: 1

            PATCH SalesOrders('\(second)') HTTP/1.1
            Content-Type: application/json

            {"Note":"from a multipart batch"}
            --cs--
            --b--
            """
        let piped = try R.run(["shell", store], stdin: batch + "\nGET /SalesOrders('\(second)')?$select=Note\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains("\"SalesOrderID\":\"\(first)\""))
        #expect(piped.stdout.contains("HTTP/1.1 204 No Content"))
        #expect(piped.stdout.contains("\"Note\": \"from a multipart batch\""))
        let oneArgument = try R.run(["shell", store, "-c", batch.replacingOccurrences(of: "from a multipart batch", with: "again"),
                                     "-c", "GET /RequestQueue?$select=Method"])
        #expect(oneArgument.status == 0, "\(oneArgument.stderr)")
        #expect(oneArgument.stdout.components(separatedBy: "\"Method\": \"PATCH\"").count - 1 == 2)
        let refused = try R.run(["shell", store, "-c", "GET /$batch Content-Type:multipart/mixed;boundary=b\n--b--"])
        #expect(refused.status == 4 && refused.stderr.contains("only POST takes a multipart body"))
    }

    @Test("shell undo <entity>: the entity's pending changes go, its queued requests with them; an entity without changes says so")
    func shellUndo() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let generator = try importGenerated(scratch)
        let store = scratch.path + "/store"
        let order = generator.salesOrderID(2)
        let before = try R.run(["query", store, "SalesOrders('\(order)')?$select=Note"]).stdout
        let result = try R.run(["shell", store,
                                "-c", #"PATCH /SalesOrders('\#(order)') {"Note":"to be undone"}"#,
                                "-c", "undo /SalesOrders('\(order)')",
                                "-c", "undo SalesOrders('\(order)')",
                                "-c", "GET /RequestQueue/$count"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("undone: SalesOrders('\(order)')"))
        #expect(result.stdout.contains("SalesOrders('\(order)') has no pending changes"))
        #expect(try R.run(["query", store, "SalesOrders('\(order)')?$select=Note"]).stdout == before)
        let bad = try R.run(["shell", store, "-c", "undo SalesOrders"])
        #expect(bad.status != 0 && bad.stderr.contains("addresses no single entity"))
    }

    @Test("shell media put/get/new: streams from and to files, queued like any change; a bad address says what is wrong")
    func shellMedia() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let corpus = scratch.path + "/corpus"
        try FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
        try Data("""
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="M">
              <EntityType Name="Photo" HasStream="true"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>
              <EntityContainer Name="C"><EntitySet Name="Photos" EntityType="M.Photo"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """.utf8).write(to: URL(fileURLWithPath: corpus + "/metadata.xml"))
        try Data(#"{"value":[{"ID":1}]}"#.utf8).write(to: URL(fileURLWithPath: corpus + "/Photos.json"))
        let store = scratch.path + "/store"
        try #require(try R.run(["import", corpus, store]).status == 0)
        let photo = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 13) })
        try photo.write(to: URL(fileURLWithPath: scratch.path + "/in.jpg"))
        let result = try R.run(["shell", store,
                                "-c", "media put Photos(1) \(scratch.path)/in.jpg",
                                "-c", "media get Photos(1)/$value \(scratch.path)/out.jpg",
                                "-c", "media new Photos \(scratch.path)/in.jpg image/x-test",
                                "-c", "GET /RequestQueue?$select=Method,URL"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("300000 bytes of image/jpeg written to"), "\(result.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/out.jpg")) == photo)
        #expect(result.stdout.contains("201 Created"))
        #expect(result.stdout.components(separatedBy: "\"Method\":").count - 1 == 2)
        let bad = try R.run(["shell", store, "-c", "media get Photos \(scratch.path)/x.jpg"])
        #expect(bad.status != 0 && bad.stderr.contains("needs an entity with its key"), "\(bad.stderr)")
    }

    @Test("import reads Northwind's many-to-many links (links/Employees-Territories.json): both sides navigate",
          .enabled(if: StorageCorpora.available, "../shared/corpora not found"))
    func importManyToManyLinks() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let corpus = StorageCorpora.root.appendingPathComponent("northwind").path
        let result = try R.run(["import", corpus, scratch.path + "/nw"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Employees/Territories: 49 links"))
        // Employee 2 has seven territories in the file; territory 06897 belongs to employee 1.
        #expect(try R.run(["query", scratch.path + "/nw", "Employees(2)/Territories/$count"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "7")
        let back = try R.run(["query", scratch.path + "/nw", "Territories('06897')/Employees?$select=EmployeeID"]).stdout
        #expect(back.contains("\"EmployeeID\": 1"))
    }

    @Test("index add, list and drop on an existing store; a bad one is a typed error that changes nothing")
    func indexCommands() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        _ = try importGenerated(scratch)
        let store = scratch.path + "/store"
        let add = try R.run(["index", store, "add", "SalesOrders:LifecycleStatus"])
        #expect(add.status == 0 && add.stdout.contains("index SalesOrders_LifecycleStatus"), "\(add.stderr)")
        #expect(try R.run(["index", store, "list"]).stdout.contains("SalesOrders_LifecycleStatus: SalesOrders(LifecycleStatus)"))
        let explain = try R.run(["query", store, "--explain", "SalesOrders?$filter=LifecycleStatus eq 'N'"]).stdout
        #expect(explain.contains("SalesOrders_LifecycleStatus"), "\(explain)")
        #expect(try R.run(["index", store, "add", "SalesOrders:Nope"]).status == 1)
        #expect(try R.run(["index", store, "drop", "SalesOrders_LifecycleStatus"]).status == 0)
        #expect(!(try R.run(["index", store, "list"]).stdout.contains("SalesOrders_LifecycleStatus")))
    }

    @Test func shellReadsLinesFromStandardInput() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        _ = try importGenerated(scratch)
        let result = try R.run(["shell", scratch.path + "/store"], stdin: "help\nGET /Products/$count\nexplain /Products?$top=1\nquit\nGET /never\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("explain <url>"))
        #expect(result.stdout.contains("200 OK"))
        #expect(result.stdout.contains("access:"))
        #expect(!result.stdout.contains("never"))   // nothing runs after quit
    }

    @Test("a piped shell session exits 4 when a line failed, as -c does; request headers are given as Name:Value words (a transaction ID reaches the queue)")
    func pipedFailuresAndHeaders() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let generator = try importGenerated(scratch)
        let store = scratch.path + "/store"
        let failed = try R.run(["shell", store], stdin: "GET /Products/$count\nGET /Nope\n")
        #expect(failed.status == 4, "\(failed.stderr)")
        let order = generator.salesOrderID(1)
        let lines = #"PATCH /SalesOrders('\#(order)') OfflineOData.TransactionID:t42 {"Note":"in a transaction"}"#
            + "\nGET /RequestQueue?$select=TransactionID\n"
        let ok = try R.run(["shell", store], stdin: lines)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("\"TransactionID\": \"t42\""), "\(ok.stdout)")
    }

    @Test("a JSON body over several lines is one request; history lists the session and !N runs a line again")
    func shellMultiLineBodyAndHistory() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let generator = try importGenerated(scratch)
        let store = scratch.path + "/store"
        let order = generator.salesOrderID(2)
        let lines = "PATCH /SalesOrders('\(order)') {\n  \"Note\": \"two {lines\",\n  \"LifecycleStatus\": \"P\"\n}\n"
            + "GET /SalesOrders('\(order)')?$select=Note\nhistory\n!2\n"
        let result = try R.run(["shell", store], stdin: lines)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "\"Note\": \"two {lines\"").count == 4, "\(result.stdout)")  // two GETs and the history
        #expect(result.stdout.contains("1  PATCH /SalesOrders('\(order)') {") && result.stdout.contains("2  GET /SalesOrders"), "\(result.stdout)")
        let missing = try R.run(["shell", store], stdin: "!7\n")
        #expect(missing.status == 4 && missing.stderr.contains("no line 7"), "\(missing.stderr)")
        // A body never closed: the request is refused, not sent half.
        let open = try R.run(["shell", store], stdin: "PATCH /SalesOrders('\(order)') {\n\"Note\": \"x\"\n")
        #expect(open.status == 4 && open.stderr.contains("bad JSON body"), "\(open.stderr)")
    }

    @Test func staleETagIsA412AndMakesTheShellFail() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let generator = try importGenerated(scratch)
        let key = "SalesOrders('\(generator.salesOrderID(0))')"
        let result = try R.run(["shell", scratch.path + "/store",
                                "-c", #"PATCH /\#(key) If-Match:W/"stale" {"Note":"x"}"#])
        #expect(result.status == 4)
        #expect(result.stdout.contains("412 Precondition Failed"))
        #expect(result.stderr.contains("1 line(s) failed"))
    }
}
