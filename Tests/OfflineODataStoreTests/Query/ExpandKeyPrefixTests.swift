import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// `$expand` over navigations whose targets are a key-prefix range. When the foreign key is the
/// source's whole key with the same kinds, the source's encoded key is used as the prefix
/// (`EntityReader.keyIsPrefix`); otherwise the prefix is encoded from the source's values. Both
/// must find exactly each parent's children: the same key with another kind (Int32 → Int64)
/// and a foreign key to a non-key property (a code that sorts unlike the key) must not take
/// the shortcut.
@Suite struct ExpandKeyPrefixTests {
    static func model() throws -> ServiceModel {
        try StorageFixtures.model("""
            <EntityType Name="Order">
              <Key><PropertyRef Name="ID"/></Key>
              <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
              <Property Name="Code" Type="Edm.String" Nullable="false" MaxLength="10"/>
              <NavigationProperty Name="Lines" Type="Collection(T.Line)" Partner="Order"/>
              <NavigationProperty Name="LongLines" Type="Collection(T.LongLine)" Partner="Order"/>
              <NavigationProperty Name="CodeLines" Type="Collection(T.CodeLine)" Partner="Order"/>
            </EntityType>
            <EntityType Name="Line">
              <Key><PropertyRef Name="OrderID"/><PropertyRef Name="Pos"/></Key>
              <Property Name="OrderID" Type="Edm.Int32" Nullable="false"/>
              <Property Name="Pos" Type="Edm.Int32" Nullable="false"/>
              <NavigationProperty Name="Order" Type="T.Order" Nullable="false" Partner="Lines">
                <ReferentialConstraint Property="OrderID" ReferencedProperty="ID"/>
              </NavigationProperty>
            </EntityType>
            <EntityType Name="LongLine">
              <Key><PropertyRef Name="OrderID"/><PropertyRef Name="Pos"/></Key>
              <Property Name="OrderID" Type="Edm.Int64" Nullable="false"/>
              <Property Name="Pos" Type="Edm.Int32" Nullable="false"/>
              <NavigationProperty Name="Order" Type="T.Order" Nullable="false" Partner="LongLines">
                <ReferentialConstraint Property="OrderID" ReferencedProperty="ID"/>
              </NavigationProperty>
            </EntityType>
            <EntityType Name="CodeLine">
              <Key><PropertyRef Name="OrderCode"/><PropertyRef Name="Pos"/></Key>
              <Property Name="OrderCode" Type="Edm.String" Nullable="false" MaxLength="10"/>
              <Property Name="Pos" Type="Edm.Int32" Nullable="false"/>
              <NavigationProperty Name="Order" Type="T.Order" Nullable="false" Partner="CodeLines">
                <ReferentialConstraint Property="OrderCode" ReferencedProperty="Code"/>
              </NavigationProperty>
            </EntityType>
            """, container: """
            <EntitySet Name="Orders" EntityType="T.Order">
              <NavigationPropertyBinding Path="Lines" Target="Lines"/>
              <NavigationPropertyBinding Path="LongLines" Target="LongLines"/>
              <NavigationPropertyBinding Path="CodeLines" Target="CodeLines"/>
            </EntitySet>
            <EntitySet Name="Lines" EntityType="T.Line"><NavigationPropertyBinding Path="Order" Target="Orders"/></EntitySet>
            <EntitySet Name="LongLines" EntityType="T.LongLine"><NavigationPropertyBinding Path="Order" Target="Orders"/></EntitySet>
            <EntitySet Name="CodeLines" EntityType="T.CodeLine"><NavigationPropertyBinding Path="Order" Target="Orders"/></EntitySet>
            """)
    }

    @Test func childrenOfEveryParentWithAndWithoutTheEncodedKeyShortcut() throws {
        let model = try Self.model()
        let harness = try StorageHarness(model: model, label: "expand-prefix")
        let reader = ODataJSONReader(model: model)
        func read(_ json: String, _ set: String) throws -> ODataEntity { try reader.readEntity(Array(json.utf8), entitySet: set) }
        // Codes sort against the IDs ("C29" for 1 … "C00" for 30); order i has i % 4 children.
        var orders: [ODataEntity] = [], lines: [ODataEntity] = [], longLines: [ODataEntity] = [], codeLines: [ODataEntity] = []
        var children: [Int: [Int]] = [:]
        for id in 1...30 {
            let code = "C" + String(format: "%02d", 30 - id)
            orders.append(try read(#"{"ID":\#(id),"Code":"\#(code)"}"#, "Orders"))
            for pos in 0..<(id % 4) {
                lines.append(try read(#"{"OrderID":\#(id),"Pos":\#(pos)}"#, "Lines"))
                longLines.append(try read(#"{"OrderID":\#(id),"Pos":\#(pos)}"#, "LongLines"))
                codeLines.append(try read(#"{"OrderCode":"\#(code)","Pos":\#(pos)}"#, "CodeLines"))
                children[id, default: []].append(pos)
            }
        }
        try harness.storage.apply(entities: orders, to: "Orders")
        try harness.storage.apply(entities: lines, to: "Lines")
        try harness.storage.apply(entities: longLines, to: "LongLines")
        try harness.storage.apply(entities: codeLines, to: "CodeLines")

        let entityReader = try harness.storage.reader()
        let source = try entityReader.catalog.set("Orders")
        for (navigation, shortcut) in [("Lines", true), ("LongLines", false), ("CodeLines", false)] {
            guard case .keyPrefix(let target, let columns) = try entityReader.catalog.plan("Orders", navigation) else {
                Issue.record("\(navigation) is not read by key prefix"); continue
            }
            #expect(EntityReader.keyIsPrefix(columns, of: source, in: try entityReader.catalog.set(target)) == shortcut, "\(navigation)")
        }
        let executor = QueryExecutor(reader: entityReader, model: model)
        for url in ["Orders?$expand=Lines,LongLines,CodeLines", "Orders?$orderby=Code&$expand=Lines,LongLines,CodeLines",
                    "Orders?$filter=ID ge 7 and ID le 19&$orderby=ID desc&$expand=CodeLines,Lines,LongLines"] {
            let result = try executor.execute(url)
            #expect(!result.entities.isEmpty, "\(url)")
            for order in result.entities {
                guard case .int32(let id)? = order[property: "ID"] else { Issue.record("no ID in \(url)"); continue }
                for navigation in ["Lines", "LongLines", "CodeLines"] {
                    guard case .entities(let found, _, _)? = order.navigation(navigation)?.content else {
                        Issue.record("\(navigation) not expanded for \(id) in \(url)"); continue
                    }
                    let positions = found.map { entity -> Int in
                        if case .int32(let pos)? = entity[property: "Pos"] { return Int(pos) }
                        return -1
                    }
                    #expect(positions == children[Int(id)] ?? [], "\(navigation) of \(id) in \(url)")
                }
            }
        }
    }
}
