import CSQLite
import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua
import RealmTestSupport
import XCTest

/// A fresh temporary folder per test, removed afterwards; the seeds a test draws (`seed(_:)`) are
/// added to each of its failures.
class ReliabilityTestCase: XCTestCase {
    var folder: URL!
    /// `label: RELIABILITY_SEED=<n>` of each seed this test drew.
    private(set) var seedNotes: [String] = []

    /// The test's seed (see `TestSeed`): printed, and named in every failure of the test.
    func seed(_ label: String, pinned: UInt64 = TestSeed.pinned) -> UInt64 {
        let seed = TestSeed.make(label, pinned: pinned)
        seedNotes.append("\(label): RELIABILITY_SEED=\(seed)")
        return seed
    }

    /// A failure's message with the seeds that replay it.
    func withSeeds(_ description: String) -> String {
        seedNotes.isEmpty ? description : description + " [replay with \(seedNotes.joined(separator: ", "))]"
    }

    #if canImport(ObjectiveC)
        override func record(_ issue: XCTIssue) {
            var issue = issue
            issue.compactDescription = withSeeds(issue.compactDescription)
            super.record(issue)
        }
    #else
        override func recordFailure(
            withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
        ) {
            super.recordFailure(
                withDescription: withSeeds(description), inFile: filePath, atLine: lineNumber, expected: expected)
        }
    #endif

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "realmhost-reliability-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// The repository's root (this file is Tests/ReliabilityTests/ReliabilitySupport.swift).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// Writes `plugins/<name>/plugin.lua` (and more files) under the test folder; returns the plugins folder.
    @discardableResult
    func writePlugin(_ name: String, _ source: String, files: [String: String] = [:], in pluginsFolder: URL? = nil)
        throws -> URL
    {
        let plugins = pluginsFolder ?? folder.appendingPathComponent("plugins", isDirectory: true)
        let dir = plugins.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try source.write(to: dir.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        for (path, text) in files {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return plugins
    }

    /// The `notes` plugin the hostile-script, isolation and load tests host.
    static let notesPlugin = """
        return {
          name = "notes", version = "1.0.0", schemaVersion = 1,
          schema = {
            { name = "Note", properties = {
                { name = "owner", type = "string" }, { name = "worker", type = "int", indexed = true },
                { name = "n", type = "int" }, { name = "text", type = "string" } } },
          },
          commands = {
            count = function(realm) return #realm:objects("Note") end,
            add = function(realm, text) realm:objects("Note"):append{ owner = user.name, text = text } end,
            -- Opens a realm file named by the caller: the file policy must hold whatever the argument.
            open = function(realm, path)
              local c = Realm.Configuration.defaultConfiguration
              c.fileURL = path
              return #Realm(c):objects("Note")
            end,
          },
        }
        """

    /// A host over `<folder>/data` with the notes plugin.
    func notesHost(
        limits: LuaLimits = LuaLimits(memory: 32 << 20, instructions: nil, time: .milliseconds(400)),
        cacheSize: Int = 64
    ) throws -> TenantHost {
        let plugins = try writePlugin("notes", Self.notesPlugin)
        return try TenantHost(
            options: HostOptions(
                dataFolder: folder.appendingPathComponent("data", isDirectory: true),
                pluginFolders: [plugins], limits: limits, cacheSize: cacheSize))
    }
}

// MARK: - SQLite's own checks, on a separate read-only connection

enum SQLiteCheck {
    /// `PRAGMA integrity_check` on the file: "ok" when the database is sound.
    static func integrity(_ path: String) -> String {
        rows(path, "PRAGMA integrity_check").map { $0.joined(separator: "|") }.joined(separator: "\n")
    }

    /// Rows of a query as text, on a read-only connection (errors come back as one row "error: …").
    static func rows(_ path: String, _ sql: String) -> [[String]] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            return [["error: \(message)"]]
        }
        defer { sqlite3_close(db) }
        sqlite3_busy_timeout(db, 10_000)
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            return [["error: \(String(cString: sqlite3_errmsg(db)))"]]
        }
        defer { sqlite3_finalize(statement) }
        var out = [[String]]()
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                out.append(["error: \(String(cString: sqlite3_errmsg(db)))"])
                break
            }
            out.append(
                (0..<sqlite3_column_count(statement)).map { i in
                    sqlite3_column_text(statement, i).map { String(cString: $0) } ?? "NULL"
                })
        }
        return out
    }

    static func int(_ path: String, _ sql: String) -> Int? { rows(path, sql).first?.first.flatMap { Int($0) } }
}

// MARK: - Child processes

/// The executables SwiftPM builds next to the test bundle (`swift build --build-tests` and
/// `swift test` build every executable of the package).
enum BuiltProducts {
    static func find(_ name: String) -> URL? {
        var candidates = [URL]()
        if let explicit = ProcessInfo.processInfo.environment["REALMHOST_BIN_DIR"] {
            candidates.append(URL(fileURLWithPath: explicit).appendingPathComponent(name))
        }
        // Linux: the test runner is .build/<triple>/<config>/RealmHostPackageTests.xctest itself.
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent(name))
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            // macOS: the bundle is a folder inside .build/<config>/.
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        }
        candidates.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name))
        for config in ["debug", "release"] {
            candidates.append(ReliabilityTestCase.repositoryRoot.appendingPathComponent(".build/\(config)/\(name)"))
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static func require(_ name: String) throws -> URL {
        guard let url = find(name) else {
            throw XCTSkip(
                "The executable '\(name)' was not found next to the test bundle; build it with `swift build "
                    + "--build-tests` (or run `swift test`, which builds it), or set REALMHOST_BIN_DIR."
            )
        }
        return url
    }
}

/// A child process whose standard output is collected line by line while it runs.
///
/// Each pipe is read by a thread of its own with blocking reads until end of file, not by a
/// `readabilityHandler`: that one is a dispatch source, and closing its descriptor while the
/// source's cancellation was still on its way crashed libdispatch's event loop once
/// (`_dispatch_event_loop_drain`, a bad pointer, in `CrashSafetyTests` on 2026-12-02).
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var buffer = Data()
    private var errorBuffer = Data()
    private let outPipe = Pipe()
    private let errPipe = Pipe()
    /// Signalled by each reader at end of file.
    private let drained = DispatchSemaphore(value: 0)
    private var finished = false

    init(_ executable: URL, _ arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        read(outPipe.fileHandleForReading, isStandardError: false)
        read(errPipe.fileHandleForReading, isStandardError: true)
    }

    /// Reads `handle` until end of file on a thread of its own, appending under the lock.
    private func read(_ handle: FileHandle, isStandardError: Bool) {
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.lock()
                if isStandardError { errorBuffer.append(data) } else { buffer.append(data) }
                lock.unlock()
            }
            drained.signal()
        }
        thread.start()
    }

    /// Complete lines printed so far.
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        let text = String(decoding: buffer, as: UTF8.self)
        var parts = text.components(separatedBy: "\n")
        parts.removeLast()  // an unfinished line (or "") is not a reported line
        return parts
    }

    var standardError: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errorBuffer, as: UTF8.self)
    }

    /// SIGKILL, then waits for the process and drains its output.
    func kill() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
        finish()
    }

    /// Waits for the process to end and for its pipes to be drained (once: later calls return).
    func finish() {
        guard !finished else { return }
        finished = true
        process.waitUntilExit()
        drained.wait()
        drained.wait()
        try? outPipe.fileHandleForReading.close()
        try? errPipe.fileHandleForReading.close()
    }

    /// Waits until a printed line satisfies `predicate` or `timeout` passes.
    func waitForLine(timeout: TimeInterval, _ predicate: (String) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if lines.contains(where: predicate) { return true }
            if !process.isRunning { return lines.contains(where: predicate) }
            usleep(2_000)
        }
        return false
    }
}

/// A deterministic generator (RealmTestSupport's SplitMix64), so a failing run can be replayed from
/// its seed (`ReliabilityTestCase.seed(_:)`).
typealias SeededGenerator = SplitMix64

extension Results {
    /// Every object's value for `key`, as Int64.
    func ints(_ key: String) throws -> [Int64] {
        var out = [Int64]()
        try forEach { out.append(try $0.value(forKey: key).intValue ?? Int64.min) }
        return out
    }
}
