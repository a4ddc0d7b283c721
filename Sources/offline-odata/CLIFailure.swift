import ArgumentParser
import Foundation
import OfflineODataEngine
import OfflineODataModel
import OfflineODataStore

/// A user-facing failure of a CLI command: one line on stderr, a non-zero exit code.
///
/// Exit codes: 1 bad input (usage, URL, JSON, files), 2 storage engine errors (wrong
/// passphrase, damaged or missing store), 3 `check` found damage, 4 an OData request failed,
/// 5 the back end could not be reached or answered with an error (`open`, `download`).
struct CLIFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32 = 1
    var description: String { message }
}

/// Prints `error` as one line and exits non-zero; never returns.
func failAndExit(_ error: any Error) -> Never {
    let code: Int32
    let text: String
    switch error {
    case let e as CLIFailure:
        code = e.exitCode
        text = e.message
    case let e as EngineError where e.kind == .wrongPassphrase:
        // One name for a wrong passphrase or key in every command: the store's (`query` and
        // `shell` open an OfflineStore, `check` and `stats` its engine).
        code = 2
        text = "\(StoreErrorCode.wrongEncryptionKey.error("the passphrase or key does not open the store: \(e.message)", at: e.file ?? ""))"
    case let e as EngineError:
        code = 2
        text = "\(e)"
    case let e as ODataError where e.category == .communicationError || e.category == .serverSideError:
        // The back end could not be reached, or answered with an error (sync).
        code = 5
        text = "\(e)"
    case let e as ODataError where e.code == EngineError.Kind.wrongPassphrase.rawValue:
        code = 2
        text = "\(StoreErrorCode.wrongEncryptionKey.error("the passphrase or key does not open the store: \(e.message)", at: e.location ?? ""))"
    case let e as ODataError:
        // Storage failures (wrong key, damaged or locked store) reach the facade as ODataErrors.
        code = StoreErrorCode.storageFailures.contains(e.code) ? 2 : 1
        text = "\(e)"
    default:
        code = 1
        text = "\(error)"
    }
    let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
    FileHandle.standardError.write(Data(("error: \(oneLine)\n").utf8))
    Foundation.exit(code)
}

/// Reads a whole file as bytes, with a one-line error naming it.
func readFileBytes(_ path: String) throws(CLIFailure) -> [UInt8] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw CLIFailure(message: "no such file: \(path)")
    }
    guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
        throw CLIFailure(message: "cannot read \(path)")
    }
    return [UInt8](data)
}

func milliseconds(since start: Date) -> String {
    let ms = Date().timeIntervalSince(start) * 1000
    return ms < 10 ? String(format: "%.2f ms", ms) : String(format: "%.1f ms", ms)
}
