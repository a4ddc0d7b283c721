import BenchCommon
import Foundation

/// Where the SQLCipher peer's worker is (issue 6): `sqlcipher-worker`, built next to
/// engine-bench (`swift build --product sqlcipher-worker`, which needs libsqlcipher-dev). When it
/// is missing or is not SQLCipher, the two SQLCipher configurations are skipped and the report says so.
struct SQLCipherPeer {
    /// The worker executable; nil when the SQLCipher configurations are skipped.
    let worker: String?
    /// The library's versions and settings (`sqlcipher-worker info`), or why it is not measured.
    let description: String

    static let missing = "not measured (libsqlcipher-dev missing)"

    static func locate(next executable: String, workDirectory: String) -> SQLCipherPeer {
        let path = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("sqlcipher-worker").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            return SQLCipherPeer(worker: nil, description: missing + ": no sqlcipher-worker next to engine-bench")
        }
        let info = Workers.shell(path, ["info", "--dir", workDirectory])
        guard info.hasPrefix("SQLCipher ") else {
            return SQLCipherPeer(worker: nil, description: missing + ": `sqlcipher-worker info` failed (\(info))")
        }
        return SQLCipherPeer(worker: path, description: info)
    }
}
