#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A key as the line editor understands it, decoded from what a terminal sends (ASCII control
/// characters and the VT100/xterm escape sequences for arrows, Home, End and Delete).
enum EditorKey: Equatable {
    case text(Character)
    case enter, backspace, delete, left, right, home, end, up, down
    case wordLeft, wordRight, killToEnd, killToStart, killWordBefore, clearScreen, interrupt
    /// Ctrl-D: the end of input on an empty line, else Delete.
    case endOfInput
    /// A sequence the editor does not take.
    case ignored
}

/// Turns the bytes a terminal sends into keys, one byte at a time (a sequence may be split
/// across reads). UTF-8 text is gathered into characters; invalid bytes are dropped.
struct KeyDecoder {
    private var pending: [UInt8] = []

    mutating func feed(_ byte: UInt8) -> EditorKey? {
        pending.append(byte)
        let first = pending[0]
        if first == 0x1B { return escape() }
        if first < 0x80 {
            pending.removeAll()
            return Self.control(first)
        }
        // UTF-8: the lead byte gives the length.
        let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 0
        guard length > 0 else {
            pending.removeAll()
            return .ignored
        }
        guard pending.count == length else {
            if pending.count > 1, pending.last.map({ $0 & 0xC0 != 0x80 }) == true {
                pending.removeAll()
                return .ignored
            }
            return nil
        }
        defer { pending.removeAll() }
        guard let text = String(validating: pending, as: UTF8.self), let character = text.first else { return .ignored }
        return .text(character)
    }

    private static func control(_ byte: UInt8) -> EditorKey {
        switch byte {
        case 0x0D, 0x0A: return .enter
        case 0x7F, 0x08: return .backspace
        case 0x01: return .home
        case 0x05: return .end
        case 0x02: return .left
        case 0x06: return .right
        case 0x10: return .up
        case 0x0E: return .down
        case 0x0B: return .killToEnd
        case 0x15: return .killToStart
        case 0x17: return .killWordBefore
        case 0x0C: return .clearScreen
        case 0x03: return .interrupt
        case 0x04: return .endOfInput
        case 0x09: return .text(" ")
        case 0x20...0x7E: return .text(Character(Unicode.Scalar(byte)))
        default: return .ignored
        }
    }

    /// `ESC [ …` (CSI) and `ESC O …` (SS3) sequences, and `ESC b`/`ESC f` (word moves).
    private mutating func escape() -> EditorKey? {
        guard pending.count >= 2 else { return nil }
        let second = pending[1]
        switch second {
        case UInt8(ascii: "b"):
            pending.removeAll()
            return .wordLeft
        case UInt8(ascii: "f"):
            pending.removeAll()
            return .wordRight
        case UInt8(ascii: "["), UInt8(ascii: "O"):
            guard pending.count >= 3 else { return nil }
            let last = pending[pending.count - 1]
            // Parameters and intermediates (digits, `;`) until a final byte in 0x40–0x7E.
            guard (0x40...0x7E).contains(last) else {
                if pending.count > 16 {
                    pending.removeAll()
                    return .ignored
                }
                return nil
            }
            let parameters = String(decoding: pending[2..<(pending.count - 1)], as: UTF8.self)
            pending.removeAll()
            switch (last, parameters) {
            case (UInt8(ascii: "A"), _): return .up
            case (UInt8(ascii: "B"), _): return .down
            case (UInt8(ascii: "C"), "1;5"), (UInt8(ascii: "C"), "1;3"): return .wordRight
            case (UInt8(ascii: "D"), "1;5"), (UInt8(ascii: "D"), "1;3"): return .wordLeft
            case (UInt8(ascii: "C"), _): return .right
            case (UInt8(ascii: "D"), _): return .left
            case (UInt8(ascii: "H"), _): return .home
            case (UInt8(ascii: "F"), _): return .end
            case (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): return .home
            case (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): return .end
            case (UInt8(ascii: "~"), "3"): return .delete
            default: return .ignored
            }
        default:
            pending.removeAll()
            return .ignored
        }
    }
}

/// The line being edited, the cursor in it, and the history it can recall: what each key does,
/// with no terminal involved.
struct LineBuffer {
    enum Outcome: Equatable {
        case editing
        /// Enter: the line is done.
        case submitted(String)
        /// Ctrl-D on an empty line.
        case endOfInput
        /// Ctrl-C: the line is dropped.
        case interrupted
        case clearScreen
    }

    private(set) var characters: [Character] = []
    private(set) var cursor = 0
    /// Older entries first.
    var history: [String]
    /// The entry shown (history.count: the line being typed), and that line kept aside.
    private var shown: Int
    private var draft: [Character] = []

    init(history: [String] = []) {
        self.history = history
        self.shown = history.count
    }

    var text: String { String(characters) }

    mutating func apply(_ key: EditorKey) -> Outcome {
        switch key {
        case .text(let character):
            characters.insert(character, at: cursor)
            cursor += 1
        case .enter:
            return .submitted(text)
        case .backspace:
            if cursor > 0 {
                characters.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete:
            if cursor < characters.count { characters.remove(at: cursor) }
        case .endOfInput:
            if characters.isEmpty { return .endOfInput }
            if cursor < characters.count { characters.remove(at: cursor) }
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = characters.count
        case .wordLeft: cursor = wordStart(before: cursor)
        case .wordRight:
            var i = cursor
            while i < characters.count, !isWord(characters[i]) { i += 1 }
            while i < characters.count, isWord(characters[i]) { i += 1 }
            cursor = i
        case .killToEnd: characters.removeSubrange(cursor...)
        case .killToStart:
            characters.removeSubrange(..<cursor)
            cursor = 0
        case .killWordBefore:
            let start = wordStart(before: cursor)
            characters.removeSubrange(start..<cursor)
            cursor = start
        case .up: recall(shown - 1)
        case .down: recall(shown + 1)
        case .clearScreen: return .clearScreen
        case .interrupt: return .interrupted
        case .ignored: break
        }
        return .editing
    }

    private func isWord(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    private func wordStart(before position: Int) -> Int {
        var i = position
        while i > 0, !isWord(characters[i - 1]) { i -= 1 }
        while i > 0, isWord(characters[i - 1]) { i -= 1 }
        return i
    }

    /// Shows history entry `index` (the draft at history.count), the cursor at its end.
    private mutating func recall(_ index: Int) {
        guard index >= 0, index <= history.count, index != shown else { return }
        if shown == history.count { draft = characters }
        shown = index
        characters = index == history.count ? draft : Array(history[index])
        cursor = characters.count
    }

    /// A new empty line, history positioned after its last entry.
    mutating func reset() {
        characters = []
        cursor = 0
        draft = []
        shown = history.count
    }
}

/// Line editing with history on a terminal: the terminal is put in raw mode while a line is
/// read and restored before the line is returned. Nil when standard input or output is not a
/// terminal (or `TERM` is `dumb`): the shell then reads lines as they come.
final class TerminalLineEditor {
    private var buffer: LineBuffer
    private let historyFile: String?
    static let historyLimit = 1_000

    init?(historyFile: String?) {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1, ProcessInfo.processInfo.environment["TERM"] != "dumb" else { return nil }
        self.historyFile = historyFile
        var entries: [String] = []
        if let historyFile, let text = try? String(contentsOfFile: historyFile, encoding: .utf8) {
            entries = text.split(separator: "\n").map(String.init).suffix(Self.historyLimit)
        }
        buffer = LineBuffer(history: entries)
    }

    /// The history file of `offline-odata shell`: only where `OODATA_HISTORY` names one. Lines
    /// hold URLs and bodies with the store's data, which the store keeps encrypted: they are
    /// written to a plain file only when asked (0600), else kept for the session alone.
    static var defaultHistoryFile: String? {
        guard let path = ProcessInfo.processInfo.environment["OODATA_HISTORY"], !path.isEmpty else { return nil }
        return path
    }

    /// Adds a line to the history (and its file; a line of several lines stays in the session).
    func remember(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty, buffer.history.last != line else { return }
        buffer.history.append(line)
        if buffer.history.count > Self.historyLimit { buffer.history.removeFirst(buffer.history.count - Self.historyLimit) }
        guard let historyFile, !line.contains("\n") else { return }
        if let handle = FileHandle(forWritingAtPath: historyFile) ?? {
            // A history file that cannot be made leaves the history to this session (the open
            // below then finds no file).
            _ = FileManager.default.createFile(atPath: historyFile, contents: nil, attributes: [.posixPermissions: 0o600])
            return FileHandle(forWritingAtPath: historyFile)
        }() {
            handle.seekToEndOfFile()
            handle.write(Data((line + "\n").utf8))
            try? handle.close()
        }
    }

    /// Reads one line after `prompt`; nil at the end of input (Ctrl-D on an empty line, or
    /// the terminal gone). Ctrl-C drops the line and gives "".
    func readLine(prompt: String) -> String? {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return Swift.readLine() }
        var raw = saved
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return Swift.readLine() }
        defer { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        buffer.reset()
        var decoder = KeyDecoder()
        render(prompt)
        while true {
            var byte: UInt8 = 0
            let n = read(STDIN_FILENO, &byte, 1)
            if n < 0, errno == EINTR { continue }
            guard n == 1 else {
                write("\r\n")
                return nil
            }
            guard let key = decoder.feed(byte) else { continue }
            switch buffer.apply(key) {
            case .editing:
                render(prompt)
            case .submitted(let line):
                // The whole line's end in view before the output that follows.
                _ = buffer.apply(.end)
                render(prompt)
                write("\r\n")
                return line
            case .endOfInput:
                write("\r\n")
                return nil
            case .interrupted:
                write("^C\r\n")
                return ""
            case .clearScreen:
                write("\u{1B}[H\u{1B}[2J")
                render(prompt)
            }
        }
    }

    /// Redraws the prompt and the line on one terminal row, scrolled sideways so that the
    /// cursor stays in view when the line is wider than the terminal.
    private func render(_ prompt: String) {
        var size = winsize()
        let columns = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        let promptWidth = prompt.count
        let room = max(8, columns - promptWidth - 1)
        let characters = buffer.characters
        var start = 0
        if buffer.cursor >= room { start = buffer.cursor - room + 1 }
        let end = min(characters.count, start + room)
        let visible = String(characters[start..<end])
        write("\r" + prompt + visible + "\u{1B}[K")
        let back = end - buffer.cursor
        if back > 0 { write("\u{1B}[\(back)D") }
    }

    private func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return systemWrite(STDOUT_FILENO, base + offset, raw.count - offset)
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }
}

/// `write(2)`, under a name the editor's own `write` does not hide.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
