import OfflineODataModel

/// The built-in entity sets RequestQueue, ErrorArchive and EventLog (docs/LocalService.md §4):
/// types of the schema `OfflineOData`, sets added to the application's default container so
/// the normal query path reads them (`ErrorArchive?$filter=HTTPStatusCode eq 412`).
public enum OfflineSystemSets {
    public static let namespace = "OfflineOData"
    public static let requestQueue = "RequestQueue"
    public static let errorArchive = "ErrorArchive"
    public static let eventLog = "EventLog"
    public static let all = [requestQueue, errorArchive, eventLog]

    /// The CSDL of the built-in types (V4 XML).
    static let metadata = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
      <edmx:DataServices>
        <Schema Namespace="OfflineOData" xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityType Name="Request">
            <Key><PropertyRef Name="RequestID"/></Key>
            <Property Name="RequestID" Type="Edm.Int64" Nullable="false"/>
            <Property Name="Status" Type="Edm.String" Nullable="false"/>
            <Property Name="Method" Type="Edm.String" Nullable="false"/>
            <Property Name="URL" Type="Edm.String" Nullable="false"/>
            <Property Name="Body" Type="Edm.String"/>
            <Property Name="CustomTag" Type="Edm.String"/>
            <Property Name="CustomHeaders" Type="Edm.String"/>
            <Property Name="TransactionID" Type="Edm.String"/>
            <Property Name="UploadCategory" Type="Edm.String"/>
            <Property Name="RemoveCreatedEntityAfterUpload" Type="Edm.Boolean" Nullable="false"/>
            <Property Name="Unmodifiable" Type="Edm.Boolean" Nullable="false"/>
            <Property Name="AffectedEntitySet" Type="Edm.String" Nullable="false"/>
            <Property Name="AffectedEntityKey" Type="Edm.String" Nullable="false"/>
            <Property Name="ServerETag" Type="Edm.String"/>
          </EntityType>
          <EntityType Name="ErrorArchiveEntry">
            <Key><PropertyRef Name="RequestID"/></Key>
            <Property Name="RequestID" Type="Edm.Int64" Nullable="false"/>
            <Property Name="CustomTag" Type="Edm.String"/>
            <Property Name="HTTPStatusCode" Type="Edm.Int32" Nullable="false"/>
            <Property Name="Code" Type="Edm.String"/>
            <Property Name="Message" Type="Edm.String"/>
            <Property Name="InnerError" Type="Edm.String"/>
            <Property Name="Domain" Type="Edm.String"/>
            <Property Name="RequestMethod" Type="Edm.String" Nullable="false"/>
            <Property Name="RequestURL" Type="Edm.String" Nullable="false"/>
            <Property Name="RequestBody" Type="Edm.String"/>
            <Property Name="CustomHeaders" Type="Edm.String"/>
            <Property Name="TransactionID" Type="Edm.String"/>
            <Property Name="UploadCategory" Type="Edm.String"/>
            <Property Name="AffectedEntitySet" Type="Edm.String" Nullable="false"/>
            <Property Name="AffectedEntityKey" Type="Edm.String" Nullable="false"/>
            <Property Name="ServerETag" Type="Edm.String"/>
          </EntityType>
          <EntityType Name="Event">
            <Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int64" Nullable="false"/>
            <Property Name="Type" Type="Edm.String" Nullable="false"/>
            <Property Name="Time" Type="Edm.DateTimeOffset" Nullable="false"/>
            <Property Name="Details" Type="Edm.String"/>
          </EntityType>
          <EntityContainer Name="OfflineODataContainer">
            <EntitySet Name="RequestQueue" EntityType="OfflineOData.Request"/>
            <EntitySet Name="ErrorArchive" EntityType="OfflineOData.ErrorArchiveEntry"/>
            <EntitySet Name="EventLog" EntityType="OfflineOData.Event"/>
          </EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """
}

extension ServiceModel {
    /// The built-in schema and its container, parsed once per process (a constant document;
    /// parsing it was about a fifth of every store open, measured with perf on reopens).
    private static let offlineSystemSchema: Result<(CSDLSchema, CSDLEntityContainer), ODataError> = {
        let system: ServiceModel
        do {
            system = try ServiceModel.parse(metadata: Array(OfflineSystemSets.metadata.utf8))
        } catch let error as ODataError {
            return .failure(.queueCorrupted("built-in schema", error.message))
        } catch {
            return .failure(.queueCorrupted("built-in schema", "\(error)"))
        }
        guard let schema = system.schemas.first(where: { $0.namespace == OfflineSystemSets.namespace }),
              let container = schema.entityContainers.first else {
            return .failure(.queueCorrupted("built-in schema", "the OfflineOData schema did not parse"))
        }
        return .success((schema, container))
    }()

    /// True when the built-in sets are in the default container.
    public var hasOfflineSystemSets: Bool {
        OfflineSystemSets.all.allSatisfy { entitySet(named: $0) != nil }
    }

    /// This model with the built-in `OfflineOData` schema (types `Request`,
    /// `ErrorArchiveEntry`, `Event`) and the sets RequestQueue, ErrorArchive and EventLog added to
    /// the default container. Open the `EntityStorage` with the result. Idempotent; throws
    /// `systemSetNameClash` (3203) when the application uses one of the names.
    public func withOfflineSystemSets() throws(ODataError) -> ServiceModel {
        if hasOfflineSystemSets, schemas.contains(where: { $0.namespace == OfflineSystemSets.namespace }) { return self }
        let (systemSchema, systemContainer) = try Self.offlineSystemSchema.get()
        if schemas.contains(where: { $0.namespace == OfflineSystemSets.namespace }) {
            throw .queueSystemSetClash(OfflineSystemSets.namespace)
        }
        for name in OfflineSystemSets.all where entitySet(named: name) != nil || singleton(named: name) != nil {
            throw .queueSystemSetClash(name)
        }
        var extended = self
        var schema = systemSchema
        schema.entityContainers = []
        // The default container: the one marked default, else the first.
        var target: (schema: Int, container: Int)?
        for (s, candidate) in extended.schemas.enumerated() {
            for (c, container) in candidate.entityContainers.enumerated() {
                if container.isDefault { target = (s, c) } else if target == nil { target = (s, c) }
            }
        }
        if let target {
            var all = extended.schemas
            all[target.schema].entityContainers[target.container].entitySets += systemContainer.entitySets
            all.append(schema)
            extended.schemas = all
        } else {
            var withContainer = systemSchema
            withContainer.entityContainers = [systemContainer]
            extended.schemas.append(withContainer)
        }
        return extended
    }
}
