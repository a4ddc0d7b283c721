import Foundation
import Testing
@testable import OfflineODataModel

/// Every primitive value of the real services in the shared corpora (Northwind, TripPin, SAP
/// GWSAMPLE_BASIC, SEPMRA_PROD_MAN, EPM sales orders; V4 and V2 JSON) must read with its declared
/// type, and round-trip exactly through its JSON scalar form, its URL literal, the ordered key
/// encoding (the entity key) and the entity encoding (the whole entity).
@Suite struct ServiceCorpusTests {
    struct EntityType {
        var properties: [(name: String, type: String)] = []
        var keys: [String] = []
        var baseType: String?
    }

    struct Service {
        var version: ODataVersion
        var types: [String: EntityType] = [:]   // by simple name
        var sets: [String: String] = [:]         // set name → simple type name

        /// Declared properties including inherited ones, base first.
        func properties(of typeName: String) -> [(name: String, type: String)] {
            guard let type = types[typeName] else { return [] }
            let inherited = type.baseType.map { properties(of: simpleName($0)) } ?? []
            return inherited + type.properties
        }

        func keys(of typeName: String) -> [String] {
            guard let type = types[typeName] else { return [] }
            if !type.keys.isEmpty { return type.keys }
            return type.baseType.map { keys(of: simpleName($0)) } ?? []
        }
    }

    static func simpleName(_ qualified: String) -> String {
        String(qualified.split(separator: ".").last ?? Substring(qualified))
    }

    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let range = tag.range(of: " \(name)=\"") else { return nil }
        let rest = tag[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// A deliberately small reading of CSDL (entity types, properties, keys, entity sets).
    static func service(at folder: URL) throws -> Service {
        let xml = try String(contentsOf: folder.appendingPathComponent("metadata.xml"), encoding: .utf8)
        var service = Service(version: xml.contains("docs.oasis-open.org/odata/ns/edmx") ? .v4 : .v2)
        var current: String?
        var index = xml.startIndex
        while let open = xml[index...].firstIndex(of: "<") {
            guard let close = xml[open...].firstIndex(of: ">") else { break }
            let tag = xml[open...close]
            index = xml.index(after: close)
            if tag.hasPrefix("<EntityType ") {
                current = attribute("Name", in: tag)
                if let current { service.types[current] = EntityType(baseType: attribute("BaseType", in: tag)) }
                if tag.hasSuffix("/>") { current = nil }
            } else if tag.hasPrefix("</EntityType") {
                current = nil
            } else if let name = current, tag.hasPrefix("<Property "), let property = attribute("Name", in: tag),
                      let type = attribute("Type", in: tag) {
                service.types[name]?.properties.append((property, type))
            } else if let name = current, tag.hasPrefix("<PropertyRef "), let key = attribute("Name", in: tag) {
                service.types[name]?.keys.append(key)
            } else if tag.hasPrefix("<EntitySet "), let set = attribute("Name", in: tag), let type = attribute("EntityType", in: tag) {
                service.sets[set] = simpleName(type)
            }
        }
        return service
    }

    static func value(_ json: GeoJSONReader.Value, kind: EdmPrimitiveKind, version: ODataVersion) throws -> ODataValue? {
        switch json {
        case .string(let text): return try ODataValue.fromJSONString(text, as: kind, version: version)
        case .number(let text): return try ODataValue.fromJSONNumber(rawText: text, as: kind, version: version)
        case .literal("true"): return try ODataValue.fromJSONBool(true, as: kind)
        case .literal("false"): return try ODataValue.fromJSONBool(false, as: kind)
        case .literal: return .null
        default: return nil // GeoJSON objects, collections, complex values
        }
    }

    @Test(.enabled(if: ValueCorpora.available, "../shared/corpora not found"))
    func everyCorpusValueRoundTrips() throws {
        let folders = ["northwind", "trippin", "epm_salesorder_v4", "gwsample_basic", "gwsample_basic/store-overview", "sepmra_prod_man"]
        var checked = 0
        var exactDecimalNumbers = 0
        var numbersForStrings = 0
        for folderName in folders {
            let folder = ValueCorpora.root.appendingPathComponent(folderName)
            let service = try Self.service(at: folder)
            for (setName, typeName) in service.sets.sorted(by: { $0.key < $1.key }) {
                let file = folder.appendingPathComponent(setName + ".json")
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                let declared = service.properties(of: typeName)
                let kinds = declared.map { EdmPrimitiveKind(qualifiedName: $0.type) }
                let layout = EntityLayout(zip(declared, kinds).map { property, kind in
                    EntityPropertyDescriptor(name: property.name, shape: kind.map { .primitive($0) } ?? .primitive(.untyped))
                })
                let codec = EntityCodec(layout: layout)
                for line in text.split(separator: "\n") where line.hasPrefix("{\"") && !line.hasPrefix("{\"value\"") {
                    let value = try GeoJSONReader.read(String(line.hasSuffix(",") ? line.dropLast() : line), toEnd: false)
                    guard case .object(let members) = value else { continue }
                    var slots = [ODataValue?](repeating: nil, count: declared.count)
                    for (name, json) in members {
                        guard let index = declared.firstIndex(where: { $0.name == name }), let kind = kinds[index], !kind.isGeo else { continue }
                        let where_ = "\(folderName)/\(setName).\(name) = \(json)"
                        let parsed: ODataValue?
                        do {
                            parsed = try Self.value(json, kind: kind, version: service.version)
                        } catch {
                            // SAP's store-overview mock data writes some Edm.String values as JSON
                            // numbers ("Number literals are kept as written", SOURCE.md). The strict
                            // reader must refuse them with a typed error; nothing else may fail.
                            let mockQuirk = folderName.hasSuffix("store-overview") && kind == .string
                            if case .number = json, mockQuirk, let error = error as? ODataError, error.name == "jsonTypeMismatch" {
                                numbersForStrings += 1
                            } else {
                                Issue.record("\(where_): \(error)")
                            }
                            continue
                        }
                        guard let value = parsed else { continue }
                        slots[index] = value
                        guard !value.isNull else { continue }
                        checked += 1
                        let form = try value.jsonScalarForm(version: service.version)
                        let again = try Self.value(form.readerValue, kind: kind, version: service.version)
                        #expect(again?.isIdentical(to: value) == true, "\(where_) → \(form)")
                        if case .number(let raw) = json, case .number(let written) = form, kind == .decimal {
                            #expect(raw == written, "\(where_): decimal text changed to \(written)")
                            exactDecimalNumbers += 1
                        }
                        let literal = try value.literal(version: service.version)
                        let reparsed = try ODataValue.parseLiteral(literal, as: kind, version: service.version)
                        #expect(reparsed.isIdentical(to: value), "\(where_) → \(literal)")
                    }
                    let keyValues = service.keys(of: typeName).compactMap { key in
                        declared.firstIndex(where: { $0.name == key }).flatMap { slots[$0] }
                    }
                    let keyBytes = try OrderedKeyEncoding.encode(keyValues)
                    let keyBack = try OrderedKeyEncoding.decode(keyBytes)
                    #expect(zip(keyBack, keyValues).allSatisfy { $0.isIdentical(to: $1) } && keyBack.count == keyValues.count)
                    let record = EntityRecord(values: slots)
                    #expect(try codec.decode(try codec.encode(record)).isIdentical(to: record), "\(folderName)/\(setName)")
                }
            }
        }
        #expect(checked > 20_000, "only \(checked) corpus values checked")
        #expect(exactDecimalNumbers > 1000)
        print("ServiceCorpusTests: \(checked) values, \(exactDecimalNumbers) decimal numbers kept their exact text,"
              + " \(numbersForStrings) JSON numbers refused for Edm.String")
    }
}

extension JSONScalarForm {
    /// The same scalar as the JSON reader's value.
    var readerValue: GeoJSONReader.Value {
        switch self {
        case .string(let text): return .string(text)
        case .number(let text): return .number(text)
        case .bool(let flag): return .literal(flag ? "true" : "false")
        case .null: return .literal("null")
        }
    }
}
