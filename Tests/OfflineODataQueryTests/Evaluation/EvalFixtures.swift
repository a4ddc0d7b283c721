import OfflineODataModel
@testable import OfflineODataQuery

/// The data sets of `odata-peers/peer-eval-fixtures.json` as tables, a model per fixture, and
/// rows as `EvaluationInstance`s whose navigation is resolved lazily through foreign keys and
/// junction tables (exercising the protocol the store implements).
final class FixtureDatabase: @unchecked Sendable {
    enum Link {
        /// Rows of `table` whose `remote` column equals this row's `local` column.
        case match(local: String, remote: String)
        /// Rows whose `id` is listed in `junction` rows with `junctionLocal` = this row's id.
        case junction(String, junctionLocal: String, junctionRemote: String)
    }

    struct Relation {
        var name: String
        var target: String
        var isCollection: Bool
        var link: Link
    }

    let namespace = "Peer"
    var tables: [String: [[String: ODataValue]]] = [:]
    var relations: [String: [Relation]] = [:]
    /// Columns typed Edm.DateTimeOffset (text without offset read as UTC).
    var dateTimeColumns: Set<String> = []
    var model = ServiceModel(version: .v4, schemas: [])

    /// The fixture `name` (`gorilla-odata-query-blog`, `daireto-odata-v4-query`); nil if unknown.
    init?(name: String, json: JSONValue) throws {
        guard let object = json[name]?.objectValue else { return nil }
        switch name {
        case "gorilla-odata-query-blog":
            dateTimeColumns = ["published_at"]
            relations = [
                "author": [
                    Relation(name: "blogposts", target: "blogpost", isCollection: true,
                             link: .junction("author_blogpost", junctionLocal: "author_id", junctionRemote: "blogpost_id")),
                    Relation(name: "comments", target: "comment", isCollection: true, link: .match(local: "id", remote: "author_id")),
                ],
                "blogpost": [
                    Relation(name: "authors", target: "author", isCollection: true,
                             link: .junction("author_blogpost", junctionLocal: "blogpost_id", junctionRemote: "author_id")),
                    Relation(name: "comments", target: "comment", isCollection: true, link: .match(local: "id", remote: "blogpost_id")),
                ],
                "comment": [
                    Relation(name: "author", target: "author", isCollection: false, link: .match(local: "author_id", remote: "id")),
                    Relation(name: "blogpost", target: "blogpost", isCollection: false, link: .match(local: "blogpost_id", remote: "id")),
                ],
            ]
        case "daireto-odata-v4-query":
            relations = [
                "Post": [Relation(name: "user", target: "User", isCollection: false, link: .match(local: "user_id", remote: "id"))],
                "User": [
                    Relation(name: "profile", target: "Profile", isCollection: false, link: .match(local: "id", remote: "user_id")),
                    Relation(name: "posts", target: "Post", isCollection: true, link: .match(local: "id", remote: "user_id")),
                ],
                "Profile": [Relation(name: "address", target: "Address", isCollection: false, link: .match(local: "id", remote: "profile_id"))],
            ]
        default:
            return nil
        }
        for (table, rows) in object where !table.hasPrefix("_") {
            guard let rows = rows.arrayValue else { continue }
            tables[table] = rows.compactMap { row in
                guard let members = row.objectValue else { return nil }
                var result: [String: ODataValue] = [:]
                for (key, value) in members { result[key] = convert(value, column: key) }
                return result
            }
        }
        model = buildModel()
    }

    func convert(_ json: JSONValue, column: String) -> ODataValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .boolean(flag)
        case .string(let text):
            if dateTimeColumns.contains(column), let value = try? EdmDateTimeOffset(parsing: text, offsetOptional: true) {
                return .dateTimeOffset(value)
            }
            return .string(text)
        case .number(let number):
            if let int = number.int64Value { return Int32(exactly: int).map(ODataValue.int32) ?? .int64(int) }
            return .double(number.doubleValue ?? .nan)
        case .array(let elements): return .collection(elements.map { convert($0, column: column) })
        case .object(let members):
            return .complex(ODataComplexValue(members.map { ($0.key, convert($0.value, column: $0.key)) }))
        }
    }

    /// One entity type per table (columns typed from the first non-null value), keyed by `id`.
    func buildModel() -> ServiceModel {
        var types: [CSDLEntityType] = []
        var sets: [CSDLEntitySet] = []
        for (table, rows) in tables.sorted(by: { $0.key < $1.key }) {
            var columns: [String: CSDLTypeReference] = [:]
            for row in rows {
                for (key, value) in row where columns[key] == nil {
                    switch value {
                    case .collection(let items):
                        let kind = items.first?.kind ?? .string
                        columns[key] = CSDLTypeReference(kind: .primitive(kind), isCollection: true)
                    case let other:
                        if let kind = other.kind { columns[key] = CSDLTypeReference(kind: .primitive(kind)) }
                    }
                }
            }
            let properties = columns.sorted { $0.key < $1.key }.map { CSDLProperty(name: $0.key, type: $0.value) }
            let navigation = (relations[table] ?? []).map {
                CSDLNavigationProperty(name: $0.name, targetType: "\(namespace).\($0.target)", isCollection: $0.isCollection)
            }
            let key = columns["id"] != nil ? [CSDLPropertyRef(name: "id")] : nil
            types.append(CSDLEntityType(name: table, namespace: namespace, key: key, properties: properties,
                                        navigationProperties: navigation))
            sets.append(CSDLEntitySet(name: table, entityType: "\(namespace).\(table)",
                                      navigationPropertyBindings: (relations[table] ?? []).map {
                                          CSDLNavigationPropertyBinding(path: $0.name, target: $0.target)
                                      }))
        }
        let container = CSDLEntityContainer(name: "Container", namespace: namespace, entitySets: sets)
        return ServiceModel(version: .v4, schemas: [CSDLSchema(namespace: namespace, entityTypes: types, entityContainers: [container])])
    }

    func rows(_ table: String) -> [FixtureRow] {
        (tables[table] ?? []).map { FixtureRow(database: self, table: table, values: $0) }
    }

    func related(_ row: FixtureRow, _ relation: Relation) -> [FixtureRow] {
        switch relation.link {
        case .match(let local, let remote):
            guard let key = row.values[local] else { return [] }
            return rows(relation.target).filter { $0.values[remote] == key }
        case .junction(let junction, let junctionLocal, let junctionRemote):
            guard let id = row.values["id"] else { return [] }
            let ids = (tables[junction] ?? []).filter { $0[junctionLocal] == id }.compactMap { $0[junctionRemote] }
            return rows(relation.target).filter { row in ids.contains { $0 == row.values["id"] } }
        }
    }
}

/// A fixture row; properties by name, navigation through the database's relations.
struct FixtureRow: EvaluationInstance {
    let database: FixtureDatabase
    let table: String
    let values: [String: ODataValue]

    var typeName: String { "\(database.namespace).\(table)" }

    func value(of property: BoundPropertyStep) throws(ODataError) -> ODataValue? { values[property.name] }

    func navigate(_ navigation: BoundNavigationStep) throws(ODataError) -> EvaluationNavigation {
        guard let relation = database.relations[table]?.first(where: { $0.name == navigation.name }) else {
            return navigation.isCollection ? .many([]) : .single(nil)
        }
        let targets = database.related(self, relation)
        return navigation.isCollection ? .many(targets) : .single(targets.first)
    }
}
