import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua
import XCTest

/// Many tenants, several workers each, mixed work for a bounded time; at the end every tenant's
/// objects reconcile with what the workers were told succeeded.
///
/// Environment: `RELIABILITY_LOAD_SECONDS` (default 6), `RELIABILITY_LOAD_TENANTS` (default 50),
/// `RELIABILITY_LOAD_REPORT=<file>` writes the figures as Markdown (docs/BENCHMARKS.md, "Load test").
final class LoadTests: ReliabilityTestCase {
    enum Operation: String, CaseIterable {
        case query, append, remove, write
        case failingWrite = "failing write"
    }

    /// What one worker did and saw.
    final class WorkerLog: @unchecked Sendable {
        var expected = 0  // Notes of this worker, from the replies it got
        var latencies: [Operation: [Double]] = [:]
        var problems: [String] = []
        var operations = 0
    }

    struct Figures {
        var tenants = 0, workers = 0, seconds = 0.0, operations = 0
        var perOperation: [Operation: [Double]] = [:]
        var problems: [String] = []

        static func percentile(_ sorted: [Double], _ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }

        var markdown: String {
            func ms(_ s: Double) -> String { String(format: "%.2f", s * 1000) }
            var all = [Double]()
            var rows = [String]()
            for op in Operation.allCases {
                let l = (perOperation[op] ?? []).sorted()
                all += l
                rows.append(
                    "| \(op.rawValue) | \(l.count) | \(String(format: "%.0f", Double(l.count) / seconds)) | "
                        + "\(ms(Self.percentile(l, 0.5))) | \(ms(Self.percentile(l, 0.99))) | \(ms(l.last ?? 0)) |"
                )
            }
            all.sort()
            rows.append(
                "| **all** | \(all.count) | \(String(format: "%.0f", Double(all.count) / seconds)) | "
                    + "\(ms(Self.percentile(all, 0.5))) | \(ms(Self.percentile(all, 0.99))) | \(ms(all.last ?? 0)) |"
            )
            let rate = String(format: "%.0f", Double(operations) / seconds)
            return """
                \(tenants) tenants × \(workers) workers, \(String(format: "%.1f", seconds)) s, \
                \(operations) operations (\(rate) ops/s)

                | operation | count | ops/s | p50 ms | p99 ms | max ms |
                |---|---:|---:|---:|---:|---:|
                \(rows.joined(separator: "\n"))
                """
        }
    }

    /// The Lua each operation runs (worker `w`, a number `k`), and how it changes the worker's count.
    static func code(_ op: Operation, worker w: Int, k: Int) -> String {
        switch op {
        case .query:
            return
                "return #realm:objects('Note'):where('worker == $0', \(w)), #realm:objects('Note'):where('worker == "
                + "$0 AND n >= $1', \(w), \(k % 100))"
        case .append:
            return
                "realm:objects('Note'):append{ owner = user.name, worker = \(w), n = \(k % 100), text = 'note \(k)' }"
        case .remove:
            return
                "local r = realm:objects('Note'):where('worker == $0', \(w)) if #r == 0 then return 0 end "
                + "r:remove(1) return 1"
        case .write:
            return
                "realm:write(function() for i = 1, 3 do realm:create('Note', { owner = user.name, worker = \(w), n "
                + "= i, text = 'batch' }) end end)"
        case .failingWrite:
            return
                "realm:write(function() realm:create('Note', { owner = user.name, worker = \(w), text = 'never' }) "
                + "error('abort on purpose') end)"
        }
    }

    static func pick(_ rng: inout SeededGenerator) -> Operation {
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<40: return .query
        case 40..<65: return .append
        case 65..<80: return .remove
        case 80..<95: return .write
        default: return .failingWrite
        }
    }

    /// Runs the load and checks the reconciliation; returns the figures.
    func runLoad(tenants: Int, workers: Int, seconds: Double, cacheSize: Int) throws -> Figures {
        let host = try notesHost(
            limits: LuaLimits(memory: 64 << 20, instructions: nil, time: .seconds(10)), cacheSize: cacheSize)
        let users = (0..<tenants).map { String(format: "tenant%03d", $0) }
        // Opened before the clock starts.
        for user in users where cacheSize >= tenants { try host.withTenant(user) { _ in } }
        let seed = self.seed("load")
        let logs = (0..<tenants * workers).map { _ in WorkerLog() }
        let deadline = Date().addingTimeInterval(seconds)
        let group = DispatchGroup()
        let start = Date()
        for t in 0..<tenants {
            for w in 0..<workers {
                let log = logs[t * workers + w]
                let user = users[t]
                group.enter()
                let thread = Thread {
                    defer { group.leave() }
                    var rng = SeededGenerator(seed: seed &+ UInt64(t * workers + w))
                    var k = 0
                    while Date() < deadline {
                        k += 1
                        let op = Self.pick(&rng)
                        let began = DispatchTime.now().uptimeNanoseconds
                        do {
                            let result = try host.withTenant(user) {
                                try $0.runtime.execute(Self.code(op, worker: w, k: k), chunkName: "=load")
                            }
                            switch op {
                            case .query:
                                // Only this worker changes its notes, and it waits for each reply: the count is known.
                                if result.first?.integerValue != Int64(log.expected) {
                                    log.problems.append(
                                        "\(user) worker \(w): query saw \(result.first?.description ?? "nil") "
                                            + "notes, expected \(log.expected)"
                                    )
                                }
                            case .append: log.expected += 1
                            case .remove: log.expected -= Int(result.first?.integerValue ?? 0)
                            case .write: log.expected += 3
                            case .failingWrite: log.problems.append("\(user) worker \(w): a failing write succeeded")
                            }
                        } catch {
                            if op != .failingWrite || !"\(error)".contains("abort on purpose") {
                                log.problems.append("\(user) worker \(w) \(op.rawValue): \(error)")
                            }
                        }
                        let took = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
                        log.latencies[op, default: []].append(took)
                        log.operations += 1
                    }
                }
                thread.stackSize = 4 << 20
                thread.start()
            }
        }
        group.wait()
        let elapsed = Date().timeIntervalSince(start)

        var figures = Figures(tenants: tenants, workers: workers, seconds: elapsed)
        for log in logs {
            figures.operations += log.operations
            figures.problems += log.problems
            for (op, l) in log.latencies { figures.perOperation[op, default: []] += l }
        }
        // Reconcile: every tenant's notes, per worker, against what the workers were told.
        for (t, user) in users.enumerated() {
            try host.withTenant(user) { tenant in
                let notes = try tenant.realm.objects("Note")
                var total = 0
                for w in 0..<workers {
                    let expected = logs[t * workers + w].expected
                    total += expected
                    XCTAssertEqual(try notes.filter("worker == \(w)").countObjects(), expected, "\(user) worker \(w)")
                }
                XCTAssertEqual(try notes.countObjects(), total, user)
                XCTAssertEqual(
                    try notes.filter("text == 'never'").countObjects(), 0, "\(user): a failed write left objects")
            }
            XCTAssertEqual(SQLiteCheck.integrity(try host.fileURL(for: user).path), "ok", user)
        }
        XCTAssertEqual(figures.problems, [], "\(figures.problems.count) problems, first: \(figures.problems.prefix(5))")
        return figures
    }

    func testFiftyTenantsWithFourWorkersEachReconcile() throws {
        let env = ProcessInfo.processInfo.environment
        let seconds = env["RELIABILITY_LOAD_SECONDS"].flatMap(Double.init) ?? 6
        let tenants = env["RELIABILITY_LOAD_TENANTS"].flatMap(Int.init) ?? 50
        let figures = try runLoad(tenants: tenants, workers: 4, seconds: seconds, cacheSize: 64)
        XCTAssertGreaterThan(figures.operations, tenants * 4, "the workers hardly ran")
        print("load:\n" + figures.markdown)
        if let path = env["RELIABILITY_LOAD_REPORT"] {
            try figures.markdown.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    func testLoadWithTenantsEvictedFromTheCacheReconciles() throws {
        // 20 tenants through a cache of 6: tenants are closed and reopened while workers use them.
        let figures = try runLoad(tenants: 20, workers: 4, seconds: 3, cacheSize: 6)
        print("load with eviction:\n" + figures.markdown)
    }

    func testConcurrentFirstOpensOfANewRealmLoseNothing() throws {
        // Several threads open (and so create) the same new realm at once, through the database
        // and through the host, and each writes: every write must be in the file at the end.
        let threads = 8
        for round in 0..<5 {
            let url = folder.appendingPathComponent("new-\(round).realm")
            @Sendable func config() -> Realm.Configuration {
                var config = Realm.Configuration(fileURL: url)
                config.schema = Schema([ObjectSchema(className: "Note", properties: [Property(name: "n", type: .int)])])
                return config
            }
            let errors = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: threads) { i in
                do {
                    let realm = try Realm(configuration: config())
                    try realm.write { _ = try realm.create("Note", value: ["n": .int(Int64(i))]) }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
            XCTAssertEqual(errors.withLock { $0 }, [], "round \(round)")
            XCTAssertEqual(
                try Realm(configuration: config()).objects("Note").countObjects(), threads,
                "round \(round): writes were lost")
        }
        let host = try notesHost()
        for round in 0..<5 {
            let user = "fresh\(round)"
            let errors = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: threads) { i in
                do {
                    try host.withTenant(user) {
                        _ = try $0.runtime.execute("realm:objects('Note'):append{ n = \(i) }", chunkName: "=new")
                    }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
            XCTAssertEqual(errors.withLock { $0 }, [], "round \(round)")
            XCTAssertEqual(
                try host.withTenant(user) { try $0.realm.objects("Note").countObjects() }, threads,
                "round \(round): writes were lost")
        }
    }

    // MARK: - Resources of closed tenants

    /// A value behind a lock (test helper).
    final class Locked<Value>: @unchecked Sendable {
        private var value: Value
        private let lock = NSLock()
        init(_ value: Value) { self.value = value }
        func withLock<T>(_ body: (inout Value) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }

    static func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    func testEvictedTenantsReleaseTheirRealmAndLuaState() throws {
        let host = try notesHost(cacheSize: 4)
        weak var firstRealm: Realm?
        weak var firstRuntime: RealmLuaRuntime?
        try host.withTenant("first") { t in
            firstRealm = t.realm
            firstRuntime = t.runtime
            // Touch every part of the API that keeps Swift closures in the Lua state.
            _ = try t.runtime.execute(
                """
                realm:objects('Note'):append{ text = 'x' }
                local subs = realm.subscriptions
                local s = subs[1]
                subs:update(function(m) m:append(QuerySubscription('Note', { name = 'all' })) end)
                local t = realm.subscriptions[1]
                local token = realm:objects('Note'):observe(function() end)
                token:invalidate()
                return tostring(ObjectId()), tostring(Date()), realm:freeze()
                """, chunkName: "=touch")
        }
        let baseline = Self.openFileDescriptors()
        for i in 0..<30 { try host.withTenant("user\(i)") { _ in } }  // evicts "first" and most of these
        XCTAssertNil(firstRealm, "an evicted tenant's realm stays open")
        XCTAssertNil(firstRuntime, "an evicted tenant's Lua runtime is never freed")
        XCTAssertLessThanOrEqual(Self.openFileDescriptors(), baseline + 4 * 3 + 2, "files of evicted tenants stay open")
        host.closeAll()
        XCTAssertLessThanOrEqual(Self.openFileDescriptors(), baseline, "files stay open after closeAll")
    }
}
