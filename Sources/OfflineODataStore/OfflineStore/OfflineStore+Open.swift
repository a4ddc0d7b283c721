import OfflineODataEngine
import OfflineODataModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension OfflineStore {
    /// `<storePath>/<storeName>.oostore`.
    static func folder(storePath: String, storeName: String) -> String {
        let base = storePath.count > 1 && storePath.hasSuffix("/") ? String(storePath.dropLast()) : storePath
        return base + "/" + storeName + ".oostore"
    }

    /// Store names: 1…200 bytes of letters, digits, `_`, `-`, `.`, not starting with `.`.
    static func validateName(_ name: String) throws(ODataError) {
        guard !name.isEmpty, name.utf8.count <= 200 else {
            throw .offlineInvalidParameter("storeName", "must have 1 to 200 bytes, got \(name.utf8.count)")
        }
        guard !name.hasPrefix("."), name.unicodeScalars.allSatisfy({
            ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == ".") && $0.value < 0x80
        }) else {
            throw .offlineInvalidParameter("storeName", "'\(name)' may only use ASCII letters, digits, '_', '-', '.' (not first)")
        }
    }

    /// The store folder with `storePath` made absolute (and created when `create`), so two
    /// spellings of one path name the same store in the registry.
    static func resolvedFolder(_ parameters: OfflineStoreParameters, create: Bool) throws(ODataError) -> String {
        let fs = PosixFileSystem()
        if create, fs.kind(of: parameters.storePath) == nil {
            do { try fs.makeDirectory(parameters.storePath) } catch {
                throw .offlineFileError(parameters.storePath, "creating the directory: \(error.message)")
            }
        }
        guard let resolved = realpath(parameters.storePath, nil) else {
            return folder(storePath: parameters.storePath, storeName: parameters.storeName)
        }
        defer { free(resolved) }
        return folder(storePath: String(cString: resolved), storeName: parameters.storeName)
    }

    /// The metadata stored by an earlier open (nil for a new store), and its model.
    /// The metadata the store was last opened with (nil: a new store). Only its bytes: parsing
    /// it is needed only when the app's metadata differs (`parseStoredMetadata`).
    /// A value of the store's system tree read straight from the engine (nil: none, or no tree).
    static func storedSystemValue(_ key: [UInt8], engine: StorageEngine) throws(ODataError) -> [UInt8]? {
        do {
            guard let tree = try engine.existingTree(StoreFormat.systemTree(OfflineStoreFormat.storeTree)) else { return nil }
            return try engine.get(key, in: tree)
        } catch {
            throw .storageEngine(error, "reading the store's '\(String(decoding: key, as: UTF8.self))' record")
        }
    }

    static func storedMetadata(engine: StorageEngine) throws(ODataError) -> [UInt8]? {
        let value = try storedSystemValue(OfflineStoreFormat.metadataKey, engine: engine)
        guard let value else { return nil }
        guard value.first == OfflineStoreFormat.metadataVersion else {
            throw .offlineCorrupted("stored metadata", "version \(value.first.map(String.init) ?? "none")")
        }
        return Array(value.dropFirst())
    }

    static func parseStoredMetadata(_ bytes: [UInt8]) throws(ODataError) -> ServiceModel {
        do {
            return try ServiceModel.parse(metadata: bytes)
        } catch {
            throw .offlineCorrupted("stored metadata", "\(error)")
        }
    }

    /// An entity set that held data and is gone from the new metadata, or whose key changed,
    /// makes the change incompatible (new sets, new properties are additive: allowed).
    static func checkRemovedSets(stored: ServiceModel, now: ServiceModel, engine: StorageEngine) throws(ODataError) {
        for set in stored.entitySets {
            let problem: String
            if now.entitySet(named: set.name) == nil || now.entityType(ofSet: set.name) == nil {
                problem = "entity set '\(set.name)' holds data and is no longer in the metadata"
            } else if let oldType = stored.entityType(ofSet: set.name), let newType = now.entityType(ofSet: set.name),
                      stored.keyProperties(of: oldType).map(\.name) != now.keyProperties(of: newType).map(\.name) {
                let oldKey = stored.keyProperties(of: oldType).map(\.name)
                let newKey = now.keyProperties(of: newType).map(\.name)
                problem = "the key of '\(set.name)' changed from (\(oldKey.joined(separator: ","))) to (\(newKey.joined(separator: ",")))"
            } else {
                continue
            }
            // Only a set that holds data makes the change incompatible: one entity is enough to
            // know (never count the set: open must not grow with the data).
            let hasData: Bool
            do {
                if let tree = try engine.existingTree(StoreFormat.entityTree(set.name)) {
                    var cursor = try engine.snapshot().cursor(in: tree)
                    hasData = try cursor.next() != nil
                } else {
                    hasData = false
                }
            } catch {
                throw .storageEngine(error, "reading '\(set.name)'")
            }
            if hasData { throw .offlineIncompatibleMetadata(problem) }
        }
    }
}

/// Recursive removal of a store folder.
enum FileRemoval {
    static func removeTree(_ path: String) throws(ODataError) {
        let fs = PosixFileSystem()
        switch fs.kind(of: path) {
        case nil:
            return
        case .file, .other:
            throw .offlineFileError(path, "is not a store folder")
        case .directory:
            break
        }
        do {
            for name in try fs.list(path) {
                let child = path + "/" + name
                if fs.kind(of: child) == .directory {
                    try removeTree(child)
                } else {
                    try fs.remove(child)
                }
            }
        } catch let error as EngineError {
            throw .offlineFileError(path, error.message)
        } catch let error as ODataError {
            throw error
        } catch {
            throw .offlineFileError(path, "\(error)")
        }
        guard rmdir(path) == 0 else { throw .offlineFileError(path, "rmdir failed (errno \(errno))") }
    }
}
