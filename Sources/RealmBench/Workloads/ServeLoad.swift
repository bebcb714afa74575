import Foundation
import RealmTestSupport
import Synchronization

/// The HTTP load of `serve_read_call` and `serve_write_call`: 64 keep-alive connections sending
/// POSTs, each call naming a user in turn (the call number modulo the users). Both sides of a row
/// get the same load.
///
/// With wrk (Debian's) on PATH, the load is wrk's, in a process of its own: the field's load
/// generator, light enough that the latency measured is the server's and not that of 64 client
/// threads sharing the server's cores. It runs for a duration and its rate gives the time the
/// row's calls take. Without wrk, 64 threads of this process send exactly the row's calls.
struct ServeLoad {
    /// One call's request: its path and headers for the user, its JSON body for the call number.
    struct Call: Sendable {
        /// Per user: the path and the headers.
        let users: [(path: String, headers: [String: String])]
        /// Writes send a fresh key per call; reads ask for object 1.
        let writes: Bool

        func body(_ i: Int) -> String { writes ? #"{"id": \#(1_000_000 + i), "value": "v"}"# : #"{"id": 1}"# }
    }

    /// What a load measured.
    struct Result {
        let calls: Int
        let seconds: Double
        let p50: Double
        let p99: Double

        var callsPerSecond: Double { Double(calls) / max(seconds, 1e-9) }
    }

    static let connections = 64

    /// wrk's path, when it is installed.
    static let wrk: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/wrk" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    let port: Int
    let call: Call
    let context: BenchContext
    let side: String

    /// Runs the load for about `calls` calls and returns what it measured; throws when a call
    /// failed (a status other than 2xx, a broken connection).
    func run(calls: Int) throws -> Result {
        let result = try Self.wrk.map { try wrkLoad($0, calls: calls) } ?? threadLoad(calls: calls)
        context.log(
            String(
                format: "serve calls, %@ (%@): %d calls, %.0f/s, p50 %.2f ms, p99 %.2f ms", side,
                Self.wrk == nil ? "64 threads" : "wrk", result.calls, result.callsPerSecond, result.p50 * 1000,
                result.p99 * 1000))
        return result
    }

    // MARK: wrk

    /// wrk for as long as `calls` would take at 10,000 calls/s (at least a second), 2 threads; a call
    /// counts as failed after 30 s (wrk's default, 2 s, would fail a debug build's slow first calls).
    private func wrkLoad(_ wrk: String, calls: Int) throws -> Result {
        let script = context.freshURL("serve-load").deletingPathExtension().appendingPathExtension("lua")
        try luaScript().write(to: script, atomically: true, encoding: .utf8)
        let seconds = max(1, Int((Double(calls) / 10_000).rounded()))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = [
            "-t2", "-c\(Self.connections)", "-d\(seconds)s", "--timeout", "30s", "-s", script.path,
            "http://127.0.0.1:\(port)",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("realm-bench-load ") }) else {
            throw WorkloadSkipped(reason: "wrk printed no summary (status \(process.terminationStatus)): \(text)")
        }
        let fields = Dictionary(
            uniqueKeysWithValues: stride(from: 1, to: line.split(separator: " ").count - 1, by: 2).map {
                let words = line.split(separator: " ")
                return (String(words[$0]), Double(words[$0 + 1]) ?? .nan)
            })
        let failed = (fields["errors"] ?? 0) + (fields["non2xx"] ?? 0)
        guard failed == 0, let answered = fields["calls"], answered > 0 else {
            throw WorkloadSkipped(reason: "wrk: \(failed) calls failed: \(line)")
        }
        return Result(
            calls: Int(answered), seconds: fields["seconds"] ?? .nan, p50: (fields["p50us"] ?? .nan) / 1e6,
            p99: (fields["p99us"] ?? .nan) / 1e6)
    }

    /// The script: the users' paths and headers in a table, each thread numbering its calls apart.
    private func luaScript() -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let users = call.users.map { user in
            let headers = (user.headers.merging(["Content-Type": "application/json"]) { a, _ in a })
                .sorted { $0.key < $1.key }.map { "[\(quoted($0.key))] = \(quoted($0.value))" }
            return "  { path = \(quoted(user.path)), headers = { \(headers.joined(separator: ", ")) } },"
        }
        return """
            local users = {
            \(users.joined(separator: "\n"))
            }
            local writes = \(call.writes)
            local threads, counter = 0, 0
            function setup(thread) threads = threads + 1; thread:set("first", threads * 100000000) end
            function init(args) counter = first end
            request = function()
              counter = counter + 1
              local user = users[(counter % #users) + 1]
              local body = writes and ('{"id": ' .. (1000000 + counter) .. ', "value": "v"}') or '{"id": 1}'
              return wrk.format("POST", user.path, user.headers, body)
            end
            function done(summary, latency, requests)
              io.write(string.format("realm-bench-load calls %d seconds %.6f p50us %d p99us %d errors %d non2xx %d\\n",
                summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
                summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
                summary.errors.status))
            end
            """
    }

    // MARK: Threads

    /// `calls` calls over `connections` keep-alive connections, a thread each.
    private func threadLoad(calls: Int) throws -> Result {
        let failure = Mutex<String?>(nil)
        let latencies = Mutex(LatencySamples())
        let group = DispatchGroup()
        let call = call
        let port = port
        let start = DispatchTime.now().uptimeNanoseconds
        for c in 0..<Self.connections {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let connection = try KeepAliveConnection(port: port)
                    var mine = LatencySamples()
                    defer { latencies.withLock { $0.add(mine) } }
                    var i = c
                    while i < calls {
                        let user = call.users[i % call.users.count]
                        let started = DispatchTime.now().uptimeNanoseconds
                        let answer = try connection.request(
                            "POST", user.path, headers: user.headers, body: call.body(i))
                        mine.add(from: started, to: DispatchTime.now().uptimeNanoseconds)
                        if !(200..<300).contains(answer.status) { failure.withLock { $0 = $0 ?? "\(answer)" } }
                        i += Self.connections
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? "\(error)" }
                }
            }
            thread.start()
        }
        group.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if let failure = failure.withLock({ $0 }) {
            throw WorkloadSkipped(reason: "a call failed: \(failure)")
        }
        let samples = latencies.withLock { $0 }
        return Result(
            calls: calls, seconds: seconds, p50: samples.percentile(0.5).value, p99: samples.percentile(0.99).value)
    }
}
