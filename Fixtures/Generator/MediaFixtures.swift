/// Streams of known content for the media tests (the crash worker writes them, the crash test
/// checks them).
public enum MediaFixtures {
    /// A model with one media entity set, Photos (key ID, Edm.Int32).
    public static let photosMetadata = Array("""
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="M">
          <EntityType Name="Photo" HasStream="true"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>
          <EntityContainer Name="C"><EntitySet Name="Photos" EntityType="M.Photo"/></EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """.utf8)

    /// The lengths version `v` of a stream cycles through: one commit (40 KB), staged through the
    /// log (2.5 MB), and a run of its own (11 MB, past the store's 8 MiB bulk threshold).
    public static let sizes = [40_000, 2_500_000, 11_000_000]

    /// Version `v` of a stream: its length from `sizes`, its bytes xorshift words seeded by `v`.
    public static func version(_ v: Int) -> [UInt8] {
        var state = UInt64(v) &* 0x9E37_79B9_7F4A_7C15 | 1
        let count = sizes[v % sizes.count]
        var out = [UInt8](repeating: 0, count: count + 8)
        out.withUnsafeMutableBytes { raw in
            for i in 0..<raw.count / 8 {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                raw.storeBytes(of: state, toByteOffset: i * 8, as: UInt64.self)
            }
        }
        return Array(out.prefix(count))
    }
}
