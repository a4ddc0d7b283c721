import OfflineODataEngine
import OfflineODataModel

/// Encoded keys of navigation targets, streamed.
public struct NavigationCursor {
    /// How the targets are found (the construction-time form; `init` spreads it over the
    /// stored cursors).
    enum Mode {
        case links(KeyValueCursor, prefixLength: Int)
        /// The target entities themselves, in key order (a key-prefix range of the target set).
        case entities(EntityCursor)
        case one([UInt8])
        case index(IndexCursor)
        case done
    }

    /// Which stored cursor is live. The cursors are stored properties, not enum payloads, so
    /// a step advances them in place (a payload is copied out and stored back: a retain and
    /// release of each of its references per target).
    enum Kind { case links, entities, one, index, done }

    /// The entity set the keys belong to.
    public let targetSet: String
    /// The reader whose snapshot an `.entities` cursor reads (engine and snapshot sequence):
    /// only a reader of the same snapshot may reuse it.
    var origin: (engine: ObjectIdentifier, sequence: UInt64)?
    private var kind: Kind
    private var links: KeyValueCursor?
    private var prefixLength = 0
    private var entities: EntityCursor?
    private var one: [UInt8]?
    private var index: IndexCursor?

    init(targetSet: String, mode: Mode) {
        self.targetSet = targetSet
        switch mode {
        case .links(let cursor, let prefixLength):
            kind = .links
            links = cursor
            self.prefixLength = prefixLength
        case .entities(let cursor):
            kind = .entities
            entities = cursor
        case .one(let key):
            kind = .one
            one = key
        case .index(let cursor):
            kind = .index
            index = cursor
        case .done:
            kind = .done
        }
    }

    /// The next target's encoded key (`EntityReader.entity(in: targetSet, keyBytes:)`).
    public mutating func next() throws(ODataError) -> [UInt8]? {
        switch kind {
        case .done:
            return nil
        case .one:
            kind = .done
            defer { one = nil }
            return one
        case .entities:
            guard let entity = try entities?.next() else { return finish() }
            return entity.keyBytes
        case .index:
            guard let key = try index?.nextPrimaryKey() else { return finish() }
            return key
        case .links:
            let step: Bool
            do throws(EngineError) {
                step = try links?.advance() ?? false
            } catch {
                throw error.odata("reading links")
            }
            guard step, let key = links?.withCurrent({ key, _ in Array(key[prefixLength...]) }) else { return finish() }
            return key
        }
    }

    /// Ends the cursor (releasing what it holds, except a key-prefix cursor, which
    /// `takeEntityCursor` may hand to the next navigation); nil.
    private mutating func finish() -> [UInt8]? {
        kind = .done
        links = nil
        index = nil
        return nil
    }

    /// The engine cursor of a key-prefix range (live or finished), for
    /// `EntityReader.navigationTargets(from:navigation:reusing:)` to move to the next source's
    /// range; this cursor is finished. Nil for the other modes.
    mutating func takeEntityCursor() -> EntityCursor? {
        defer {
            kind = .done
            entities = nil
        }
        return entities
    }

    /// True when the cursor reads the target entities themselves, in key order (`nextEntity`
    /// then costs no lookup).
    public var readsEntities: Bool { kind == .entities }

    /// Lends the next target entity to `body` when `readsEntities` (nil at the end, and for the
    /// other modes): the key-prefix range read without copying each target's bytes.
    mutating func nextBorrowedEntity<R>(_ body: (BorrowedEntity) throws(ODataError) -> R) throws(ODataError) -> R? {
        guard kind == .entities, entities != nil else { return nil }
        guard let result = try entities?.nextBorrowed(body) else {
            _ = finish()
            return nil
        }
        return result
    }

    /// The next target entity when `readsEntities` (nil at the end, and for the other modes:
    /// use `next()` and a lookup).
    public mutating func nextEntity() throws(ODataError) -> StoredEntity? {
        guard kind == .entities else { return nil }
        guard let entity = try entities?.next() else {
            _ = finish()
            return nil
        }
        return entity
    }
}
