import Foundation

/// Where the SQLCipher peers' worker is (issue 6): `sqlcipher-worker`, built next to the
/// benchmark executables (`swift build --product sqlcipher-worker`, which needs libsqlcipher-dev).
/// engine-bench, query-bench and store-bench start it for their SQLCipher peer; when it is missing
/// or is not SQLCipher, that peer is skipped and the report says so.
public struct SQLCipherPeer: Sendable {
    /// The worker executable; nil when the SQLCipher peer is skipped.
    public let worker: String?
    /// The library's versions and settings (`sqlcipher-worker info`), or why it is not measured.
    public let description: String

    public init(worker: String?, description: String) {
        self.worker = worker
        self.description = description
    }

    public static let missing = "not measured (libsqlcipher-dev missing)"

    public static func locate(next executable: String, workDirectory: String) -> SQLCipherPeer {
        let url = URL(fileURLWithPath: executable)
        let path = url.deletingLastPathComponent().appendingPathComponent("sqlcipher-worker").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            return SQLCipherPeer(worker: nil, description: missing + ": no sqlcipher-worker next to \(url.lastPathComponent)")
        }
        try? FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let info = Workers.shell(path, ["info", "--dir", workDirectory])
        guard info.hasPrefix("SQLCipher ") else {
            return SQLCipherPeer(worker: nil, description: missing + ": `sqlcipher-worker info` failed (\(info))")
        }
        return SQLCipherPeer(worker: path, description: info)
    }
}
