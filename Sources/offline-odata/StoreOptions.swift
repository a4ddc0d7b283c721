import ArgumentParser
import Foundation
import OfflineODataEngine

/// How the CLI finds and unlocks a store.
struct StoreOptions: ParsableArguments {
    @Argument(help: "The store: a directory holding <name>.oostore (an OfflineStore), or an engine store directory.")
    var path: String

    @Option(help: "The OfflineStore name inside the directory (default: the only *.oostore folder there).")
    var storeName: String?

    @Option(help: "The passphrase (or set OFFLINE_ODATA_PASSPHRASE).")
    var passphrase: String?

    @Option(help: "A file holding the 32-byte raw key (binary, or 64 hex digits).")
    var keyFile: String?

    @Flag(help: "The store is unencrypted.")
    var unencrypted = false

    func encryption() throws -> EngineOptions.Encryption {
        if unencrypted { return .unencrypted }
        if let keyFile {
            guard let data = FileManager.default.contents(atPath: keyFile) else {
                throw ValidationError("cannot read the key file \(keyFile)")
            }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.count == 64, let hex = Self.hexBytes(text) { return .key(hex) }
            guard data.count == 32 else { throw ValidationError("the key file must hold 32 bytes or 64 hex digits") }
            return .key([UInt8](data))
        }
        if let p = passphrase ?? ProcessInfo.processInfo.environment["OFFLINE_ODATA_PASSPHRASE"] { return .passphrase(p) }
        throw ValidationError("the store needs --passphrase, --key-file, OFFLINE_ODATA_PASSPHRASE or --unencrypted")
    }

    func open(create: Bool = false) throws -> StorageEngine {
        var options = EngineOptions(encryption: try encryption())
        options.createIfMissing = create
        return try StorageEngine.open(path: location.engineDirectory, options: options)
    }

    /// Where the store's files are: an OfflineStore folder or a bare engine directory.
    var location: StoreLocation { StoreLocation(path: path, storeName: storeName) }

    static func hexBytes(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var chars = Array(text.utf8)[...]
        while chars.count >= 2 {
            guard let b = UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            out.append(b)
            chars = chars.dropFirst(2)
        }
        return chars.isEmpty ? out : nil
    }
}

/// Prints an engine error the way a user reads it and exits non-zero.
func reportAndExit(_ error: any Error) -> Never {
    failAndExit(error)
}
