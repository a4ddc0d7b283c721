import Dispatch
import OfflineODataModel
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads downloaded pages (OData JSON → entities) on other threads, ahead of the thread that
/// stages or applies them (docs/OfflineStore.md §7.2). Reading a page is a pure function of its
/// bytes, and it was about 40 % of a download's CPU (measured with perf on a 100k-entity store
/// download); the applying thread, which owns the write batch and the spool, only waits for
/// pages in order.
///
/// At most `width` pages are read at once and results are handed over in submission order; the
/// caller bounds the pages it submits ahead, and so the memory. A page's error is its own
/// result: the caller decides (as before) whether it aborts the download or skips the page.
final class PageReadAhead {
    /// A page read: its entities and, when the readers prepare them for a set, each top-level
    /// entity prepared (or the error preparing it gave, thrown when it is applied, as `put`
    /// would).
    struct Page {
        var collection: ODataEntityCollection
        /// The set the entities were prepared for (the applying thread checks it is its own)
        /// and one result per top-level entity.
        var prepared: (info: SetInfo, entities: [Result<EntityWriteBatch.Prepared, ODataError>])?
        /// A page staged in its stored form (`StagedPage`): its entities' keys and stored
        /// values, put as they are (`collection` is then empty).
        var staged: [StagedPage.Entry]?
        /// The set whose entities `staged` are, when a reader made them from JSON (nil for a
        /// page read back from the spool).
        var stagedFor: SetInfo?
        /// The page's engine records for a bulk load (§7.4), made by the reader when the page
        /// is loaded in bulk and every entity could be stored as it is; nil otherwise.
        var loadable: DownloadBulk.Records?
        /// With `loadable`: the records of the nested entities, by set (§7.2, §7.4).
        var nestedLoadable: [(set: String, records: DownloadBulk.Records)] = []
        /// With `staged`: the expanded entities the flat reader read in place (§7.2), each
        /// after its parent (`parent`: the index of its top-level entity in `staged`), in
        /// payload order. A page with them is applied by commits only (its stored form has
        /// one set).
        var nested: [NestedEntry] = []

        struct NestedEntry {
            let parent: Int
            let info: SetInfo
            let entry: StagedPage.Entry
        }

        init(staged entries: [StagedPage.Entry]) {
            collection = ODataEntityCollection()
            staged = entries
        }

        /// A page read for a bulk load: its records are its only form (`storedEntries` makes
        /// its entries from them if the load does not take it).
        init(records: DownloadBulk.Records, for info: SetInfo) {
            collection = ODataEntityCollection()
            stagedFor = info
            loadable = records
        }

        /// The page in its stored form, when every top-level entity was prepared for `info`
        /// and none has navigation content to apply (expanded entities, `@odata.bind`): what
        /// a staged download spools instead of the JSON (docs/OfflineStore.md §7.3).
        func stagedForm(for info: SetInfo?, downloadedSize: Int) -> [UInt8]? {
            guard let info else { return nil }
            if !nested.isEmpty, let staged, let stagedFor, stagedFor === info {
                return StagedPage.encode(staged, nested: nested, layoutCount: info.layout.properties.count, downloadedSize: downloadedSize)
            }
            guard let entries = storedEntries(for: info) else { return nil }
            return StagedPage.encode(entries, layoutCount: info.layout.properties.count, downloadedSize: downloadedSize)
        }

        /// Every top-level entity prepared for `info`, when the page needs nothing else (see
        /// `stagedForm`).
        func storedEntries(for info: SetInfo?) -> [StagedPage.Entry]? {
            guard let info, nested.isEmpty else { return nil }
            if let staged, let stagedFor, stagedFor === info { return staged }
            if staged == nil, let loadable, let stagedFor, stagedFor === info { return loadable.entries() }
            guard let prepared, prepared.info === info else { return nil }
            var entries: [StagedPage.Entry] = []
            entries.reserveCapacity(prepared.entities.count)
            for result in prepared.entities {
                guard case .success(let entry) = result else { return nil }
                entries.append(StagedPage.Entry(key: entry.keyBytes, value: entry.value))
            }
            for entity in collection.entities {
                for navigation in entity.navigation {
                    switch navigation.content {
                    case .deferred, .entity(nil): continue
                    default: return nil
                    }
                }
            }
            return entries
        }

        /// The store's per-entity work that needs no write batch (`EntityWriteBatch.prepare`),
        /// done by the reader for each top-level entity after reading the page: it takes
        /// checking and encoding off the applying thread, the one a download waits for.
        init(_ collection: ODataEntityCollection, preparingFor info: SetInfo?) {
            self.collection = collection
            guard let info else { return }
            prepared = (info, collection.entities.map { entity in
                Result { () throws(ODataError) in
                    try EntityWriteBatch.prepare(entity, info: info, etag: entity.control.etag, flags: [])
                }
            })
        }
    }

    /// One page queued, being read, or read.
    final class Ticket: Sendable {
        enum State {
            case reading
            /// Read; nil for a check (`keep: false`).
            case read(Result<Page?, ODataError>)
            /// The entities were taken; a second `take` reads the page again.
            case taken
        }

        let number: Int
        let page: [UInt8]
        private let reader: ODataJSONReader
        private let set: String
        private let keep: Bool
        private let preparingFor: SetInfo?
        /// Set while a download loads its pages in bulk: the reader makes their records too.
        private let bulk: DownloadBulk.Form?
        /// Reads flat pages of `preparingFor`'s set without the general reader.
        private let flat: FlatReading?
        /// The properties of the set's layout, which a staged page may not exceed.
        private let layoutCount: Int
        /// Read by the thread that waits for it (no reader threads: `width` 0).
        private let inline: Bool
        private let state = Mutex<State>(.reading)
        private let done = DispatchSemaphore(value: 0)
        /// Where the page's buffer goes when the ticket is done with it (for the next page).
        private let recycle: PageBufferPool?

        init(number: Int, page: [UInt8], reader: ODataJSONReader, set: String, keep: Bool, preparingFor: SetInfo?,
             bulk: DownloadBulk.Form? = nil, flat: FlatReading? = nil, inline: Bool, recycle: PageBufferPool? = nil) {
            self.recycle = recycle
            self.bulk = bulk
            self.flat = flat
            self.number = number
            self.page = page
            self.reader = reader
            self.set = set
            self.keep = keep
            self.layoutCount = preparingFor?.layout.properties.count ?? Int.max
            self.preparingFor = keep ? preparingFor : nil
            self.inline = inline
        }

        deinit { recycle?.give(page) }

        /// The page's size as downloaded (`StagedPage.downloadedSize`): what a commit's limit counts.
        var byteCount: Int { StagedPage.downloadedSize(page) }

        /// The page read: a staged page decoded, JSON read (and its entities prepared when
        /// `prepare`).
        private func readPage(prepare: Bool) throws(ODataError) -> Page {
            if StagedPage.isStaged(page) {
                let expansions = flat?.expansions.values
                let decoded = try StagedPage.decode(page, layoutCount: layoutCount, page: number) { name in
                    expansions?.first { $0.target.name == name }?.target
                }
                var read = Page(staged: decoded.entries)
                read.nested = decoded.nested
                return read
            }
            if prepare, let flat, let info = preparingFor, flat.misses.load(ordering: .relaxed) < PageReadAhead.flatMissLimit {
                if let read = flatPage(flat, info: info) { return read }
                flat.misses.add(1, ordering: .relaxed)
            }
            var read = Page(try reader.readCollection(page, entitySet: set), preparingFor: prepare ? preparingFor : nil)
            if prepare, let bulk, let entries = read.storedEntries(for: bulk.info) {
                read.loadable = bulk.records(entries)
            }
            return read
        }

        /// The page read by the flat reader straight into its stored form (`staged`, what a
        /// commit puts as it is, a spool or a bulk load takes), every entity prepared; nil when
        /// the page is not flat or an entity cannot be stored as it is: the general reader then
        /// reads it (and the commit way reports the entity).
        private func flatPage(_ flat: FlatReading, info: SetInfo) -> Page? {
            // A key of strings only (the usual one) is encoded by the reader, from the same bytes.
            guard var entities = flat.reader.readEncoded(page, codec: info.codec, stringKeySlots: FlatReading.stringKeySlots(info),
                                                         expanded: flat.forms) else { return nil }
            var entries: [StagedPage.Entry] = []
            var nested: [Page.NestedEntry] = []
            entries.reserveCapacity(entities.count)
            for i in entities.indices {
                if !entities[i].expanded.isEmpty {
                    let groups = entities[i].expanded
                    entities[i].expanded = []
                    for group in groups {
                        guard let expansion = flat.expansions[group.navigation] else { return nil }
                        for child in group.entities {
                            // Nothing for `put`'s link to do: the values it would set are there.
                            guard expansion.matches(parent: entities[i].codec, child: child.codec),
                                  let entry = try? EntityWriteBatch.prepare(encoded: child.codec, info: expansion.target,
                                                                            etag: child.etag, flags: [], typeName: expansion.typeName,
                                                                            key: child.stringKey) else { return nil }
                            nested.append(Page.NestedEntry(parent: i, info: expansion.target, entry: entry))
                        }
                    }
                }
                // Moved out, so that the stored value grows the codec bytes' own buffer (a copy
                // left in `entities` made `StoredValue.encode` copy them: a second allocation for
                // every entity).
                var codec: [UInt8] = []
                swap(&codec, &entities[i].codec)
                guard let entry = try? EntityWriteBatch.prepare(encoded: codec, info: info, etag: entities[i].etag, flags: [],
                                                                typeName: flat.reader.typeName, key: entities[i].stringKey) else { return nil }
                entries.append(entry)
            }
            if !nested.isEmpty {
                var read = Page(staged: entries)
                read.stagedFor = info
                read.nested = nested
                if let bulk, bulk.info === info {
                    // Loaded in bulk with their sets' records when every set is fresh; the
                    // entries stay for the spool if the load does not take the page.
                    var bySet: [String: (form: DownloadBulk.Form, entries: [StagedPage.Entry])] = [:]
                    var order: [String] = []
                    for child in nested {
                        let set = child.info.name
                        if bySet[set] == nil {
                            guard let form = bulk.nested[set], form.info === child.info else { return read }
                            bySet[set] = (form, [])
                            order.append(set)
                        }
                        bySet[set]?.entries.append(child.entry)
                    }
                    guard let records = bulk.records(entries) else { return read }
                    var nestedRecords: [(set: String, records: DownloadBulk.Records)] = []
                    for set in order {
                        guard let group = bySet[set], let made = group.form.records(group.entries) else { return read }
                        nestedRecords.append((set, made))
                    }
                    read.loadable = records
                    read.nestedLoadable = nestedRecords
                }
                return read
            }
            if let bulk, bulk.info === info, let records = bulk.records(entries) {
                // The records hold every key and value: the entries go (a page in memory once,
                // not twice, while it waits to be loaded); `storedEntries` makes them again
                // from the records if the load does not take the page.
                return Page(records: records, for: info)
            }
            var read = Page(staged: entries)
            read.stagedFor = info
            return read
        }

        /// Runs on a reader queue.
        func read() {
            let result: Result<Page?, ODataError>
            do throws(ODataError) {
                if keep {
                    result = .success(try readPage(prepare: true))
                } else {
                    _ = try reader.readCollection(page, entitySet: set)
                    result = .success(nil)
                }
            } catch {
                result = .failure(error)
            }
            state.withLock { $0 = .read(result) }
            done.signal()
        }

        /// Blocks until the page is read (once; later calls return at once).
        private func waitRead() {
            if state.withLock({ if case .reading = $0 { return true } else { return false } }) {
                if inline { read() }
                done.wait()
                done.signal()
            }
        }

        /// Waits for the read; throws the page's error.
        func check() throws(ODataError) {
            waitRead()
            if case .read(.failure(let error)) = state.withLock({ $0 }) { throw error }
        }

        /// Waits for the read and hands the page over, so the ticket no longer holds it (a commit
        /// that is retried without a refused entity takes the page again: it is read again, on
        /// the calling thread, without preparing its entities).
        func take() throws(ODataError) -> Page {
            waitRead()
            let current = state.withLock { state -> State in
                let current = state
                if case .read(.success) = current { state = .taken }
                return current
            }
            switch current {
            case .read(.success(let read?)):
                return read
            case .read(.failure(let error)):
                throw error
            case .reading, .taken, .read(.success(nil)):
                return try readPage(prepare: false)
            }
        }
    }

    let reader: ODataJSONReader
    let set: String
    /// Pages read at once on reader threads; 0: each page is read by the thread that waits
    /// for it, when it waits (no thread, no page read ahead).
    let width: Int
    /// The set whose entities the readers prepare (nil: they only read).
    let preparingFor: SetInfo?
    /// Set (before the first page is submitted) while a download loads its pages in bulk.
    var bulk: DownloadBulk.Form?
    /// The flat reader of `preparingFor`'s set (nil: every page is read by the general reader).
    let flat: FlatReading?

    /// A download's flat reader and the pages it could not take. After `flatMissLimit` of them
    /// the later pages go straight to the general reader: the pages of a set that are not flat
    /// (expanded content, type annotations) would otherwise all be scanned twice.
    final class FlatReading: Sendable {
        let reader: ODataFlatPageReader
        let misses = Atomic<Int>(0)
        /// The navigations whose expanded entities `reader` reads in place, by name, and the
        /// stored form it gives them.
        let expansions: [String: FlatExpansion]
        let forms: [String: ODataFlatPageReader.NestedForm]

        /// The flat reader of `info`'s set, reading in place the expanded content of every
        /// navigation whose entities `put` would store without linking work (`FlatExpansion`).
        init?(reader general: ODataJSONReader, set: String, info: SetInfo, catalog: StorageCatalog?) {
            guard var reader = ODataFlatPageReader(reader: general, entitySet: set, slots: info.layout.properties.map(\.name)) else {
                return nil
            }
            var expansions: [String: FlatExpansion] = [:]
            var forms: [String: ODataFlatPageReader.NestedForm] = [:]
            for expansion in catalog.map({ FlatExpansion.resolve($0, set: info) }) ?? [] {
                guard let target = ODataFlatPageReader(reader: general, entitySet: expansion.target.name,
                                                       slots: expansion.target.layout.properties.map(\.name)),
                      let expanded = reader.expanding(expansion.navigation, with: target) else { continue }
                reader = expanded
                expansions[expansion.navigation] = FlatExpansion(expansion, typeName: target.typeName)
                forms[expansion.navigation] = ODataFlatPageReader.NestedForm(codec: expansion.target.codec,
                                                                             stringKeySlots: Self.stringKeySlots(expansion.target))
            }
            self.reader = reader
            self.expansions = expansions
            self.forms = forms
        }

        /// The key slots, when the key is of strings only (the reader then encodes the key).
        static func stringKeySlots(_ info: SetInfo) -> [Int] {
            info.keyKinds.allSatisfy { $0 == .string } ? info.keyIndices : []
        }
    }

    static let flatMissLimit = 4
    /// One serial queue per reader: serial queues run on threads of their own (overcommit),
    /// where the tasks of a concurrent queue would share the global pool with the Swift
    /// concurrency task that is downloading (on Linux that pool has one thread per processor
    /// and the downloading thread blocks in it while it waits for a page).
    private let queues: [DispatchQueue]
    private var submitted = 0
    /// Every read not finished yet.
    private let running = DispatchGroup()
    /// Where the buffers of pages read go when their tickets are done (nil: freed).
    var recycle: PageBufferPool?

    /// The processors the system has online (at least 1).
    static var processors: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Readers while applying: the processors minus the applying thread, which is busy
    /// writing; 1...4 (each holds a page and its entities in memory).
    static var applyingWidth: Int { min(4, max(1, processors - 1)) }

    /// Readers while staging, where the staging thread only waits for checks and appends
    /// pages: every processor, 1...4.
    static var stagingWidth: Int { min(4, processors) }

    /// `readers`: `OfflineStoreParameters.downloadReaders` (nil: `automatic`).
    /// `catalog`: the writer's, for expanded content read in place (nil: none is).
    init(reader: ODataJSONReader, set: String, readers: Int?, automatic: Int, preparingFor: SetInfo? = nil,
         catalog: StorageCatalog? = nil) {
        self.reader = reader
        self.set = set
        self.preparingFor = preparingFor
        flat = preparingFor.flatMap { FlatReading(reader: reader, set: set, info: $0, catalog: catalog) }
        self.width = max(0, readers ?? automatic)
        queues = (0..<self.width).map { DispatchQueue(label: "OfflineODataStore.download.read.\($0)") }
    }

    /// Queues `page` for reading and returns at once. With `keep` false the page is only
    /// checked (its entities are dropped). The caller keeps the ticket, in order, and waits for
    /// it when it needs the page.
    func submit(_ page: [UInt8], number: Int, keep: Bool = true) -> Ticket {
        let ticket = Ticket(number: number, page: page, reader: reader, set: set, keep: keep, preparingFor: preparingFor, bulk: bulk,
                            flat: flat, inline: width == 0, recycle: recycle)
        guard width > 0 else { return ticket }
        running.enter()
        let running = self.running
        queues[submitted % width].async {
            ticket.read()
            running.leave()
        }
        submitted += 1
        return ticket
    }

    /// Frees a page the caller is done with on a reader thread: a page's entities are many
    /// small allocations, and freeing them was about 8 % of a bulk download's samples on the
    /// applying thread (perf, 100k entities), the thread that download waits for.
    func dispose(_ page: consuming Page) {
        guard width > 0 else { return }
        let box = DisposeBox(page)
        running.enter()
        let running = self.running
        queues[submitted % width].async {
            box.page = nil
            running.leave()
        }
    }

    /// Carries a page to the reader that frees it; nothing else touches it after the move.
    private final class DisposeBox: @unchecked Sendable {
        var page: Page?
        init(_ page: consuming Page) { self.page = page }
    }

    deinit {
        // Reads still running when the caller stopped early (an error or a cancellation).
        running.wait()
    }
}

/// A navigation whose expanded entities a download reads in place (docs/OfflineStore.md §7.2):
/// one whose referential constraint `put` satisfies by values alone. Each nested entity must
/// already hold the values its link would set (the foreign key on the child for `keyPrefix`
/// and `byIndex`, on the parent for `toKey`), byte for byte in the stored form; where one does
/// not, the page is read by the general reader, whose `put` fills or sets them (or refuses the
/// link). Recorded links (no constraint) are always left to it.
struct FlatExpansion: Sendable {
    let navigation: String
    let target: SetInfo
    /// Slots whose stored values must be identical: in the parent's layout and in the child's.
    let pairs: [Pair]
    /// The qualified name of the target's entity type (what the general reader gives them).
    var typeName: String?

    struct Pair: Sendable {
        let parent: Int
        let child: Int
    }

    init(_ other: FlatExpansion, typeName: String) {
        self = other
        self.typeName = typeName
    }

    private init(navigation: String, target: SetInfo, pairs: [Pair]) {
        self.navigation = navigation
        self.target = target
        self.pairs = pairs
    }

    /// The navigations of `info`'s set that qualify, sorted by name.
    static func resolve(_ catalog: StorageCatalog, set info: SetInfo) -> [FlatExpansion] {
        var out: [FlatExpansion] = []
        for (navigation, plan) in (catalog.navigation[info.name] ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let target = catalog.sets[plan.target] else { continue }
            // (parent column, child column), all top-level properties.
            var columns: [(parent: IndexColumn?, child: Int?)] = []
            switch plan {
            case .keyPrefix(_, let sourceColumns):
                columns = zip(sourceColumns, target.keyNames).map { ($0, target.propertyIndex[$1]) }
            case .byIndex(_, let sourceColumns, let indexName):
                guard let index = catalog.indexes[indexName], index.columns.count == sourceColumns.count,
                      index.columns.allSatisfy({ $0.path.count == 1 }) else { continue }
                columns = zip(sourceColumns, index.columns).map { ($0, $1.top) }
            case .toKey(_, let sourceColumns):
                columns = zip(sourceColumns, target.keyNames).map { ($0, target.propertyIndex[$1]) }
            case .link:
                continue
            }
            var pairs: [Pair] = []
            for (parent, child) in columns {
                guard let parent, parent.path.count == 1, let child,
                      let kind = info.codec.declaredKind(at: parent.top), target.codec.declaredKind(at: child) == kind else {
                    pairs = []
                    break
                }
                pairs.append(Pair(parent: parent.top, child: child))
            }
            guard !pairs.isEmpty else { continue }
            out.append(FlatExpansion(navigation: navigation, target: target, pairs: pairs))
        }
        return out
    }

    /// Whether every pair holds the same value, present, in both entities' codec bytes.
    func matches(parent: [UInt8], child: [UInt8]) -> Bool {
        parent.withUnsafeBytes { p in
            child.withUnsafeBytes { c in
                for pair in pairs {
                    guard let a = try? EntityCodec.slotRange(pair.parent, in: p),
                          let b = try? EntityCodec.slotRange(pair.child, in: c),
                          p[a].elementsEqual(c[b]) else {
                        return false
                    }
                }
                return true
            }
        }
    }
}
