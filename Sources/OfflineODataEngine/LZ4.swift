// Every liblz4 call of the engine goes through this file.
import CLZ4

enum LZ4 {
    /// Compresses `input`; nil when compression would not save at least 1/16 of the bytes
    /// (then the frame is stored uncompressed).
    /// `acceleration` 1 is LZ4's default; larger trades ratio for speed (used for log frames,
    /// which live only until the next flush).
    static func compress(_ input: UnsafeRawBufferPointer, acceleration: Int32 = 1) -> [UInt8]? {
        guard input.count >= 64, input.count < Int(LZ4_MAX_INPUT_SIZE), let src = input.baseAddress else { return nil }
        let bound = Int(LZ4_compressBound(Int32(input.count)))
        var written: Int32 = 0
        let out = [UInt8](unsafeUninitializedCapacity: bound) { buffer, initialized in
            written = LZ4_compress_fast(
                src.assumingMemoryBound(to: CChar.self),
                UnsafeMutableRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self),
                Int32(input.count), Int32(bound), acceleration)
            initialized = max(0, Int(written))
        }
        guard written > 0, Int(written) <= input.count - input.count / 16 else { return nil }
        return out
    }

    /// Decompresses into exactly `rawCount` bytes; nil if the input is malformed.
    /// Decompresses into `output` (at least `rawCount` bytes); false unless exactly `rawCount`
    /// bytes came out.
    static func decompress(_ input: UnsafeRawBufferPointer, rawCount: Int, into output: UnsafeMutableRawPointer) -> Bool {
        guard rawCount >= 0, rawCount < Int(LZ4_MAX_INPUT_SIZE), let src = input.baseAddress else { return false }
        let produced = LZ4_decompress_safe(src.assumingMemoryBound(to: CChar.self), output.assumingMemoryBound(to: CChar.self),
                                           Int32(input.count), Int32(rawCount))
        return produced == Int32(rawCount)
    }

    static func decompress(_ input: UnsafeRawBufferPointer, rawCount: Int) -> [UInt8]? {
        guard rawCount >= 0, rawCount < Int(LZ4_MAX_INPUT_SIZE), let src = input.baseAddress else { return nil }
        var produced: Int32 = -1
        let out = [UInt8](unsafeUninitializedCapacity: max(rawCount, 1)) { buffer, initialized in
            produced = LZ4_decompress_safe(
                src.assumingMemoryBound(to: CChar.self),
                UnsafeMutableRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self),
                Int32(input.count), Int32(rawCount))
            initialized = produced == Int32(rawCount) ? rawCount : 0
        }
        return produced == Int32(rawCount) ? out : nil
    }
}
