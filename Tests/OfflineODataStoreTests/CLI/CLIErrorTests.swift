import Foundation
import Testing

/// Bad input to the CLI: one line on stderr that says what was wrong, and a non-zero exit code.
@Suite struct CLIErrorTests {
    typealias R = CLIRunner

    func expectOneLineError(_ output: R.Output, status: Int32, mentioning text: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.status == status, "status \(output.status): \(output.stderr)", sourceLocation: sourceLocation)
        #expect(output.errorLines.count == 1, "stderr: \(output.stderr)", sourceLocation: sourceLocation)
        #expect(output.stderr.hasPrefix("error: "), "stderr: \(output.stderr)", sourceLocation: sourceLocation)
        #expect(output.stderr.contains(text), "stderr: \(output.stderr)", sourceLocation: sourceLocation)
    }

    func makeStore(_ scratch: R.Scratch) throws -> String {
        _ = try R.writeGeneratedCorpus(to: scratch.path + "/corpus", orders: 4)
        let result = try R.run(["import", scratch.path + "/corpus", scratch.path + "/store"])
        try #require(result.status == 0, "import failed: \(result.stderr)")
        return scratch.path + "/store"
    }

    @Test("a wrong passphrase has one error name in every command (query, shell, check, stats, rekey) and exit code 2")
    func wrongPassphraseEverywhere() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let store = try makeStore(scratch)
        for arguments in [["query", store, "SalesOrders/$count"], ["shell", store, "-c", "GET SalesOrders/$count"], ["check", store],
                          ["stats", store], ["rekey", store, "--new-passphrase", "other"]] {
            expectOneLineError(try R.run(arguments, passphrase: "wrong"), status: 2, mentioning: "wrongEncryptionKey (3254)")
        }
    }

    @Test("import --index naming no property fails before importing anything and leaves no store behind; a directory that held other files keeps them")
    func importValidatesIndexesFirst() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        _ = try R.writeGeneratedCorpus(to: scratch.path + "/corpus", orders: 4)
        let bad = try R.run(["import", scratch.path + "/corpus", scratch.path + "/new", "--index", "SalesOrders:Nope"])
        expectOneLineError(bad, status: 1, mentioning: "invalidIndexProperty")
        #expect(!bad.stdout.contains("entities"), "imported before failing: \(bad.stdout)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/new"))
        try FileManager.default.createDirectory(atPath: scratch.path + "/kept", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: scratch.path + "/kept/notes.txt", contents: Data("mine".utf8))
        _ = try R.run(["import", scratch.path + "/corpus", scratch.path + "/kept", "--index", "SalesOrders:Nope"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/kept") == ["notes.txt"])
        // Without --replace, the next import with a good index goes through.
        let good = try R.run(["import", scratch.path + "/corpus", scratch.path + "/kept", "--index", "SalesOrders:CustomerID"])
        #expect(good.status == 0, "\(good.stderr)")
    }

    @Test func unknownCommandAndMissingArguments() throws {
        expectOneLineError(try R.run(["frobnicate"]), status: 64, mentioning: "frobnicate")
        expectOneLineError(try R.run(["query"]), status: 64, mentioning: "<path>")
        expectOneLineError(try R.run(["demo", "--orders", "0"]), status: 64, mentioning: "--orders")
    }

    @Test func missingFoldersAndStores() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        expectOneLineError(try R.run(["import", scratch.path + "/no-corpus", scratch.path + "/s"]), status: 1,
                           mentioning: "no such corpus folder")
        try FileManager.default.createDirectory(atPath: scratch.path + "/empty", withIntermediateDirectories: true)
        expectOneLineError(try R.run(["import", scratch.path + "/empty", scratch.path + "/s"]), status: 1,
                           mentioning: "metadata.xml")
        _ = FileManager.default.createFile(atPath: scratch.path + "/a-file", contents: Data("x".utf8))
        _ = try R.writeGeneratedCorpus(to: scratch.path + "/corpus", orders: 2)
        expectOneLineError(try R.run(["import", scratch.path + "/corpus", scratch.path + "/a-file"]), status: 1,
                           mentioning: "not a directory")
        expectOneLineError(try R.run(["query", scratch.path + "/nothing", "X"]), status: 1, mentioning: "no such store directory")
        expectOneLineError(try R.run(["shell", scratch.path, "-c", "GET /X"]), status: 1, mentioning: "no OfflineStore")
    }

    @Test func badURLsBodiesAndPassphrases() throws {
        let scratch = R.Scratch()
        defer { scratch.cleanup() }
        let store = try makeStore(scratch)
        expectOneLineError(try R.run(["query", store, "SalesOrders?$filter=GrossAmount gt"]), status: 1, mentioning: "$filter")
        expectOneLineError(try R.run(["query", store, "NoSuchSet"]), status: 1, mentioning: "NoSuchSet")
        expectOneLineError(try R.run(["query", store, "SalesOrders/$count", "--passphrase", "wrong"], passphrase: nil),
                           status: 2, mentioning: "passphrase")
        expectOneLineError(try R.run(["query", store, "SalesOrders/$count"], passphrase: nil), status: 1, mentioning: "--passphrase")
        expectOneLineError(try R.run(["import", scratch.path + "/corpus", store]), status: 1, mentioning: "--replace")

        let shell = try R.run(["shell", store, "-c", "POST /SalesOrders {\"SalesOrderID\":", "-c", "FETCH /SalesOrders",
                               "-c", "PATCH /SalesOrders('0500000000')", "-c", "GET /SalesOrders?$top=x"])
        #expect(shell.status == 4)
        #expect(shell.stderr.contains("error: bad JSON body"))
        #expect(shell.stderr.contains("error: unknown command 'FETCH'"))
        #expect(shell.stderr.contains("error: PATCH needs a JSON body"))
        #expect(shell.stdout.contains("400 Bad Request"))      // the bad $top answered like a server would
        #expect(shell.stderr.contains("4 line(s) failed"))
        // Nothing was queued by the failed lines.
        let queue = try R.run(["query", store, "RequestQueue/$count"])
        #expect(queue.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}
