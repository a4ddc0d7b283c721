import Foundation
import OfflineODataModel
import OfflineODataStore

/// What an upload does differently for SAP Gateway and other OData V2 services (docs/Sync.md
/// §6.2): the CSRF handshake, V2 JSON bodies, `MERGE` for updates, `DataServiceVersion`.
extension OfflineODataProvider {
    /// Sends a write (a single request or a `$batch`) with the session's CSRF token, fetching
    /// one first when none was; a `403` with `x-csrf-token: Required` (the token expired, the
    /// session changed) fetches a new one and sends the write again, once.
    func writeExchange(_ http: HTTPRequest) async throws(ODataError) -> (HTTPResponse, [UInt8]) {
        var request = http
        if parameters.csrfProtection, let token = try await csrfToken(refresh: false) {
            request.headers.append((name: "X-CSRF-Token", value: token))
        }
        let response = try await exchange(request)
        let body = try await collect(response, request)
        guard parameters.csrfProtection, response.status == 403, response.header("x-csrf-token")?.lowercased() == "required",
              let token = try await csrfToken(refresh: true) else {
            return (response, body)
        }
        request.headers.removeAll { $0.name.lowercased() == "x-csrf-token" }
        request.headers.append((name: "X-CSRF-Token", value: token))
        let again = try await exchange(request)
        return (again, try await collect(again, request))
    }

    /// The session's CSRF token: `GET <service root>` with `X-CSRF-Token: Fetch` (the session
    /// cookies it sets are kept by the transport). Nil when the back end issues none.
    func csrfToken(refresh: Bool) async throws(ODataError) -> String? {
        if !refresh, let known = core.withLock({ $0.csrfFetched ? Optional($0.csrfToken) : nil }) { return known }
        let request = HTTPRequest(method: "GET", url: serviceRoot,
                                  headers: requestHeaders([("X-CSRF-Token", "Fetch"), ("Accept", "application/json")]),
                                  timeout: parameters.timeout)
        let response = try await exchange(request)
        _ = try await collect(response, request)
        var token = response.header("x-csrf-token")
        if let value = token, value.isEmpty || value.lowercased() == "required" { token = nil }
        core.withLock {
            $0.csrfToken = token
            $0.csrfFetched = true
        }
        return token
    }

    /// Whether the service speaks OData V2 (its `$metadata` says so).
    func isV2(_ store: OfflineStore) -> Bool { store.model.version == .v2 }

    /// Whether requests of one change set may name an entity created in it by Content-ID.
    func usesContentIDReferences(_ store: OfflineStore) -> Bool {
        parameters.contentIDReferences ?? !isV2(store)
    }

    /// The protocol headers of a request to this service.
    func versionHeaders(_ store: OfflineStore) -> [(String, String)] {
        isV2(store) ? [("DataServiceVersion", "2.0"), ("MaxDataServiceVersion", "2.0")] : [("OData-MaxVersion", "4.01")]
    }

    /// The method a queued request is sent with: V2 services take updates as `MERGE` (PATCH is
    /// not V2), V4 services as `PATCH`.
    func wireMethod(_ method: String, _ store: OfflineStore) -> String {
        switch method {
        case "PATCH" where isV2(store): return "MERGE"
        case "MERGE" where !isV2(store): return "PATCH"
        default: return method
        }
    }

    /// A queued body in the back end's dialect: for a V2 service, V2 JSON (`/Date(ms)/`, decimals
    /// and Int64 as strings, `Edm.Time` as a duration, binds as `__metadata.uri`); a V4 body is sent
    /// as queued. A body the model cannot read (it was read when it was queued) goes as it is.
    func wireBody(_ text: String, set: String, store: OfflineStore) -> String {
        guard isV2(store), let entity = try? store.readRequestBody(text, entitySet: set) else { return text }
        return V2JSON(model: store.model).object(entity, typeName: store.model.entitySet(named: set)?.entityType)
    }
}

/// Writes entities as OData V2 JSON request bodies (the verbose format's values).
struct V2JSON {
    let model: ServiceModel

    func object(_ entity: ODataEntity, typeName: String?) -> String {
        let declared = typeName.map { model.allProperties(of: $0) } ?? []
        var members: [String] = []
        for property in entity.properties {
            let type = declared.first { $0.name == property.name }?.typeAsWritten
            members.append(Self.string(property.name) + ":" + value(property.value, type: type))
        }
        for navigation in entity.navigation {
            let target = typeName.flatMap { name in
                model.entityType(qualifiedName: name).flatMap { model.navigationProperty(navigation.name, of: $0) }
            }
            let targetType = target.map(\.targetType)
            switch navigation.content {
            case .entity(let child?):
                members.append(Self.string(navigation.name) + ":" + object(child, typeName: targetType))
            case .entities(let children, _, _):
                members.append(Self.string(navigation.name) + ":{\"results\":[" + children.map { object($0, typeName: targetType) }.joined(separator: ",") + "]}")
            case .bind(let uri):
                members.append(Self.string(navigation.name) + ":{\"__metadata\":{\"uri\":" + Self.string(uri) + "}}")
            case .bindMany(let uris):
                members.append(Self.string(navigation.name) + ":{\"results\":[" + uris.map { "{\"__metadata\":{\"uri\":" + Self.string($0) + "}}" }.joined(separator: ",") + "]}")
            default:
                continue
            }
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    func value(_ value: ODataValue, type: String?) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let b): return b ? "true" : "false"
        case .byte(let n): return String(n)
        case .sbyte(let n): return String(n)
        case .int16(let n): return String(n)
        case .int32(let n): return String(n)
        case .int64(let n): return Self.string(String(n))
        case .decimal(let d): return Self.string(d.description)
        case .single(let f): return f.isFinite ? "\(f)" : Self.string(f.isNaN ? "NaN" : (f < 0 ? "-INF" : "INF"))
        case .double(let d): return d.isFinite ? "\(d)" : Self.string(d.isNaN ? "NaN" : (d < 0 ? "-INF" : "INF"))
        case .string(let s): return Self.string(s)
        case .binary(let bytes): return Self.string(Data(bytes).base64EncodedString())
        case .guid(let g): return Self.string(g.description)
        case .date(let date):
            return Self.string("/Date(\(date.daysSinceEpoch * 86_400_000))/")
        case .dateTimeOffset(let instant):
            let ms = instant.utcSeconds * 1000 + instant.picoseconds / 1_000_000_000
            if type == "Edm.DateTimeOffset" {
                let offset = instant.offsetMinutes
                let sign = offset < 0 ? "-" : "+"
                return Self.string("/Date(\(ms)\(sign)\(String(format: "%04d", abs(offset))))/")
            }
            return Self.string("/Date(\(ms))/")
        case .timeOfDay(let time):
            let seconds = time.secondsSinceMidnight
            return Self.string(String(format: "PT%02dH%02dM%02dS", seconds / 3600, seconds / 60 % 60, seconds % 60))
        case .duration(let duration): return Self.string(duration.description)
        case .enumValue(let e): return Self.string(e.description)
        case .geo(let geo): return Self.string("\(geo)")
        case .complex(let complex):
            let declared = model.allProperties(of: complex.typeName ?? "")
            return "{" + complex.properties.map { property in
                Self.string(property.name) + ":" + self.value(property.value, type: declared.first { $0.name == property.name }?.typeAsWritten)
            }.joined(separator: ",") + "}"
        case .collection(let items):
            return "{\"results\":[" + items.map { self.value($0, type: nil) }.joined(separator: ",") + "]}"
        }
    }

    /// A JSON string literal.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
