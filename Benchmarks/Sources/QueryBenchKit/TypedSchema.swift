import BenchCommon
import OfflineODataModel
import OfflineODataFixtures

/// The typed-column SQLite layout of the sales service: one table per entity set named after
/// it, one column per structural property (the complex `Address` flattened into `Address_City`,
/// `Address_PostalCode`, …), the model's key as `PRIMARY KEY` of a `WITHOUT ROWID` table (rows
/// clustered by key, as our store keeps entities).
///
/// Types: Edm.String, Edm.Guid, Edm.Date and Edm.DateTimeOffset → TEXT (the payload's ISO text,
/// which sorts chronologically for Date and for the `Z` instants of CreatedAt); Edm.Decimal →
/// REAL (IEEE double: exact for the generator's ≤ 13 significant digits, numeric comparison
/// and ordering); Edm.Byte → INTEGER. `NOT NULL` where the property is not nullable.
public enum TypedSchema {
    public enum Affinity: String, Sendable { case text = "TEXT", real = "REAL", integer = "INTEGER" }

    public struct Column: Sendable {
        public let name: String
        public let affinity: Affinity
        public let nullable: Bool
        /// The member path in the entity's JSON: `["GrossAmount"]`, `["Address", "City"]`.
        public let path: [String]
    }

    static func affinity(_ edmType: String) -> Affinity {
        switch edmType {
        case "Edm.Decimal", "Edm.Double", "Edm.Single": .real
        case "Edm.Byte", "Edm.Int16", "Edm.Int32", "Edm.Int64", "Edm.SByte", "Edm.Boolean": .integer
        default: .text
        }
    }

    public static func columns(of set: SalesEntitySet) -> [Column] {
        var out: [Column] = []
        for p in SalesServiceSchema.properties(of: set) {
            if p.type.hasSuffix(".Address") {
                for a in SalesServiceSchema.addressProperties {
                    out.append(Column(name: p.name + "_" + a.name, affinity: affinity(a.type),
                                      nullable: p.nullable || a.nullable, path: [p.name, a.name]))
                }
            } else {
                out.append(Column(name: p.name, affinity: affinity(p.type), nullable: p.nullable, path: [p.name]))
            }
        }
        return out
    }

    public static func createTable(_ set: SalesEntitySet) -> String {
        let cols = columns(of: set).map { "\($0.name) \($0.affinity.rawValue)\($0.nullable ? "" : " NOT NULL")" }
        return "CREATE TABLE \(set.name)(\(cols.joined(separator: ", ")), PRIMARY KEY(\(set.keyProperties.joined(separator: ", ")))) WITHOUT ROWID"
    }

    public static func insert(_ set: SalesEntitySet) -> String {
        let cols = columns(of: set)
        let params = (1...cols.count).map { "?\($0)" }
        return "INSERT INTO \(set.name)(\(cols.map(\.name).joined(separator: ", "))) VALUES(\(params.joined(separator: ", ")))"
    }

    /// Binds an entity's JSON properties to the columns of `insert` (`TypedSchema.insert`):
    /// strings as TEXT, integers as INTEGER where the column is, other numbers as REAL, Booleans
    /// as 0/1, absent and null as NULL; the complex `Address` through its flattened columns.
    public static func bind(_ object: JSONObject, columns: [Column], to insert: SQLiteConnection.Statement) throws {
        for (i, column) in columns.enumerated() {
            var value: JSONValue? = object[column.path[0]]
            if column.path.count > 1 { value = value?[column.path[1]] }
            let p = Int32(i + 1)
            switch value {
            case .string(let s)?: try insert.bind(p, s)
            case .number(let n)?:
                if column.affinity == .integer, let v = n.int64Value { try insert.bind(p, v) }
                else if let v = n.doubleValue { try insert.bind(p, v) }
                else { throw BenchError("\(column.name): bad number \(n)") }
            case .bool(let b)?: try insert.bind(p, Int64(b ? 1 : 0))
            case .null?, nil: try insert.bindNull(p)
            default: throw BenchError("\(column.name): unexpected JSON value")
            }
        }
    }
}
