/// The regular expressions of `matchesPattern` (URL Conventions §5.1.1.7.1: ECMAScript syntax),
/// matched in time linear in the text: the pattern is compiled to a Thompson automaton and the
/// text is run through it as a set of live states (a Pike VM without captures), so no pattern can
/// make a match backtrack without bound (`(.*){25}x`, `^(a|aa)+$`).
///
/// Supported: literals and escapes (`\n`, `\t`, `\uXXXX`, `\u{…}`, `\xHH`, `\cX`, identity
/// escapes), `.`, classes (`[a-z]`, `[^…]`, `\d \D \w \W \s \S` inside and outside them),
/// anchors `^ $ \b \B`, groups (`(…)`, `(?:…)`, `(?<name>…)`), alternation, the quantifiers
/// `* + ? {n} {n,} {n,m}` and their lazy forms (a yes/no match does not depend on laziness), and
/// a leading `(?i)` for case-insensitive matching. Backreferences and lookaround need
/// backtracking and are refused with a typed error, as is a pattern whose automaton would pass
/// `maxProgramSize` states (a bound on the work per character).
struct LinearRegex: Sendable {
    struct PatternError: Error, Sendable {
        let message: String
        /// Offset in the pattern, in Unicode scalars.
        let offset: Int
        /// A construct the engine refuses by design (backreferences, lookaround), not a bad pattern.
        let unsupported: Bool
    }

    /// States of the automaton at most; each text character costs at most this many steps.
    static let maxProgramSize = 20_000

    private let program: [Instruction]
    private let ignoreCase: Bool

    init(_ pattern: String) throws(PatternError) {
        var parser = Parser(Array(pattern.unicodeScalars.map(\.value)))
        let node = try parser.parse()
        ignoreCase = parser.ignoreCase
        var compiler = Compiler(ignoreCase: parser.ignoreCase)
        try compiler.emit(node)
        compiler.program.append(.match)
        program = compiler.program
    }

    /// True when the pattern matches somewhere in `text` (ECMAScript `RegExp.test`).
    func matches(_ text: String) -> Bool {
        var input = text.unicodeScalars.map(\.value)
        if ignoreCase { for i in input.indices { input[i] = CaseFold.fold(input[i]) } }
        var current = StateSet(capacity: program.count)
        var next = StateSet(capacity: program.count)
        var stack: [Int] = []
        for position in 0...input.count {
            // Unanchored search: a new thread starts at every position.
            if addThread(0, at: position, input, &current, &stack) { return true }
            guard position < input.count else { break }
            let c = input[position]
            next.clear()
            for pc in current.members {
                let advances: Bool
                switch program[pc] {
                case .scalar(let s): advances = c == s
                case .any: advances = !Self.isLineTerminator(c)
                case .set(let set): advances = set.contains(c, ignoreCase: ignoreCase)
                default: advances = false
                }
                if advances, addThread(pc + 1, at: position + 1, input, &next, &stack) { return true }
            }
            swap(&current, &next)
        }
        return false
    }

    /// Adds `pc` and every state reachable from it without reading a character; true when the
    /// match state is among them.
    private func addThread(_ start: Int, at position: Int, _ input: [UInt32], _ set: inout StateSet, _ stack: inout [Int]) -> Bool {
        stack.removeAll(keepingCapacity: true)
        stack.append(start)
        while let pc = stack.popLast() {
            guard set.insert(pc) else { continue }
            switch program[pc] {
            case .match: return true
            case .jump(let target): stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                if holds(assertion, at: position, input) { stack.append(pc + 1) }
            case .scalar, .any, .set: break
            }
        }
        return false
    }

    private func holds(_ assertion: Assertion, at position: Int, _ input: [UInt32]) -> Bool {
        switch assertion {
        case .start: return position == 0
        case .end: return position == input.count
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && CharacterSet.isWord(input[position - 1])
            let after = position < input.count && CharacterSet.isWord(input[position])
            return (before != after) == (assertion == .wordBoundary)
        }
    }

    static func isLineTerminator(_ c: UInt32) -> Bool {
        c == 0x0A || c == 0x0D || c == 0x2028 || c == 0x2029
    }

    // MARK: - Program

    enum Assertion: Sendable, Equatable { case start, end, wordBoundary, notWordBoundary }

    enum Instruction: Sendable {
        case scalar(UInt32)
        case any
        case set(CharacterSet)
        case split(Int, Int)
        case jump(Int)
        case assert(Assertion)
        case match
    }

    /// A set of scalar ranges, possibly negated.
    struct CharacterSet: Sendable {
        var ranges: [ClosedRange<UInt32>] = []
        var negated = false

        func contains(_ c: UInt32, ignoreCase: Bool) -> Bool {
            var found = containsExactly(c)
            if !found, ignoreCase {
                // `c` is folded already; a range may hold only its other case.
                found = CaseFold.variants(of: c).contains(where: containsExactly)
            }
            return found != negated
        }

        private func containsExactly(_ c: UInt32) -> Bool {
            ranges.contains { $0.contains(c) }
        }

        static let digit = CharacterSet(ranges: [0x30...0x39])
        static let word = CharacterSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
        static let space = CharacterSet(ranges: [0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
                                                 0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF])

        static func isWord(_ c: UInt32) -> Bool { word.containsExactly(c) }
    }

    enum CaseFold {
        /// The simple lower-case mapping of a scalar (one scalar to one scalar), else itself.
        static func fold(_ c: UInt32) -> UInt32 {
            if c < 0x80 { return (0x41...0x5A).contains(c) ? c + 0x20 : c }
            guard let scalar = Unicode.Scalar(c) else { return c }
            let lower = scalar.properties.lowercaseMapping.unicodeScalars
            return lower.count == 1 ? lower.first?.value ?? c : c
        }

        static func variants(of c: UInt32) -> [UInt32] {
            guard let scalar = Unicode.Scalar(c) else { return [] }
            var out: [UInt32] = []
            for mapping in [scalar.properties.uppercaseMapping, scalar.properties.titlecaseMapping] {
                let scalars = mapping.unicodeScalars
                if scalars.count == 1, let v = scalars.first?.value, v != c { out.append(v) }
            }
            return out
        }
    }

    /// Members of a sparse set of program counters: O(1) insert, clear and membership.
    struct StateSet {
        private var dense: [Int]
        private var sparse: [Int]
        private(set) var count = 0

        init(capacity: Int) {
            dense = Array(repeating: 0, count: capacity)
            sparse = Array(repeating: 0, count: capacity)
        }

        mutating func insert(_ pc: Int) -> Bool {
            let slot = sparse[pc]
            if slot < count, dense[slot] == pc { return false }
            sparse[pc] = count
            dense[count] = pc
            count += 1
            return true
        }

        mutating func clear() { count = 0 }

        var members: ArraySlice<Int> { dense[0..<count] }
    }

    // MARK: - Syntax

    indirect enum Node {
        case empty
        case scalar(UInt32)
        case any
        case set(CharacterSet)
        case assert(Assertion)
        case concat([Node])
        case alternation([Node])
        case repetition(Node, min: Int, max: Int?)
    }

    struct Parser {
        let pattern: [UInt32]
        var pos = 0
        var ignoreCase = false
        /// Counted repetitions allowed in one pattern: bounds for `{n,m}` beyond which the
        /// program would pass its size limit anyway.
        static let maxCount = 10_000

        init(_ pattern: [UInt32]) { self.pattern = pattern }

        var atEnd: Bool { pos >= pattern.count }
        var current: UInt32? { atEnd ? nil : pattern[pos] }

        func fail(_ message: String, at offset: Int? = nil) -> PatternError {
            PatternError(message: message, offset: offset ?? pos, unsupported: false)
        }

        func refuse(_ message: String, at offset: Int) -> PatternError {
            PatternError(message: message, offset: offset, unsupported: true)
        }

        func peek(_ ascii: String, at offset: Int = 0) -> Bool {
            let scalars = Array(ascii.unicodeScalars.map(\.value))
            guard pos + offset + scalars.count <= pattern.count else { return false }
            return Array(pattern[(pos + offset)..<(pos + offset + scalars.count)]) == scalars
        }

        mutating func parse() throws(PatternError) -> Node {
            if peek("(?i)") {
                ignoreCase = true
                pos += 4
            }
            let node = try parseAlternation(depth: 0)
            if !atEnd { throw fail("unmatched ')'") }
            return node
        }

        mutating func parseAlternation(depth: Int) throws(PatternError) -> Node {
            guard depth < 200 else { throw fail("groups are nested too deeply") }
            var branches = [try parseSequence(depth: depth)]
            while current == 0x7C { // |
                pos += 1
                branches.append(try parseSequence(depth: depth))
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func parseSequence(depth: Int) throws(PatternError) -> Node {
            var items: [Node] = []
            while let c = current, c != 0x7C, c != 0x29 { // | )
                let atomStart = pos
                var atom = try parseAtom(depth: depth)
                if let (min, max) = try parseQuantifier() {
                    if case .assert = atom { throw fail("nothing to repeat", at: atomStart) }
                    atom = .repetition(atom, min: min, max: max)
                }
                items.append(atom)
            }
            switch items.count {
            case 0: return .empty
            case 1: return items[0]
            default: return .concat(items)
            }
        }

        /// `* + ? {n} {n,} {n,m}`, with an optional lazy `?`; nil when none follows.
        mutating func parseQuantifier() throws(PatternError) -> (Int, Int?)? {
            guard let c = current else { return nil }
            let result: (Int, Int?)
            switch c {
            case 0x2A: result = (0, nil); pos += 1
            case 0x2B: result = (1, nil); pos += 1
            case 0x3F: result = (0, 1); pos += 1
            case 0x7B:
                guard let counted = try parseBraces() else { return nil }
                result = counted
            default: return nil
            }
            if current == 0x3F { pos += 1 } // lazy: same yes/no answer
            if let next = current, next == 0x2A || next == 0x2B || next == 0x3F || (next == 0x7B && isBraceQuantifier()) {
                throw fail("nothing to repeat")
            }
            return result
        }

        func isBraceQuantifier() -> Bool {
            var probe = self
            return (try? probe.parseBraces()) != nil
        }

        /// `{n}`, `{n,}`, `{n,m}` at the cursor; nil (cursor unmoved) when the brace is a literal.
        mutating func parseBraces() throws(PatternError) -> (Int, Int?)? {
            let start = pos
            pos += 1
            guard let min = scanNumber() else { pos = start; return nil }
            var max: Int? = min
            if current == 0x2C { // ,
                pos += 1
                max = scanNumber()
                if max == nil, current != 0x7D { pos = start; return nil }
            }
            guard current == 0x7D else { pos = start; return nil }
            pos += 1
            if let max, max < min { throw fail("numbers out of order in {\(min),\(max)}", at: start) }
            if min > Self.maxCount || (max ?? 0) > Self.maxCount {
                throw fail("a repetition count above \(Self.maxCount)", at: start)
            }
            return (min, max)
        }

        mutating func scanNumber() -> Int? {
            var value = 0
            var digits = 0
            while let c = current, (0x30...0x39).contains(c) {
                // Saturate: counts beyond the limit are refused by the caller.
                value = min(value * 10 + Int(c - 0x30), Self.maxCount + 1)
                digits += 1
                pos += 1
            }
            return digits > 0 ? value : nil
        }

        mutating func parseAtom(depth: Int) throws(PatternError) -> Node {
            guard let c = current else { throw fail("unexpected end of pattern") }
            let start = pos
            pos += 1
            switch c {
            case 0x2E: return .any
            case 0x5E: return .assert(.start)
            case 0x24: return .assert(.end)
            case 0x5B: return .set(try parseClass())
            case 0x28: return try parseGroup(depth: depth, start: start)
            case 0x5C: return try parseEscape(inClass: false)
            case 0x2A, 0x2B, 0x3F: throw fail("nothing to repeat", at: start)
            case 0x7B:
                pos = start
                if isBraceQuantifier() { throw fail("nothing to repeat", at: start) }
                pos += 1
                return .scalar(c)
            default: return .scalar(c)
            }
        }

        mutating func parseGroup(depth: Int, start: Int) throws(PatternError) -> Node {
            if current == 0x3F { // ?
                if peek("?:") {
                    pos += 2
                } else if peek("?=") || peek("?!") || peek("?<=") || peek("?<!") {
                    throw refuse("lookaround assertions are not supported (they need backtracking)", at: start)
                } else if peek("?<") {
                    pos += 2
                    while let c = current, c != 0x3E { // >
                        guard CharacterSet.isWord(c) || c > 0x7F else { throw fail("invalid group name") }
                        pos += 1
                    }
                    guard current == 0x3E else { throw fail("unterminated group name", at: start) }
                    pos += 1
                } else {
                    throw fail("invalid group", at: start)
                }
            }
            let inner = try parseAlternation(depth: depth + 1)
            guard current == 0x29 else { throw fail("missing ')'", at: start) }
            pos += 1
            return inner
        }

        mutating func parseClass() throws(PatternError) -> CharacterSet {
            let start = pos - 1
            var set = CharacterSet()
            if current == 0x5E { set.negated = true; pos += 1 }
            while true {
                guard let c = current else { throw fail("missing ']'", at: start) }
                if c == 0x5D { // `]` closes; as in ECMAScript, `[]` matches nothing and `[^]` anything
                    pos += 1
                    return set
                }
                let low = try classMember()
                if current == 0x2D, pos + 1 < pattern.count, pattern[pos + 1] != 0x5D { // a-z
                    pos += 1
                    let high = try classMember()
                    guard case .single(let a) = low, case .single(let b) = high else {
                        throw fail("a class escape cannot bound a range")
                    }
                    guard a <= b else { throw fail("range out of order in character class") }
                    set.ranges.append(a...b)
                } else {
                    switch low {
                    case .single(let a): set.ranges.append(a...a)
                    case .ranges(let inner, let negated):
                        if negated {
                            set.ranges += Self.complement(inner)
                        } else {
                            set.ranges += inner
                        }
                    }
                }
            }
        }

        enum ClassMember { case single(UInt32), ranges([ClosedRange<UInt32>], negated: Bool) }

        mutating func classMember() throws(PatternError) -> ClassMember {
            guard let c = current else { throw fail("missing ']'") }
            pos += 1
            guard c == 0x5C else { return .single(c) }
            switch try parseEscape(inClass: true) {
            case .scalar(let s): return .single(s)
            case .set(let set): return .ranges(set.ranges, negated: set.negated)
            default: throw fail("invalid escape in character class")
            }
        }

        static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
            var out: [ClosedRange<UInt32>] = []
            var next: UInt32 = 0
            for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if range.lowerBound > next { out.append(next...(range.lowerBound - 1)) }
                next = max(next, range.upperBound &+ 1)
            }
            if next <= 0x10FFFF { out.append(next...0x10FFFF) }
            return out
        }

        /// The escape after a backslash (already consumed).
        mutating func parseEscape(inClass: Bool) throws(PatternError) -> Node {
            let start = pos - 1
            guard let c = current else { throw fail("pattern ends with '\\'", at: start) }
            pos += 1
            switch c {
            case 0x64: return .set(.digit)                                         // d
            case 0x44: return .set(CharacterSet(ranges: CharacterSet.digit.ranges, negated: true))
            case 0x77: return .set(.word)                                          // w
            case 0x57: return .set(CharacterSet(ranges: CharacterSet.word.ranges, negated: true))
            case 0x73: return .set(.space)                                         // s
            case 0x53: return .set(CharacterSet(ranges: CharacterSet.space.ranges, negated: true))
            case 0x62: return inClass ? .scalar(0x08) : .assert(.wordBoundary)     // b
            case 0x42:
                if inClass { throw fail("\\B in a character class", at: start) }
                return .assert(.notWordBoundary)
            case 0x6E: return .scalar(0x0A)
            case 0x72: return .scalar(0x0D)
            case 0x74: return .scalar(0x09)
            case 0x66: return .scalar(0x0C)
            case 0x76: return .scalar(0x0B)
            case 0x30:
                if let d = current, (0x30...0x39).contains(d) { throw fail("octal escapes are not allowed", at: start) }
                return .scalar(0)
            case 0x31...0x39:
                if inClass { throw fail("a backreference in a character class", at: start) }
                throw refuse("backreferences are not supported (they need backtracking)", at: start)
            case 0x63: // cX
                guard let letter = current, (0x41...0x5A).contains(letter) || (0x61...0x7A).contains(letter) else {
                    throw fail("\\c needs a letter", at: start)
                }
                pos += 1
                return .scalar(letter % 32)
            case 0x78: // xHH
                return .scalar(try hexDigits(2, at: start))
            case 0x75: // uXXXX or u{…}
                if current == 0x7B {
                    pos += 1
                    var value: UInt32 = 0
                    var digits = 0
                    while let d = current, let v = Self.hexValue(d) {
                        value = value &* 16 &+ v
                        digits += 1
                        pos += 1
                        guard digits <= 6 else { throw fail("\\u{…} is too long", at: start) }
                    }
                    guard digits > 0, current == 0x7D, value <= 0x10FFFF else { throw fail("invalid \\u{…} escape", at: start) }
                    pos += 1
                    return .scalar(value)
                }
                return .scalar(try hexDigits(4, at: start))
            case 0x70, 0x50: // p{…}, P{…}
                throw refuse("Unicode property escapes are not supported", at: start)
            case 0x6B: // k<name>
                throw refuse("backreferences are not supported (they need backtracking)", at: start)
            default:
                return .scalar(c)
            }
        }

        mutating func hexDigits(_ count: Int, at start: Int) throws(PatternError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let d = current, let v = Self.hexValue(d) else { throw fail("invalid hexadecimal escape", at: start) }
                value = value * 16 + v
                pos += 1
            }
            return value
        }

        static func hexValue(_ c: UInt32) -> UInt32? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
    }

    // MARK: - Compilation

    struct Compiler {
        let ignoreCase: Bool
        var program: [Instruction] = []

        init(ignoreCase: Bool) { self.ignoreCase = ignoreCase }

        mutating func append(_ instruction: Instruction) throws(PatternError) {
            guard program.count < LinearRegex.maxProgramSize else {
                throw PatternError(message: "the pattern is too complex (more than \(LinearRegex.maxProgramSize) automaton states)",
                                   offset: 0, unsupported: true)
            }
            program.append(instruction)
        }

        mutating func emit(_ node: Node) throws(PatternError) {
            switch node {
            case .empty: break
            case .scalar(let c): try append(.scalar(ignoreCase ? CaseFold.fold(c) : c))
            case .any: try append(.any)
            case .set(let set): try append(.set(set))
            case .assert(let a): try append(.assert(a))
            case .concat(let items):
                for item in items { try emit(item) }
            case .alternation(let branches):
                // split L1, next; L1: branch; jmp end; next: split … ; last branch
                var jumps: [Int] = []
                for (index, branch) in branches.enumerated() {
                    if index < branches.count - 1 {
                        let split = program.count
                        try append(.split(0, 0))
                        try emit(branch)
                        jumps.append(program.count)
                        try append(.jump(0))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        try emit(branch)
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case .repetition(let body, let min, let max):
                for _ in 0..<min { try emit(body) }
                if let max {
                    // Optional copies, nested: split into the copy or out to the end.
                    var splits: [Int] = []
                    for _ in min..<max {
                        splits.append(program.count)
                        try append(.split(0, 0))
                        try emit(body)
                    }
                    for split in splits { program[split] = .split(split + 1, program.count) }
                } else {
                    let loop = program.count
                    try append(.split(0, 0))
                    try emit(body)
                    try append(.jump(loop))
                    program[loop] = .split(loop + 1, program.count)
                }
            }
        }
    }
}
