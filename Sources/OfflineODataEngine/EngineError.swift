/// Error categories, matching the ones SAP's Offline OData documents and the OData layer uses.
public enum EngineErrorCategory: String, Sendable, Hashable {
    case invalidInput
    case preconditionFailed
    case notFound
    case notSupported
    case communicationError
    case serverSideError
    case clientInternalError
}

/// Every error the storage engine throws. `name` and `code` are stable (docs/Errors.md lists
/// them); `message` says what was wrong; `file`/`offset` say where, when a file is involved.
public struct EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Int, Sendable, Hashable, CaseIterable {
        /// The passphrase or key does not unwrap the store's data key.
        case wrongPassphrase = 2001
        /// A file's checksum or authentication tag does not verify, or its structure is invalid.
        case corruption = 2002
        /// The file was written by a newer format version than this library reads.
        case unsupportedFormatVersion = 2003
        /// Another process (or another open in this process) holds the store's writer lock.
        case storeLocked = 2004
        /// An operating-system call failed (disk full, I/O error, permission denied).
        case ioError = 2005
        /// The path does not hold a store (and creation was not asked for), or is not a directory.
        case notAStore = 2006
        /// A caller passed an argument the engine cannot accept (empty tree name, bad key size).
        case invalidArgument = 2007
        /// The store is closed, or failed earlier (after an fsync error) and must be reopened.
        case storeClosed = 2008
        /// The operation is not supported in this configuration.
        case notSupported = 2009
        /// A named tree does not exist.
        case treeNotFound = 2010
        /// The operation was cancelled by the caller.
        case cancelled = 2011
        /// An internal invariant failed; a bug, reported instead of crashing.
        case internalError = 2099
    }

    public var kind: Kind
    public var message: String
    /// The file involved, relative to the store directory, when there is one.
    public var file: String?
    /// The byte offset in `file` where the problem was found.
    public var offset: UInt64?
    /// The errno of a failed system call.
    public var errno: Int32?

    public init(_ kind: Kind, _ message: String, file: String? = nil, offset: UInt64? = nil,
                errno: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.offset = offset
        self.errno = errno
    }

    public var code: Int { kind.rawValue }

    /// Stable name, e.g. `wrongPassphrase`.
    public var name: String {
        switch kind {
        case .wrongPassphrase: "wrongPassphrase"
        case .corruption: "storeCorrupted"
        case .unsupportedFormatVersion: "unsupportedFormatVersion"
        case .storeLocked: "storeLocked"
        case .ioError: "ioError"
        case .notAStore: "notAStore"
        case .invalidArgument: "invalidArgument"
        case .storeClosed: "storeClosed"
        case .notSupported: "notSupported"
        case .treeNotFound: "treeNotFound"
        case .cancelled: "cancelled"
        case .internalError: "internalError"
        }
    }

    public var category: EngineErrorCategory {
        switch kind {
        case .wrongPassphrase, .invalidArgument, .notAStore: .invalidInput
        case .storeLocked, .storeClosed: .preconditionFailed
        case .unsupportedFormatVersion, .notSupported: .notSupported
        case .treeNotFound: .notFound
        case .corruption, .ioError, .cancelled, .internalError: .clientInternalError
        }
    }

    public var description: String {
        var text = "[\(category.rawValue)] \(name) (\(code)): \(message)"
        if let file {
            text += " (file \(file)"
            if let offset { text += ", offset \(offset)" }
            text += ")"
        }
        if let errno { text += " [errno \(errno)]" }
        return text
    }

    static func corrupt(_ message: String, file: String?, offset: UInt64?) -> EngineError {
        EngineError(.corruption, message, file: file, offset: offset)
    }
}
