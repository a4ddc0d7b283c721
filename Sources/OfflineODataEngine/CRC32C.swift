/// CRC-32C (Castagnoli), slicing-by-8, for frame checksums (docs/StorageFormat.md, "Frames").
enum CRC32C {
    static let tables: [[UInt32]] = {
        var t = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            t[0][i] = c
        }
        for i in 0..<256 {
            for k in 1..<8 { t[k][i] = (t[k - 1][i] >> 8) ^ t[0][Int(t[k - 1][i] & 0xff)] }
        }
        return t
    }()

    static func update(_ crc: UInt32, _ data: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        var i = 0
        let n = data.count
        tables.withUnsafeBufferPointer { tt in
            let t0 = tt[0], t1 = tt[1], t2 = tt[2], t3 = tt[3], t4 = tt[4], t5 = tt[5], t6 = tt[6], t7 = tt[7]
            t0.withUnsafeBufferPointer { p0 in t1.withUnsafeBufferPointer { p1 in t2.withUnsafeBufferPointer { p2 in
            t3.withUnsafeBufferPointer { p3 in t4.withUnsafeBufferPointer { p4 in t5.withUnsafeBufferPointer { p5 in
            t6.withUnsafeBufferPointer { p6 in t7.withUnsafeBufferPointer { p7 in
                while n - i >= 8 {
                    let lo = readU32LE(data, i) ^ c
                    let hi = readU32LE(data, i + 4)
                    c = p7[Int(lo & 0xff)] ^ p6[Int((lo >> 8) & 0xff)] ^ p5[Int((lo >> 16) & 0xff)] ^ p4[Int(lo >> 24)]
                        ^ p3[Int(hi & 0xff)] ^ p2[Int((hi >> 8) & 0xff)] ^ p1[Int((hi >> 16) & 0xff)] ^ p0[Int(hi >> 24)]
                    i += 8
                }
                while i < n {
                    c = p0[Int((c ^ UInt32(data[i])) & 0xff)] ^ (c >> 8)
                    i += 1
                }
            }}}}}}}}
        }
        return ~c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { update(0, $0) }
    }
}
