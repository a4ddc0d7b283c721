import BenchCommon
import CSQLite
import CSodiumBench
import Foundation
import OfflineODataModel
import OfflineODataStore

// The media benchmark (`make bench-media`, issue 33): writing and reading one stream of
// `--megabytes` MB (incompressible bytes, as a photo or a video is) by
//   file     write() in 64 KiB pieces to a plain file, one fsync at the end; read() back
//   ours     OfflineStore.writeMedia (encrypted with a raw key, durability .full: the last
//            commit is synced) and readMedia, 64 KiB pieces through async sequences
//   sqlite   64 KiB blobs in one transaction (WAL, synchronous=FULL), read back in order
// Each peer runs in its own process (`media-bench peer NAME`), rounds alternate, medians are
// reported. Memory: the peak RSS (VmHWM, reset before each phase) above the RSS right before it.
//
//   media-bench run --megabytes 100 --rounds 3 --out F.md --csv F.csv
//   media-bench peer NAME --megabytes N --dir D

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ fallback: String) -> String {
    guard let i = arguments.firstIndex(of: "--" + name), i + 1 < arguments.count else { return fallback }
    return arguments[i + 1]
}
func metric(_ name: String, _ value: Double) { print("METRIC \(name) \(value)") }

let piece = 64 << 10

/// Piece `n` of the stream: xorshift words, the same for every peer.
func makePiece(_ n: Int, count: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    var state = UInt64(n &+ 1) &* 0x9E37_79B9_7F4A_7C15
    out.withUnsafeMutableBytes { raw in
        let words = raw.bindMemory(to: UInt64.self)
        for i in 0..<words.count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            words[i] = state
        }
    }
    return out
}

func pieces(total: Int) -> [Int] {
    var sizes: [Int] = []
    var left = total
    while left > 0 {
        sizes.append(min(piece, left))
        left -= piece
    }
    return sizes
}

/// The stream as an async sequence of pieces, generated as they are asked for.
struct Generated: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let sizes: [Int]
    struct Iterator: AsyncIteratorProtocol {
        let sizes: [Int]
        var n = 0
        mutating func next() async -> [UInt8]? {
            guard n < sizes.count else { return nil }
            defer { n += 1 }
            return makePiece(n, count: sizes[n])
        }
    }
    func makeAsyncIterator() -> Iterator { Iterator(sizes: sizes) }
}

/// Times `body` and the memory it added: (seconds, peak RSS above the RSS before, in MiB).
func measure(_ body: () async throws -> Void) async rethrows -> (Double, Double) {
    let before = ProcStats.rss
    _ = ProcStats.resetPeak()
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let peak = ProcStats.peakRSS
    return (seconds, Double(peak > before ? peak - before : 0) / 1_048_576)
}

/// Drops the page cache of every file in `dir` (after syncing it), so that the next read comes
/// from the disk.
func evict(_ dir: String) {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
        let fd = open(dir + "/" + name, O_RDONLY)
        guard fd >= 0 else { continue }
        _ = fdatasync(fd)
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
        close(fd)
    }
}

func runPeer(_ name: String, megabytes: Int, dir: String) async throws {
    let total = megabytes * 1_000_000
    let sizes = pieces(total: total)
    var checksum: UInt64 = 0
    switch name {
    case "file":
        let path = dir + "/stream.bin"
        let (w, wm) = try await measure {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { throw BenchError("open \(path)") }
            for (n, size) in sizes.enumerated() {
                let bytes = makePiece(n, count: size)
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written == size else { throw BenchError("write") }
            }
            guard fsync(fd) == 0 else { throw BenchError("fsync") }
            close(fd)
        }
        let readAll = {
            let fd = open(path, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: piece)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                checksum &+= UInt64(buffer[0])
            }
            close(fd)
        }
        evict(dir)
        let (c, _) = await measure { readAll() }
        let (r, rm) = await measure { readAll() }
        report(w, wm, r, rm, c, total)
    case "ours", "ours-octet":
        let parameters = OfflineStoreParameters(storeName: "media", storePath: dir, encryption: .key(Array(repeating: 0x42, count: 32)),
                                                durability: .full, keyDerivation: .minimum)
        let metadata = Array("""
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="M">
              <EntityType Name="Photo" HasStream="true"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>
              <EntityContainer Name="C"><EntitySet Name="Photos" EntityType="M.Photo"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """.utf8)
        let store = try await OfflineStore.open(metadata: metadata, parameters: parameters)
        _ = try store.execute(.post, "Photos", body: #"{"ID":1}"#)
        let (w, wm) = try await measure {
            // `video/mp4`: a type known to be compressed (no LZ4 tried on its blocks);
            // `ours-octet`: `application/octet-stream`, where LZ4 is tried on every block.
            try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: name == "ours" ? "video/mp4" : "application/octet-stream",
                                       from: Generated(sizes: sizes))
        }
        let readAll = { () async throws in
            for try await chunk in try store.readMedia(set: "Photos", key: [.int32(1)]) { checksum &+= UInt64(chunk[0]) }
        }
        evict(dir + "/media.oostore")
        evict(dir)
        let (c, _) = try await measure { try await readAll() }
        let (r, rm) = try await measure { try await readAll() }
        try store.close()
        report(w, wm, r, rm, c, total)
    case "sqlite":
        var db: OpaquePointer?
        guard sqlite3_open_v2(dir + "/media.sqlite", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw BenchError("sqlite open")
        }
        for sql in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "CREATE TABLE chunks(gen INTEGER, idx INTEGER, data BLOB, PRIMARY KEY(gen, idx))"] {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError(sql) }
        }
        let (w, wm) = try await measure {
            var insert: OpaquePointer?
            sqlite3_prepare_v2(db, "INSERT INTO chunks VALUES(1, ?1, ?2)", -1, &insert, nil)
            sqlite3_exec(db, "BEGIN", nil, nil, nil)
            for (n, size) in sizes.enumerated() {
                let bytes = makePiece(n, count: size)
                sqlite3_bind_int64(insert, 1, Int64(n))
                _ = bytes.withUnsafeBytes { sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), nil) }
                guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError("insert") }
                sqlite3_reset(insert)
            }
            guard sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK else { throw BenchError("commit") }
            sqlite3_finalize(insert)
        }
        let readAll = {
            var select: OpaquePointer?
            sqlite3_prepare_v2(db, "SELECT data FROM chunks WHERE gen = 1 ORDER BY idx", -1, &select, nil)
            while sqlite3_step(select) == SQLITE_ROW {
                let count = Int(sqlite3_column_bytes(select, 0))
                if let blob = sqlite3_column_blob(select, 0) {
                    let bytes = Array(UnsafeRawBufferPointer(start: blob, count: count))
                    checksum &+= UInt64(bytes[0])
                }
            }
            sqlite3_finalize(select)
        }
        evict(dir)
        let (c, _) = await measure { readAll() }
        let (r, rm) = await measure { readAll() }
        sqlite3_close(db)
        report(w, wm, r, rm, c, total)
    case "ours-upload", "ours-upload-whole":
        try await runUploadPeer(whole: name == "ours-upload-whole", megabytes: megabytes, dir: dir)
    default:
        throw BenchError("unknown peer \(name)")
    }
    if checksum == 42 { print("") }   // keeps the reads from being optimised away
}

func report(_ w: Double, _ wm: Double, _ r: Double, _ rm: Double, _ cold: Double, _ total: Int) {
    metric("write_mbs", Double(total) / 1e6 / w)
    metric("read_cold_mbs", Double(total) / 1e6 / cold)
    metric("read_mbs", Double(total) / 1e6 / r)
    metric("write_mem_mib", wm)
    metric("read_mem_mib", rm)
}

// MARK: driver

func runWorker(_ peer: String, megabytes: Int) throws -> [String: Double] {
    let dir = NSTemporaryDirectory() + "media-bench-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["peer", peer, "--megabytes", "\(megabytes)", "--dir", dir]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchError("peer \(peer) exited \(process.terminationStatus)") }
    var metrics: [String: Double] = [:]
    for line in output.split(separator: "\n") where line.hasPrefix("METRIC ") {
        let parts = line.split(separator: " ")
        if parts.count == 3, let value = Double(parts[2]) { metrics[String(parts[1])] = value }
    }
    return metrics
}

/// The cipher's ceiling for a read from the page cache: MB/s at which one core decrypts 64 KiB
/// pieces with AES-256-GCM (the suite the store uses where the CPU has AES instructions),
/// fastest of 3 passes over `megabytes`. Nil without AES instructions.
func cipherCeiling(megabytes: Int) -> Double? {
    guard sodium_init() >= 0, crypto_aead_aes256gcm_is_available() == 1 else { return nil }
    let size = 64 << 10
    let plain = makePiece(0, count: size)
    var key = [UInt8](repeating: 7, count: 32)
    let nonce = [UInt8](repeating: 1, count: 12)
    var state = crypto_aead_aes256gcm_state()
    _ = crypto_aead_aes256gcm_beforenm(&state, &key)
    var sealed = [UInt8](repeating: 0, count: size + 16)
    var sealedLength: UInt64 = 0
    _ = crypto_aead_aes256gcm_encrypt_afternm(&sealed, &sealedLength, plain, UInt64(size), nil, 0, nil, nonce, &state)
    var opened = [UInt8](repeating: 0, count: size)
    var openedLength: UInt64 = 0
    let pieces = max(1, (megabytes << 20) / size)
    var best = 0.0
    for _ in 0..<3 {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<pieces {
            guard crypto_aead_aes256gcm_decrypt_afternm(&opened, &openedLength, nil, sealed, sealedLength, nil, 0, nonce, &state) == 0 else { return nil }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        best = max(best, Double(pieces * size) / 1e6 / seconds)
    }
    return best
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

if arguments.first == "peer", arguments.count >= 2 {
    try await runPeer(arguments[1], megabytes: Int(option("megabytes", "100")) ?? 100, dir: option("dir", "/tmp"))
} else {
    let megabytes = Int(option("megabytes", "100")) ?? 100
    let rounds = Int(option("rounds", "3")) ?? 3
    let storePeers = ["file", "ours", "ours-octet", "sqlite"]
    let peers = storePeers + ["ours-upload", "ours-upload-whole"]
    var results: [String: [String: [Double]]] = [:]
    for round in 0..<rounds {
        for peer in round % 2 == 0 ? peers : peers.reversed() {
            let metrics = try runWorker(peer, megabytes: megabytes)
            print("round \(round + 1) \(peer): " + metrics.sorted { $0.key < $1.key }.map { "\($0.key)=\(String(format: "%.1f", $0.value))" }.joined(separator: " "))
            for (name, value) in metrics { results[peer, default: [:]][name, default: []].append(value) }
        }
    }
    func m(_ peer: String, _ name: String) -> Double { median(results[peer]?[name] ?? []) }
    func goal(_ value: Double, _ bar: Double) -> String { value >= bar ? "met" : "bar not met" }
    let writeRatio = m("ours", "write_mbs") / max(m("file", "write_mbs"), 1e-9)
    let coldRatio = m("ours", "read_cold_mbs") / max(m("file", "read_cold_mbs"), 1e-9)
    let memory = max(m("ours", "write_mem_mib"), m("ours", "read_mem_mib"))
    var md = "## Media streams (issue 33)\n\n"
    md += "<!-- goals:begin -->\n"
    let octetRatio = m("ours-octet", "write_mbs") / max(m("file", "write_mbs"), 1e-9)
    let warmRatio = m("ours", "read_mbs") / max(m("file", "read_mbs"), 1e-9)
    md += "| \(megabytes) MB stream, write (video/mp4) | ours encrypted ≥ 0.5x a plain file | | \(String(format: "%.3f", writeRatio))x | \(goal(writeRatio, 0.5)) |\n"
    md += "| \(megabytes) MB stream, write (application/octet-stream, LZ4 sampled) | ours encrypted ≥ 0.5x a plain file | | \(String(format: "%.3f", octetRatio))x | \(goal(octetRatio, 0.5)) |\n"
    md += "| \(megabytes) MB stream, read from disk | ours encrypted ≥ 0.5x a plain file | | \(String(format: "%.3f", coldRatio))x | \(goal(coldRatio, 0.5)) |\n"
    md += "| \(megabytes) MB stream, read from the page cache | ours encrypted ≥ 0.5x a plain file | | \(String(format: "%.3f", warmRatio))x | \(goal(warmRatio, 0.5)) |\n"
    md += "| \(megabytes) MB stream, peak memory | < 16 MiB above the store's baseline | | \(String(format: "%.1f", memory)) MiB | \(memory < 16 ? "met" : "bar not met") |\n"
    let uploadMemory = m("ours-upload", "upload_mem_mib")
    md += "| \(megabytes) MB stream, upload through the default transport, peak memory | < 16 MiB above the store's baseline | | \(String(format: "%.1f", uploadMemory)) MiB (handed over whole: \(String(format: "%.1f", m("ours-upload-whole", "upload_mem_mib"))) MiB) | \(uploadMemory < 16 ? "met" : "bar not met") |\n"
    md += "<!-- goals:end -->\n\n"
    md += "One stream of \(megabytes) MB of incompressible bytes, written in 64 KiB pieces and read back; ours (`video/mp4`: a type known to be "
    md += "compressed, no LZ4 tried on its blocks) and ours-octet (`application/octet-stream`: LZ4 tried on the first 8 MiB and on a sample of the chunks that start the stream's run, the run's blocks then not offered to LZ4 since the sample did not shrink) encrypted (raw key) with "
    md += "durability .full (the naming commit synced), the file with one fsync at the end, SQLite 64 KiB blobs in one transaction "
    md += "(WAL, synchronous=FULL). Each peer in its own process, \(rounds) alternating rounds, medians. Memory: peak RSS above the RSS "
    md += "before the phase. Command: `make bench-media` (`media-bench run --megabytes \(megabytes) --rounds \(rounds)`).\n\n"
    md += "Reads: *cold* right after the files were synced and dropped from the page cache (`posix_fadvise` DONTNEED), then *warm* "
    md += "(a second read, the files in the page cache).\n\n"
    md += "| peer | write MB/s | read cold MB/s | read warm MB/s | write: peak memory above baseline | read: peak memory above baseline |\n"
    md += "| --- | ---: | ---: | ---: | ---: | ---: |\n"
    var csv = "peer,write_mbs,read_cold_mbs,read_mbs,write_mem_mib,read_mem_mib\n"
    for peer in storePeers {
        md += "| \(peer) | \(String(format: "%.0f", m(peer, "write_mbs"))) | \(String(format: "%.0f", m(peer, "read_cold_mbs"))) | "
        md += "\(String(format: "%.0f", m(peer, "read_mbs"))) | "
        md += "\(String(format: "%.1f", m(peer, "write_mem_mib"))) MiB | \(String(format: "%.1f", m(peer, "read_mem_mib"))) MiB |\n"
        csv += "\(peer),\(m(peer, "write_mbs")),\(m(peer, "read_cold_mbs")),\(m(peer, "read_mbs")),\(m(peer, "write_mem_mib")),\(m(peer, "read_mem_mib"))\n"
    }
    func ratio(_ name: String, _ peer: String) -> String { String(format: "%.2f", m("ours", name) / max(m(peer, name), 1e-9)) + "x" }
    md += "\nRatios, ours against the file: write \(ratio("write_mbs", "file")), read cold \(ratio("read_cold_mbs", "file")), "
    md += "read warm \(ratio("read_mbs", "file")) (goal: at least 0.5x); against SQLite: write \(ratio("write_mbs", "sqlite")), "
    md += "read cold \(ratio("read_cold_mbs", "sqlite")), read warm \(ratio("read_mbs", "sqlite")). Memory goal: under 16 MiB above the baseline.\n"
    md += "\nUpload: a provider whose back end is a loopback sink (it reads and drops the body; a chunked body would be refused) "
    md += "downloads one photo entity, the \(megabytes) MB stream is written to it (queued as `PUT Photos(1)/$value`) and `upload()` "
    md += "sends it through `URLSessionTransport`: *streamed* as shipped (on Linux the body is read from the store as libcurl sends it), "
    md += "*whole* through the same transport declining streamed bodies (the stream collected into one array first, as before). "
    md += "Memory: peak RSS above the RSS before `upload()`.\n\n"
    md += "| upload | MB/s | peak memory above baseline |\n| --- | ---: | ---: |\n"
    for (label, peer) in [("streamed", "ours-upload"), ("whole", "ours-upload-whole")] {
        md += "| \(label) | \(String(format: "%.0f", m(peer, "upload_mbs"))) | \(String(format: "%.1f", m(peer, "upload_mem_mib"))) MiB |\n"
        csv += "\(peer),\(m(peer, "upload_mbs")),,,\(m(peer, "upload_mem_mib")),\n"
    }
    if let cipher = cipherCeiling(megabytes: megabytes) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let ceiling = Double(cores) * cipher / max(m("file", "read_mbs"), 1e-9)
        md += "\nCipher ceiling (measured in the same run): one core decrypts 64 KiB pieces with AES-256-GCM (libsodium, the store's "
        md += "suite on this CPU) at \(String(format: "%.0f", cipher)) MB/s. With all \(cores) cores decrypting and nothing else done, a read "
        md += "from the page cache could reach \(String(format: "%.0f", Double(cores) * cipher)) MB/s, \(String(format: "%.2f", ceiling))x the "
        md += "file's: an authenticated cipher bounds the warm read \(ceiling < 0.5 ? "below the 0.5x bar on this machine" : "above the bar").\n"
        csv += "cipher-ceiling,,,\(cipher),,\n"
    }
    print(md)
    try md.write(toFile: option("out", "media.md"), atomically: true, encoding: .utf8)
    try csv.write(toFile: option("csv", "media.csv"), atomically: true, encoding: .utf8)
}
