import BenchKV

/// How `sqlcipher-worker` keys and configures every SQLCipher connection (run by the shared
/// `SQLiteStore` right after `sqlite3_open_v2`, before the first page is read).
///
/// - Key: the benchmark's 32 bytes in SQLCipher's raw-key form `x'…'`, so no PBKDF2 key
///   derivation runs on open (as our `.key(32 bytes)`: no Argon2id); the timings hold no KDF.
/// - Cipher: AES-256-CBC with a per-page HMAC, the only cipher SQLCipher offers. Debian 12's
///   libsqlcipher is 3.4.1: its HMAC is HMAC-SHA1 with no way to choose another
///   (`cipher_hmac_algorithm` and SQLCipher 4's HMAC-SHA512 default came in 4.0).
/// - Page size: 4,096 bytes instead of 3.4's default 1,024: SQLCipher 4's default, the SQLite
///   peer's page size, and what DESIGN.md §4 measured SQLCipher 3.4 with (the §5 goals against
///   SQLCipher come from that measurement).
enum CipherSettings {
    static let pageSize = 4096

    static var rawKeyHex: String {
        let digits = Array("0123456789abcdef")
        return String(benchmarkKey.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    static var pragmas: [String] {
        [
            "PRAGMA key = \"x'\(rawKeyHex)'\"",
            "PRAGMA cipher_page_size = \(pageSize)",
        ]
    }
}
