extension ODataValue {
    /// The value as an `Int64` when it is a number with exactly that value (integers of every
    /// width, a Decimal without fraction, a Single/Double holding an integer in range); nil for
    /// fractions, NaN/INF, out-of-range values and non-numbers. Shared by the query binder (literal
    /// retyping) and the store (key and index normalization), which must agree.
    public var exactInt64Value: Int64? {
        switch self {
        case .byte(let v): return Int64(v)
        case .sbyte(let v): return Int64(v)
        case .int16(let v): return Int64(v)
        case .int32(let v): return Int64(v)
        case .int64(let v): return v
        case .decimal(let d): return d.int64Value
        case .single(let f): return Int64(exactly: f)
        case .double(let d): return Int64(exactly: d)
        default: return nil
        }
    }
}
