/// Keys and values for storage-engine benchmarks, deterministic and random-access:
/// `key(i)` is 16 random-looking, UUID-shaped bytes (version-4 layout), distinct for distinct
/// `i` and not in `i` order; `value(i)` is the JSON of a generated entity (3 in 4 a product, 1
/// in 4 a sales order, from a 10-million-order sales service with the same seed), about 420
/// bytes on average with a realistic spread (roughly 330–600 bytes).
public struct EngineWorkload: Sendable, Hashable {
    public let seed: UInt64
    let generator: SalesServiceGenerator
    private let keySalt: UInt64
    private let valueSalt: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        self.generator = SalesServiceGenerator(seed: seed, scale: .entities(salesOrders: 10_000_000))
        self.keySalt = SplitMix64.mix(seed ^ 0x4B45_5953)
        self.valueSalt = SplitMix64.mix(seed ^ 0x5641_4C55_4553)
    }

    /// 16 bytes, unique per `i`: bytes 0–5, 7 and 9 carry a bijection of `i`, the rest are
    /// derived from it (with the UUID version and variant bits set). The byte layout is
    /// documented in Fixtures/README.md ("Key layout").
    public func key(_ i: Int) -> [UInt8] {
        let high = SplitMix64.mix(UInt64(bitPattern: Int64(i)) ^ keySalt)
        let low = SplitMix64.mix(high ^ valueSalt)
        return TextFormatting.uuidBytes(high: high, low: low)
    }

    /// `key(i)` as lower-case UUID text (`8-4-4-4-12`).
    public func keyText(_ i: Int) -> String {
        TextFormatting.uuidText(key(i))
    }

    /// The JSON of one entity chosen by `i` (properties only, UTF-8, ~420 bytes on average).
    public func value(_ i: Int) -> [UInt8] {
        let choice = SplitMix64.mix(UInt64(bitPattern: Int64(i)) ^ valueSalt)
        let set: SalesEntitySet = choice % 4 == 0 ? .salesOrders : .products
        let count = UInt64(generator.count(of: set))
        let index = Int((choice >> 8) % Swift.max(1, count))
        return generator.entityBody(set: set, index: index, quoted: false)
    }
}
