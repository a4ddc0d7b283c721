import Foundation
import OfflineODataFixtures
import OfflineODataModel
import Synchronization
import Testing
@testable import OfflineODataStore

/// Downloads larger than `downloadBatchBytes` are staged, then applied in bounded commits
/// (docs/OfflineStore.md §7.1). They must behave exactly like a download applied in one commit.
@Suite struct StagedDownloadTests {
    static let next = OfflineFixtures.salesNext

    /// One scenario: two downloads around local changes; what a user can observe afterwards.
    static func scenario(batchBytes: Int, readers: Int? = nil) async throws -> [String] {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        var parameters = OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")], downloadBatchBytes: batchBytes,
            downloadReaders: readers)
        // An index on the staged set: entities applied from their stored form keep it current.
        parameters.indexes = [IndexDefinition(name: "SO_Gross", entitySet: "SalesOrders", properties: ["GrossAmount"])]
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        defer { try? store.close() }
        try await OfflineFixtures.downloadPartners(store)
        let first = try await store.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders))
        let id0 = OfflineFixtures.sales.salesOrderID(0), id2 = OfflineFixtures.sales.salesOrderID(2)
        #expect(try store.execute(.patch, "SalesOrders('\(id0)')", body: #"{"Note":"mine"}"#).status == 204)
        #expect(try store.execute(.delete, "SalesOrders('\(id2)')").status == 204)
        let second = try await store.applyDownload(definingQuery: "Orders",
                                                   pages: try OfflineFixtures.pages(.salesOrders, from: next, range: 0..<4))
        var seen = ["\(first)", "\(second)"]
        seen.append(try store.execute(.get, "SalesOrders?$orderby=SalesOrderID").bodyText ?? "")
        for url in ["SalesOrders?$orderby=GrossAmount desc&$top=7&$select=SalesOrderID,GrossAmount",
                    "SalesOrders?$filter=GrossAmount ge 1000 and GrossAmount lt 3000&$select=SalesOrderID&$orderby=SalesOrderID"] {
            #expect(try store.explain(url).contains("index SO_Gross"), "\(url)")
            seen.append(try store.execute(.get, url).bodyText ?? "")
        }
        seen.append(try store.execute(.get, "BusinessPartners?$orderby=BusinessPartnerID&$select=BusinessPartnerID").bodyText ?? "")
        seen += try store.service.eventLog().filter { $0.type == "Download" }.map { $0.details ?? "" }
        _ = try store.service.undoPendingChanges(set: "SalesOrders", key: [.string(id0)])
        seen.append(try store.execute(.get, "SalesOrders('\(id0)')").bodyText ?? "")
        let reader = try store.storage.reader()
        #expect(try reader.systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey) == nil)
        #expect(try store.storage.engine.openSpool(DownloadApply.spoolName) == nil, "staged pages left behind")
        return seen
    }

    /// `readers`: pages read on the applying thread (0), by one thread ahead, by three (pages
    /// finish out of order and must still be applied in order), or automatic (nil).
    @Test("a staged download (one page per commit, or a few) leaves exactly what the one-commit download leaves, with any number of page readers",
          arguments: [1, 20_000], [nil, 0, 1, 3] as [Int?])
    func stagedEqualsOneCommit(batchBytes: Int, readers: Int?) async throws {
        let oneCommit = try await Self.scenario(batchBytes: 64 << 20, readers: 0)
        let staged = try await Self.scenario(batchBytes: batchBytes, readers: readers)
        #expect(oneCommit.count == staged.count)
        for (a, b) in zip(oneCommit, staged) { #expect(a == b) }
        #expect(oneCommit[1].contains("entitiesRemoved: 100"), "the second download removes the orders it no longer has")
    }

    @Test("readers see the store as it was until a staged download is complete")
    func readersArePinned() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineFixtures.loaded(dir)
        defer { try? store.close() }
        // Re-open with a tiny batch so the next download is staged.
        try store.close()
        let staged = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")], downloadBatchBytes: 1))
        defer { try? staged.close() }
        let id0 = OfflineFixtures.sales.salesOrderID(0)
        let before = try #require(try staged.execute(.get, "SalesOrders('\(id0)')").headers["ETag"])
        let seen = Mutex<[String]>([])
        let summary = try await staged.applyDownload(
            definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders, from: Self.next, range: 0..<4),
            progress: { progress in
                guard progress.pagesApplied > 0, let n = try? staged.count("SalesOrders/$count"),
                      let etag = try? staged.execute(.get, "SalesOrders('\(id0)')").headers["ETag"] else { return }
                seen.withLock { $0.append("\(n) \(etag)") }
            })
        #expect(summary.entitiesRemoved == 100)
        // Page 1 (with order 0's new version) is committed before the first report.
        #expect(seen.withLock { $0 } == Array(repeating: "500 \(before)", count: 4), "a reader saw part of the download")
        #expect(try staged.count("SalesOrders/$count") == 400)
        #expect(try staged.execute(.get, "SalesOrders('\(id0)')").headers["ETag"] != before)
    }

    @Test("a malformed page or a cancellation while staging changes nothing and leaves no staged pages",
          arguments: [nil, 0, 3] as [Int?])
    func failureWhileStaging(readers: Int?) async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")], downloadBatchBytes: 1,
            downloadReaders: readers))
        defer { try? store.close() }
        try await OfflineFixtures.downloadPartners(store)
        try await store.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders))
        let before = try store.execute(.get, "SalesOrders?$orderby=SalesOrderID").bodyText
        let events = try store.service.eventLog().count
        var pages = try OfflineFixtures.pages(.salesOrders, from: Self.next)
        pages[3] = Array(pages[3].dropLast(20))
        await expectStoreErrorAsync("jsonUnexpectedEnd", 1202) {
            _ = try await store.applyDownload(definingQuery: "Orders", pages: pages)
        }
        let good = try OfflineFixtures.pages(.salesOrders, from: Self.next)
        let task = Task { () async throws(ODataError) -> DownloadSummary in
            try await store.applyDownload(definingQuery: "Orders", pages: good, progress: { progress in
                if progress.pagesReceived == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            })
        }
        await expectStoreErrorAsync("operationCancelled", 3264) { _ = try await task.value }
        #expect(try store.execute(.get, "SalesOrders?$orderby=SalesOrderID").bodyText == before)
        #expect(try store.service.eventLog().count == events)
        let reader = try store.storage.reader()
        #expect(try reader.systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey) == nil)
        #expect(try store.storage.engine.openSpool(DownloadApply.spoolName) == nil, "staged pages left behind")
    }

    @Test("an entity the store refuses: the one-commit download throws and changes nothing; a staged one skips and logs it")
    func refusedEntity() async throws {
        var pages = try OfflineFixtures.pages(.salesOrders)
        // An ETag longer than the store keeps (StoreFormat.maxETagBytes) passes the JSON reader.
        let text = String(decoding: pages[1], as: UTF8.self)
        let marker = #""@odata.etag":""#
        let range = try #require(text.range(of: marker))
        pages[1] = Array(text.replacingCharacters(in: range, with: marker + String(repeating: "x", count: 70_000)).utf8)
        for batchBytes in [64 << 20, 1] {
            let dir = OfflineTempDir()
            defer { dir.cleanup() }
            let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
                dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")], downloadBatchBytes: batchBytes))
            defer { try? store.close() }
            if batchBytes > 1 {
                await expectStoreErrorAsync("valueTooLong", 3020) {
                    _ = try await store.applyDownload(definingQuery: "Orders", pages: pages)
                }
                #expect(try store.count("SalesOrders/$count") == 0)
            } else {
                let summary = try await store.applyDownload(definingQuery: "Orders", pages: pages)
                #expect(summary.entitiesApplied == 499)
                #expect(summary.entitiesRejected == 1)
                #expect(try store.count("SalesOrders/$count") == 499)
                let rejected = try store.service.eventLog().filter { $0.type == "DownloadRejected" }
                #expect(rejected.count == 1)
                #expect(rejected.first?.details?.contains("entity 1 of page 2") == true, "\(rejected)")
                let done = try store.service.eventLog().filter { $0.type == "Download" }.last
                #expect(done?.details?.contains("rejected=1") == true)
            }
        }
    }

    /// One download of partners whose first page carries expanded contacts (applied from its
    /// JSON) and whose other pages are flat (applied from their stored form); what a user sees.
    static func mixedScenario(batchBytes: Int, readers: Int?) async throws -> [String] {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "All", url: "BusinessPartners?$expand=ToContacts")],
            downloadBatchBytes: batchBytes, downloadReaders: readers))
        defer { try? store.close() }
        let partners = try OfflineFixtures.pages(.businessPartners, pageSize: 10, range: 0..<4)
        let contacts = try OfflineFixtures.pages(.contacts, pageSize: 1000, range: 0..<1)
        let expanded = try OfflineStoreDownloadTests.expandedPartners(partners[0], contacts: contacts[0], model: store.model)
        let summary = try await store.applyDownload(definingQuery: "All", pages: [expanded] + partners.dropFirst())
        #expect(summary.entitiesApplied == 40 + (try store.count("Contacts/$count")) && summary.entitiesRejected == 0)
        var seen = ["\(summary)"]
        seen.append(try store.execute(.get, "BusinessPartners?$orderby=BusinessPartnerID&$expand=ToContacts").bodyText ?? "")
        seen.append(try store.execute(.get, "Contacts?$orderby=ContactGuid").bodyText ?? "")
        // The indexes of the stored-form pages: a query through the navigation index.
        seen.append(try store.execute(.get, "BusinessPartners('\(OfflineFixtures.sales.businessPartnerID(15))')/ToContacts/$count").bodyText ?? "")
        return seen
    }

    @Test("a staged download whose spool mixes JSON pages (expanded content) and stored-form pages leaves what the one-commit download leaves",
          arguments: [nil, 0] as [Int?])
    func mixedSpoolEqualsOneCommit(readers: Int?) async throws {
        let oneCommit = try await Self.mixedScenario(batchBytes: 64 << 20, readers: 0)
        let staged = try await Self.mixedScenario(batchBytes: 1, readers: readers)
        #expect(oneCommit == staged)
        #expect(!oneCommit[1].isEmpty && !oneCommit[2].isEmpty)
    }

    @Test("a page is staged in its stored form only when its entities need nothing else: no expanded content, no refused entity")
    func stagedFormIsChosenPerPage() throws {
        let model = try ServiceModel.parse(metadata: OfflineFixtures.metadata)
        let storage = try StorageHarness(model: model, label: "staged-form")
        let info = try storage.storage.setInfo("BusinessPartners")
        let reader = ODataJSONReader(model: model)
        let partners = try OfflineFixtures.pages(.businessPartners, pageSize: 10, range: 0..<1)[0]
        let contacts = try OfflineFixtures.pages(.contacts, pageSize: 1000, range: 0..<1)[0]
        let flat = PageReadAhead.Page(try reader.readCollection(partners, entitySet: "BusinessPartners"), preparingFor: info)
        let form = try #require(flat.stagedForm(for: info, downloadedSize: 1000))
        #expect(StagedPage.isStaged(form) && StagedPage.downloadedSize(form) == 1000 && StagedPage.downloadedSize(partners) == partners.count)
        let entries = try StagedPage.decode(form, layoutCount: info.layout.properties.count, page: 0)
        #expect(entries.count == 10)
        for (entry, prepared) in zip(entries, flat.prepared?.entities ?? []) {
            let expected = try prepared.get()
            #expect(entry.key == expected.keyBytes && entry.value == expected.value)
        }
        // Another set's info, no preparation, expanded content: JSON.
        #expect(flat.stagedForm(for: try storage.storage.setInfo("Contacts"), downloadedSize: 1000) == nil)
        #expect(PageReadAhead.Page(try reader.readCollection(partners, entitySet: "BusinessPartners"), preparingFor: nil).stagedForm(for: info, downloadedSize: 1000) == nil)
        let expanded = try OfflineStoreDownloadTests.expandedPartners(partners, contacts: contacts, model: model)
        #expect(PageReadAhead.Page(try reader.readCollection(expanded, entitySet: "BusinessPartners"), preparingFor: info).stagedForm(for: info, downloadedSize: 1000) == nil)
        // An entity the store refuses (an ETag over the limit): JSON, so applying logs it.
        let text = String(decoding: partners, as: UTF8.self)
        let marker = #""@odata.etag":""#
        let range = try #require(text.range(of: marker))
        let refused = Array(text.replacingCharacters(in: range, with: marker + String(repeating: "x", count: 70_000)).utf8)
        #expect(PageReadAhead.Page(try reader.readCollection(refused, entitySet: "BusinessPartners"), preparingFor: info).stagedForm(for: info, downloadedSize: 1000) == nil)
    }

    @Test("a damaged stored-form page is a typed error at every truncation and for a wrong version or layout, never a crash")
    func damagedStagedPages() throws {
        let model = try ServiceModel.parse(metadata: OfflineFixtures.metadata)
        let storage = try StorageHarness(model: model, label: "staged-form")
        let info = try storage.storage.setInfo("BusinessPartners")
        let partners = try OfflineFixtures.pages(.businessPartners, pageSize: 3, range: 0..<1)[0]
        let page = PageReadAhead.Page(try ODataJSONReader(model: model).readCollection(partners, entitySet: "BusinessPartners"), preparingFor: info)
        let form = try #require(page.stagedForm(for: info, downloadedSize: 1000))
        let layoutCount = info.layout.properties.count
        #expect(try StagedPage.decode(form, layoutCount: layoutCount, page: 0).count == 3)
        for cut in 0..<form.count {
            expectStoreError("storeRecordCorrupted", 3265) { _ = try StagedPage.decode(Array(form[0..<cut]), layoutCount: layoutCount, page: 0) }
        }
        expectStoreError("storeRecordCorrupted", 3265) { _ = try StagedPage.decode(form + [0], layoutCount: layoutCount, page: 0) }
        var version = form
        version[1] = 3
        expectStoreError("storeRecordCorrupted", 3265) { _ = try StagedPage.decode(version, layoutCount: layoutCount, page: 0) }
        expectStoreError("storeRecordCorrupted", 3265) { _ = try StagedPage.decode(form, layoutCount: layoutCount - 1, page: 0) }
        var huge = form
        huge.replaceSubrange(10..<14, with: [0xFF, 0xFF, 0xFF, 0xFF])
        expectStoreError("storeRecordCorrupted", 3265) { _ = try StagedPage.decode(huge, layoutCount: layoutCount, page: 0) }
    }

    // MARK: the bulk way (docs/OfflineStore.md §7.4)

    /// Downloads `pages` into a store whose `SalesOrders` are empty (or, with `pendingFirst`,
    /// hold one order with a local change); what a user sees, and the engine commits the
    /// download made.
    static func bulkScenario(pages: [[UInt8]], batchBytes: Int, pendingFirst: Bool = false) async throws -> (seen: [String], commits: UInt64) {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        var parameters = OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")], downloadBatchBytes: batchBytes)
        parameters.indexes = [IndexDefinition(name: "SO_Gross", entitySet: "SalesOrders", properties: ["GrossAmount"]),
                              IndexDefinition(name: "SO_Status", entitySet: "SalesOrders", properties: ["LifecycleStatus", "BillingStatus"])]
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        defer { try? store.close() }
        try await OfflineFixtures.downloadPartners(store)
        let id0 = OfflineFixtures.sales.salesOrderID(0)
        if pendingFirst {
            let one = try OfflineFixtures.pages(.salesOrders, pageSize: 1, range: 0..<1)
            try await store.applyDownload(definingQuery: "Orders", pages: one)
            #expect(try store.execute(.patch, "SalesOrders('\(id0)')", body: #"{"Note":"mine"}"#).status == 204)
        }
        let before = try store.storage.engine.stats().commits
        let summary = try await store.applyDownload(definingQuery: "Orders", pages: pages)
        let commits = try store.storage.engine.stats().commits - before
        var seen = ["\(summary)"]
        seen.append(try store.execute(.get, "SalesOrders?$orderby=SalesOrderID").bodyText ?? "")
        for url in ["SalesOrders?$orderby=GrossAmount desc&$top=7&$select=SalesOrderID,GrossAmount",
                    "SalesOrders?$filter=GrossAmount ge 1000 and GrossAmount lt 3000&$select=SalesOrderID&$orderby=SalesOrderID",
                    "SalesOrders?$filter=LifecycleStatus eq 'N'&$select=SalesOrderID,BillingStatus"] {
            #expect(try store.explain(url).contains("index SO_"), "\(url)")
            seen.append(try store.execute(.get, url).bodyText ?? "")
        }
        seen.append(try store.execute(.get, "SalesOrders?$filter=sap.haspendingchanges()&$select=SalesOrderID,Note").bodyText ?? "")
        // The membership: the next download without the first 100 orders removes exactly those.
        let later = try await store.applyDownload(definingQuery: "Orders",
                                                  pages: try OfflineFixtures.pages(.salesOrders, range: 1..<5))
        seen.append("\(later)")
        seen.append(try store.execute(.get, "SalesOrders?$orderby=GrossAmount&$top=3&$select=SalesOrderID").bodyText ?? "")
        #expect(try store.storage.engine.check().isClean)
        // Reopened: the same.
        try store.close()
        let reopened = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        defer { try? reopened.close() }
        seen.append(try reopened.execute(.get, "SalesOrders?$orderby=SalesOrderID&$select=SalesOrderID,GrossAmount,Note").bodyText ?? "")
        return (seen, commits)
    }

    @Test("a staged download into an empty set is loaded in bulk, with no commit per page, and leaves what the one-commit download leaves")
    func bulkEqualsOneCommit() async throws {
        let pages = try OfflineFixtures.pages(.salesOrders)
        let oneCommit = try await Self.bulkScenario(pages: pages, batchBytes: 64 << 20)
        let bulk = try await Self.bulkScenario(pages: pages, batchBytes: 1)
        #expect(oneCommit.seen == bulk.seen)
        // Staging marker, applying marker, the removals with the event: no commit for the 5 pages.
        #expect(bulk.commits <= 3, "\(bulk.commits) commits")
        #expect(oneCommit.seen[6].contains("entitiesRemoved: 100"), "\(oneCommit.seen[6])")
    }

    @Test("pages in any key order are loaded in bulk; a page with an entity already taken, and all after it, are committed; the same result")
    func bulkTakesEachEntityOnce() async throws {
        // Pages 2, 3, then 0 (keys below page 3's), 4, 1: each entity once, all loaded. Then
        // page 2 of the next back-end version (each entity a second time, other amounts, so
        // an index entry of the first version left behind would show) and page 4 again:
        // committed.
        let all = try OfflineFixtures.pages(.salesOrders)
        let next = try OfflineFixtures.pages(.salesOrders, from: Self.next, range: 2..<3)
        let pages = [all[2], all[3], all[0], all[4], all[1], next[0], all[4]]
        let oneCommit = try await Self.bulkScenario(pages: pages, batchBytes: 64 << 20)
        let mixed = try await Self.bulkScenario(pages: pages, batchBytes: 1)
        #expect(oneCommit.seen == mixed.seen)
        #expect(mixed.commits >= 4 && mixed.commits <= 5, "\(mixed.commits) commits: five pages in bulk, two by commits")
        // A GUID-keyed set (Contacts: keys in no order) is loaded in bulk too.
        let contacts = try OfflineFixtures.pages(.contacts, pageSize: 7)
        #expect(contacts.count >= 3)
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        var parameters = OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Contacts", url: "Contacts")],
            downloadBatchBytes: 1)
        parameters.indexes = [IndexDefinition(name: "C_Partner", entitySet: "Contacts", properties: ["BusinessPartnerID"])]
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        defer { try? store.close() }
        try await OfflineFixtures.downloadPartners(store)
        let before = try store.storage.engine.stats().commits
        let summary = try await store.applyDownload(definingQuery: "Contacts", pages: contacts)
        #expect(try store.storage.engine.stats().commits - before <= 3, "a commit per page: not loaded in bulk")
        #expect(summary.entitiesApplied == OfflineFixtures.sales.count(of: .contacts))
        #expect(try store.count("Contacts/$count") == summary.entitiesApplied)
    }

    @Test("a page that holds an entity twice, above every key taken so far, is committed, not loaded in bulk")
    func pageWithItsOwnDuplicate() async throws {
        // Page 2's orders, then the next back-end version of the same orders (other amounts):
        // within the page the keys go up, then start again from below.
        let all = try OfflineFixtures.pages(.salesOrders)
        let next = try OfflineFixtures.pages(.salesOrders, from: Self.next, range: 2..<3)
        func entities(_ page: [UInt8]) throws -> [Any] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(page)) as? [String: Any])
            return try #require(object["value"] as? [Any])
        }
        let twice = try JSONSerialization.data(withJSONObject: ["value": try entities(all[2]) + entities(next[0])])
        let pages = [all[0], all[1], [UInt8](twice), all[3]]
        let oneCommit = try await Self.bulkScenario(pages: pages, batchBytes: 64 << 20)
        let mixed = try await Self.bulkScenario(pages: pages, batchBytes: 1)
        #expect(oneCommit.seen == mixed.seen)
        #expect(mixed.seen[1].contains(OfflineFixtures.sales.salesOrderID(250)))
        #expect(mixed.commits >= 3, "\(mixed.commits) commits: two pages in bulk, two by commits")
    }

    @Test("a set with a pending local change is not loaded in bulk: the change wins as with commits")
    func pendingChangeTakesTheCommitWay() async throws {
        let pages = try OfflineFixtures.pages(.salesOrders)
        let oneCommit = try await Self.bulkScenario(pages: pages, batchBytes: 64 << 20, pendingFirst: true)
        let staged = try await Self.bulkScenario(pages: pages, batchBytes: 1, pendingFirst: true)
        #expect(oneCommit.seen == staged.seen)
        #expect(staged.seen[5].contains("mine"), "the local change is kept: \(staged.seen[5])")
        #expect(staged.commits >= 5, "\(staged.commits) commits: one per page")
    }

    @Test("a malformed page or a cancellation while a fresh set is loaded in bulk changes nothing and leaves no run behind")
    func failureWhileLoading() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")], downloadBatchBytes: 1))
        defer { try? store.close() }
        try await OfflineFixtures.downloadPartners(store)
        let engineDirectory = store.storage.engine.directory
        func runFiles() -> Set<String> {
            Set(((try? FileManager.default.contentsOfDirectory(atPath: engineDirectory)) ?? []).filter { $0.hasSuffix(".oorun") })
        }
        let before = runFiles()
        let events = try store.service.eventLog().count
        var pages = try OfflineFixtures.pages(.salesOrders)
        pages[3] = Array(pages[3].dropLast(20))
        await expectStoreErrorAsync("jsonUnexpectedEnd", 1202) {
            _ = try await store.applyDownload(definingQuery: "Orders", pages: pages)
        }
        #expect(try store.count("SalesOrders/$count") == 0)
        #expect(runFiles() == before, "the load's runs were left behind")
        let good = try OfflineFixtures.pages(.salesOrders)
        let task = Task { () async throws(ODataError) -> DownloadSummary in
            try await store.applyDownload(definingQuery: "Orders", pages: good, progress: { progress in
                if progress.pagesReceived == 4 { withUnsafeCurrentTask { $0?.cancel() } }
            })
        }
        await expectStoreErrorAsync("operationCancelled", 3264) { _ = try await task.value }
        #expect(try store.count("SalesOrders/$count") == 0)
        #expect(runFiles() == before, "the load's runs were left behind")
        #expect(try store.service.eventLog().count == events)
        let reader = try store.storage.reader()
        #expect(try reader.systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey) == nil)
        #expect(try store.storage.engine.openSpool(DownloadApply.spoolName) == nil, "staged pages left behind")
        // The same pages, whole: loaded.
        let summary = try await store.applyDownload(definingQuery: "Orders", pages: good)
        #expect(summary.entitiesApplied == 500 && summary.entitiesRejected == 0)
        #expect(try store.count("SalesOrders/$count") == 500)
    }
}
