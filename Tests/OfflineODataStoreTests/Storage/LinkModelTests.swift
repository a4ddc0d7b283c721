import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataStore

/// Recorded links (no referential constraints) checked against a model of link pairs.
@Suite struct LinkModelTests {
    static let body = """
    <EntityType Name="Person">
      <Key><PropertyRef Name="Id"/></Key>
      <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
      <NavigationProperty Name="Friends" Type="Collection(T.Person)"/>
      <NavigationProperty Name="BestFriend" Type="T.Person"/>
      <NavigationProperty Name="Groups" Type="Collection(T.Group)" Partner="Members"/>
    </EntityType>
    <EntityType Name="Group">
      <Key><PropertyRef Name="Name"/></Key>
      <Property Name="Name" Type="Edm.String" Nullable="false"/>
      <NavigationProperty Name="Members" Type="Collection(T.Person)" Partner="Groups"/>
      <NavigationProperty Name="Owner" Type="T.Person"/>
    </EntityType>
    """
    static let container = """
    <EntitySet Name="People" EntityType="T.Person">
      <NavigationPropertyBinding Path="Friends" Target="People"/>
      <NavigationPropertyBinding Path="BestFriend" Target="People"/>
      <NavigationPropertyBinding Path="Groups" Target="Groups"/>
    </EntitySet>
    <EntitySet Name="Groups" EntityType="T.Group">
      <NavigationPropertyBinding Path="Members" Target="People"/>
      <NavigationPropertyBinding Path="Owner" Target="People"/>
    </EntitySet>
    """

    struct Links {
        var friends = Set<[Int32]>()      // [from, to]
        var best: [Int32: Int32] = [:]
        var membership = Set<[Int32]>()   // [person, group]
        var owner: [Int32: Int32] = [:]   // group -> person

        mutating func delete(person p: Int32) {
            friends = friends.filter { !$0.contains(p) }
            best = best.filter { $0.key != p && $0.value != p }
            membership = membership.filter { $0[0] != p }
            owner = owner.filter { $0.value != p }
        }

        mutating func delete(group g: Int32) {
            membership = membership.filter { $0[1] != g }
            owner[g] = nil
        }
    }

    static func group(_ g: Int32) -> ODataValue { .string("g\(g)") }

    @Test("random link/unlink/delete: targets, to-one replacement and partner mirror match a model")
    func linksMatchModel() async throws {
        let model = try StorageFixtures.model(Self.body, container: Self.container)
        await propertyCheck(count: 10, input: Gen.int(in: 0...Int(Int32.max))) { seedValue in
            let seed = UInt64(seedValue)
            print("link model test seed \(seed)")
            let harness = try StorageHarness(model: model, label: "links")
            var rng = SplitMix64(state: seed)
            var links = Links()
            for step in 0..<30 {
                try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                    for _ in 0..<Int.random(in: 1...5, using: &rng) {
                        let a = Int32.random(in: 0..<6, using: &rng)
                        let b = Int32.random(in: 0..<6, using: &rng)
                        let g = Int32.random(in: 0..<3, using: &rng)
                        switch Int.random(in: 0..<10, using: &rng) {
                        case 0...1:
                            try batch.link(from: "People", key: [.int32(a)], navigation: "Friends", to: [.int32(b)])
                            links.friends.insert([a, b])
                        case 2:
                            try batch.unlink(from: "People", key: [.int32(a)], navigation: "Friends", to: [.int32(b)])
                            links.friends.remove([a, b])
                        case 3:
                            try batch.link(from: "People", key: [.int32(a)], navigation: "BestFriend", to: [.int32(b)])
                            links.best[a] = b
                        case 4:
                            // From the partner side half of the time.
                            if Bool.random(using: &rng) {
                                try batch.link(from: "People", key: [.int32(a)], navigation: "Groups", to: [Self.group(g)])
                            } else {
                                try batch.link(from: "Groups", key: [Self.group(g)], navigation: "Members", to: [.int32(a)])
                            }
                            links.membership.insert([a, g])
                        case 5:
                            try batch.unlink(from: "Groups", key: [Self.group(g)], navigation: "Members", to: [.int32(a)])
                            links.membership.remove([a, g])
                        case 6:
                            try batch.link(from: "Groups", key: [Self.group(g)], navigation: "Owner", to: [.int32(a)])
                            links.owner[g] = a
                        case 7:
                            try batch.put(ODataEntity(typeName: "T.Person", properties: [ODataProperty("Id", .int32(a))]), in: "People")
                        case 8:
                            try batch.put(record: EntityRecord(values: [.int32(a)]), in: "People")
                            _ = try batch.delete(key: [.int32(a)], in: "People")
                            links.delete(person: a)
                        default:
                            try batch.put(ODataEntity(typeName: "T.Group", properties: [ODataProperty("Name", Self.group(g))]), in: "Groups")
                            _ = try batch.delete(key: [Self.group(g)], in: "Groups")
                            links.delete(group: g)
                        }
                    }
                }
                let reader = try harness.storage.reader()
                let context = "seed \(seed) step \(step)"
                for p in Int32(0)..<6 {
                    let friends = try reader.targets("People", [.int32(p)], "Friends")
                    #expect(Set(friends) == Set(links.friends.filter { $0[0] == p }.map { [ODataValue.int32($0[1])] }), "\(context) friends of \(p)")
                    let best = try reader.targets("People", [.int32(p)], "BestFriend")
                    #expect(best == (links.best[p].map { [[ODataValue.int32($0)]] } ?? []), "\(context) best of \(p)")
                    let groups = try reader.targets("People", [.int32(p)], "Groups")
                    #expect(Set(groups) == Set(links.membership.filter { $0[0] == p }.map { [Self.group($0[1])] }), "\(context) groups of \(p)")
                }
                for g in Int32(0)..<3 {
                    let members = try reader.targets("Groups", [Self.group(g)], "Members")
                    #expect(Set(members) == Set(links.membership.filter { $0[1] == g }.map { [ODataValue.int32($0[0])] }), "\(context) members of \(g)")
                    #expect(try reader.targets("Groups", [Self.group(g)], "Owner") == (links.owner[g].map { [[ODataValue.int32($0)]] } ?? []),
                            "\(context) owner of \(g)")
                }
            }
        }
    }
}
