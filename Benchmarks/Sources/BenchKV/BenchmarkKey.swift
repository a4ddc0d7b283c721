/// A fixed 32-byte key for the encrypted stores in benchmarks: our `.key(_)` encryption (no
/// Argon2id on open) and SQLCipher's raw-key form `PRAGMA key = "x'…'"` (no PBKDF2 on open).
public let benchmarkKey: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

/// The data set's seed in every engine-bench worker (ours, SQLite, SQLCipher): all of them
/// regenerate the same keys for their lookups.
public let benchmarkSeed: UInt64 = 0x0D47A_2026
