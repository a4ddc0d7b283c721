import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The shell on a terminal: the binary runs on a pseudo-terminal, as in a user's terminal
/// window, and is typed at key by key (arrows, Home, Ctrl-W, ↑ for history, Ctrl-D), with each
/// key sent only after the shell has drawn its prompt.
@Suite struct ShellTerminalTests {
    typealias R = CLIRunner

    /// A child process whose standard input, output and error are a pseudo-terminal.
    final class Terminal {
        let process = Process()
        let master: Int32
        private(set) var output: [UInt8] = []

        init(_ arguments: [String], environment extra: [String: String], removing: [String] = []) throws {
            let binary = try #require(R.binary, "offline-odata not built: run `swift build` before `swift test`")
            // posix_openpt and friends are not in Swift's Glibc module: the Linux ioctls they
            // wrap (TIOCSPTLCK unlocks the pair, TIOCGPTN gives its number).
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            try #require(master >= 0, "no pseudo-terminal (/dev/ptmx): errno \(errno)")
            var unlock: Int32 = 0
            var number: UInt32 = 0
            try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0,
                         "cannot unlock the pseudo-terminal: errno \(errno)")
            let name = "/dev/pts/\(number)"
            let slave = open(name, O_RDWR | O_NOCTTY)
            try #require(slave >= 0, "cannot open \(name): errno \(errno)")
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env["OFFLINE_ODATA_PASSPHRASE"] = R.passphrase
            env["TERM"] = "xterm"
            for (k, v) in extra { env[k] = v }
            for k in removing { env.removeValue(forKey: k) }
            process.environment = env
            let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
            process.standardInput = handle
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            close(slave)
        }

        deinit {
            if process.isRunning { process.terminate() }
            close(master)
        }

        /// How long the shell may take to answer: generous, since the test run starts many
        /// processes at once (a full run once took the shell more than 10 s to end after Ctrl-D,
        /// with the whole test at 95 s); a shell that hangs is still caught.
        static let patience: TimeInterval = 30

        /// Reads until the output holds `text` `count` times in all (`patience` at most).
        func waitFor(_ text: String, count: Int = 1) throws {
            let deadline = Date().addingTimeInterval(Self.patience)
            while occurrences(of: text) < count {
                try #require(Date() < deadline, "timed out waiting for \(text.debugDescription) ×\(count); output so far: \(String(decoding: output, as: UTF8.self).debugDescription)")
                var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = read(master, &chunk, chunk.count)
                guard n > 0 else { break }
                output += chunk[0..<n]
            }
            #expect(occurrences(of: text) >= count, "the terminal closed before \(text.debugDescription)")
        }

        /// The output without carriage returns.
        var plainText: String { String(decoding: output.filter { $0 != 0x0D }, as: UTF8.self) }

        func occurrences(of text: String) -> Int {
            String(decoding: output, as: UTF8.self).components(separatedBy: text).count - 1
        }

        func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) } }
        func send(_ text: String) { send(Array(text.utf8)) }

        /// Waits for the process to end (`patience` at most) and returns its status.
        func finish() throws -> Int32 {
            let deadline = Date().addingTimeInterval(Self.patience)
            while process.isRunning {
                try #require(Date() < deadline, "the shell did not end")
                var chunk = [UInt8](repeating: 0, count: 4096)
                var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 50) > 0 {
                    let n = read(master, &chunk, chunk.count)
                    if n > 0 { output += chunk[0..<n] }
                }
            }
            return process.terminationStatus
        }
    }

    /// The prompt drawn on an empty line: a new line is being read (the editor redraws the
    /// prompt at every key, so the prompt alone says nothing).
    static let prompt = "oodata> \u{1B}[K"
    static let left: [UInt8] = [0x1B, 0x5B, 0x44]
    static let up: [UInt8] = [0x1B, 0x5B, 0x41]
    static let home: [UInt8] = [0x1B, 0x5B, 0x48]
    static let ctrlW: [UInt8] = [0x17]
    static let ctrlD: [UInt8] = [0x04]

    @Test("on a terminal the shell edits the line (arrows, Home, Ctrl-W, UTF-8), recalls earlier lines with ↑, keeps them for the next session only in the file OODATA_HISTORY names, and Ctrl-D leaves")
    func lineEditing() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        _ = try R.writeGeneratedCorpus(to: scratch.path + "/corpus", orders: 3)
        let store = scratch.path + "/store"
        let imported = try R.run(["import", scratch.path + "/corpus", store])
        try #require(imported.status == 0, "\(imported.stderr)")
        let history = scratch.path + "/history"
        let environment = ["OODATA_HISTORY": history]

        let first = try Terminal(["shell", store], environment: environment)
        try first.waitFor(Self.prompt)
        // "GET /SalesOrders/$cont" typed, then the missing "u" put in before the last letter.
        first.send("GET /SalesOrders/$cont")
        first.send(Self.left + Self.left)
        first.send("u")
        first.send("\r")
        try first.waitFor(Self.prompt, count: 2)
        // A word dropped with Ctrl-W, a word put in front with Home.
        first.send("/SalesOrders/$count nonsense")
        first.send(Self.ctrlW)
        first.send(Self.home)
        first.send("GET ")
        first.send("\r")
        try first.waitFor(Self.prompt, count: 3)
        // ↑ twice recalls the first line; Enter runs it again.
        first.send(Self.up)
        first.send(Self.up)
        first.send("\r")
        try first.waitFor(Self.prompt, count: 4)
        first.send("history\r")
        try first.waitFor("3  GET /SalesOrders/$count")
        first.send(Self.ctrlD)
        #expect(try first.finish() == 0)
        let counts = String(decoding: first.output, as: UTF8.self).components(separatedBy: "\n").filter {
            $0.trimmingCharacters(in: .whitespacesAndNewlines) == "3"
        }
        // The answers, with the terminal's carriage returns taken out.
        #expect(first.plainText.components(separatedBy: "\n3\n").count - 1 == 3, "three counts of 3 orders: \(first.plainText.debugDescription)")
        #expect(!String(decoding: first.output, as: UTF8.self).contains("error"))

        // The next session recalls the last line of this one; UTF-8 is edited by character.
        let saved = try String(contentsOfFile: history, encoding: .utf8).split(separator: "\n")
        #expect(saved.last == "history")
        let second = try Terminal(["shell", store], environment: environment)
        try second.waitFor(Self.prompt)
        second.send(Self.up)
        second.send(Self.up)
        second.send("\r")
        try second.waitFor(Self.prompt, count: 2)
        #expect(second.plainText.contains("\n3\n"))
        second.send("GET /SalesOrders?$filter=Note eq 'ä€'")
        second.send(Self.left)
        second.send([0x7F])  // Backspace before the closing quote: the whole € goes
        second.send("\r")
        try second.waitFor(Self.prompt, count: 3)
        second.send("quit\r")
        #expect(try second.finish() == 0)
        let saved2 = try String(contentsOfFile: history, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(saved2.contains("GET /SalesOrders?$filter=Note eq 'ä'"))

        // Without OODATA_HISTORY the lines (the store's data, in clear) stay in the session:
        // ↑ recalls them, no file is written.
        let home = scratch.path + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let third = try Terminal(["shell", store], environment: ["HOME": home], removing: ["OODATA_HISTORY"])
        try third.waitFor(Self.prompt)
        third.send("GET /SalesOrders/$count\r")
        try third.waitFor(Self.prompt, count: 2)
        third.send(Self.up)
        third.send("\r")
        try third.waitFor(Self.prompt, count: 3)
        third.send(Self.ctrlD)
        #expect(try third.finish() == 0)
        #expect(third.plainText.components(separatedBy: "\n3\n").count - 1 == 2, "\(third.plainText.debugDescription)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home).isEmpty)
    }
}
