import Foundation
import OfflineODataEngine
import OfflineODataStore

/// Resolves a CLI path to a store.
///
/// An OfflineStore lives in `<storePath>/<storeName>.oostore` (the facade's folder). The CLI
/// also keeps a copy of the service metadata next to it, `<storePath>/<storeName>.metadata.xml`,
/// because opening an OfflineStore needs the metadata. The user may name the directory that
/// holds the store, or the `.oostore` folder itself; a directory without any `.oostore` folder
/// is taken as a bare engine store (for `check`, `compact`, … on engine stores).
struct StoreLocation {
    var storePath: String
    var storeName: String
    /// True when the path names an OfflineStore (its `.oostore` folder exists or was named).
    var isOfflineStore: Bool
    /// The directory the storage engine opens.
    var engineDirectory: String

    static let folderExtension = ".oostore"

    init(path: String, storeName explicitName: String?) {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let fm = FileManager.default
        if path.hasSuffix(Self.folderExtension) {
            let url = URL(fileURLWithPath: path)
            storePath = url.deletingLastPathComponent().path
            storeName = String(url.lastPathComponent.dropLast(Self.folderExtension.count))
            isOfflineStore = true
            engineDirectory = path
            return
        }
        storePath = path
        if let explicitName {
            storeName = explicitName
            isOfflineStore = true
        } else {
            let folders = ((try? fm.contentsOfDirectory(atPath: path)) ?? [])
                .filter { $0.hasSuffix(Self.folderExtension) }.sorted()
            if folders.count == 1, let only = folders.first {
                storeName = String(only.dropLast(Self.folderExtension.count))
                isOfflineStore = true
            } else if folders.contains("localstore" + Self.folderExtension) {
                storeName = "localstore"
                isOfflineStore = true
            } else {
                storeName = "localstore"
                isOfflineStore = false
            }
        }
        engineDirectory = isOfflineStore ? path + "/" + storeName + Self.folderExtension : path
    }

    var metadataFile: String { storePath + "/" + storeName + ".metadata.xml" }

    var folderExists: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: storePath + "/" + storeName + Self.folderExtension, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }
}

extension StoreOptions {
    /// The encryption for an OfflineStore, from the same flags and environment.
    func storeEncryption() throws -> StoreEncryption {
        switch try encryption() {
        case .passphrase(let p): .passphrase(p)
        case .key(let k): .key(k)
        case .unencrypted: .unencrypted
        }
    }

    /// Opens the existing OfflineStore at `path` with the metadata kept next to it (or `metadata`).
    func openOfflineStore(metadata metadataPath: String? = nil, pageSize: Int? = nil) async throws -> OfflineStore {
        let location = self.location
        guard FileManager.default.fileExists(atPath: location.storePath) else {
            throw CLIFailure(message: "no such store directory: \(location.storePath)")
        }
        guard location.folderExists else {
            throw CLIFailure(message: "no OfflineStore at \(location.storePath) (expected \(location.storeName).oostore there; create one with `offline-odata import`)")
        }
        let metadataFile = metadataPath ?? location.metadataFile
        var parameters = OfflineStoreParameters(storeName: location.storeName, storePath: location.storePath,
                                                encryption: try storeEncryption())
        parameters.pageSize = pageSize
        guard FileManager.default.fileExists(atPath: metadataFile) else {
            // A store made by `open` (sync) keeps its metadata inside.
            if metadataPath == nil { return try await OfflineStore.openExisting(parameters: parameters) }
            throw CLIFailure(message: "no service metadata at \(metadataFile) (pass --metadata <file>)")
        }
        let metadata = try readFileBytes(metadataFile)
        return try await OfflineStore.open(metadata: metadata, parameters: parameters)
    }
}
