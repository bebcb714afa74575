import Foundation
import Logging
import RealmDatabase
import WSClient

/// The WebSocket clients of `serve_idle_watch`, in a process of their own (realm-bench started
/// again with `flag`), so that the heap the bench reads is the host's alone.
///
/// The parent writes `open FROM TO` lines on the child's standard input; the child opens sockets
/// FROM..<TO on `/v1/watch` (the tokens' file read in turn), each with one watch when watching,
/// and answers `opened TO` once every one is ready (its initial results arrived, or the upgrade
/// alone), or `failed WHY`. The child ends when its standard input does.
final class WatchClientsProcess {
    static let flag = "--serve-watch-clients"

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var lines: [String] = []
    private var pending = Data()

    /// Starts the child for the host on `port`, with one token per user in `tokens`.
    init(port: Int, tokens: [String], watching: Bool, folder: URL) throws {
        let tokenFile = folder.appendingPathComponent("watch-tokens-\(UUID().uuidString.prefix(8)).txt")
        try tokens.joined(separator: "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
        process.executableURL = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0])
        process.arguments = [Self.flag, "\(port)", watching ? "watching" : "bare", tokenFile.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Opens sockets `range` in the child and waits until they are ready.
    func open(_ range: Range<Int>) throws {
        input.fileHandleForWriting.write(Data("open \(range.lowerBound) \(range.upperBound)\n".utf8))
        let answer = try readLine()
        guard answer == "opened \(range.upperBound)" else {
            throw WorkloadSkipped(reason: "the watch clients' process: \(answer)")
        }
    }

    /// Ends the child (its sockets close with it).
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private func readLine() throws -> String {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending = Data(pending[(newline + 1)...])
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw WorkloadSkipped(reason: "the watch clients' process ended (status \(process.terminationStatus))")
            }
            pending += chunk
        }
    }

    // MARK: The child

    /// The child's main: never returns.
    static func main(_ arguments: [String]) -> Never {
        guard arguments.count == 3, let port = Int(arguments[0]),
            let tokenText = try? String(contentsOfFile: arguments[2], encoding: .utf8)
        else {
            answer("failed: expected PORT watching|bare TOKENS-FILE")
            exit(2)
        }
        let tokens = tokenText.split(separator: "\n").map(String.init)
        let watching = arguments[1] == "watching"
        let opened = DispatchSemaphore(value: 0)
        var tasks: [Task<Void, any Error>] = []
        while let line = Swift.readLine() {
            let words = line.split(separator: " ")
            guard words.count == 3, words[0] == "open", let from = Int(words[1]), let to = Int(words[2]), from <= to,
                !tokens.isEmpty
            else {
                answer("failed: cannot read '\(line)'")
                continue
            }
            for i in from..<to {
                tasks.append(socket(port: port, token: tokens[i % tokens.count], watching: watching, opened: opened))
            }
            let ready = (from..<to).allSatisfy { _ in opened.wait(timeout: .now() + 30) == .success }
            answer(ready ? "opened \(to)" : "failed: a WebSocket on /v1/watch did not answer within 30 s")
        }
        tasks.forEach { $0.cancel() }
        exit(0)
    }

    /// A line to the parent, at once (standard output is a pipe, buffered otherwise).
    private static func answer(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// One client: with `watching`, a watch whose initial results signal `opened`; without, the
    /// upgrade alone does.
    static func socket(port: Int, token: String, watching: Bool, opened: DispatchSemaphore) -> Task<Void, any Error> {
        var logger = Logger(label: "serve-idle-watch-bench")
        logger.logLevel = .critical
        return Task { [logger] in
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/watch",
                configuration: WebSocketClientConfiguration(
                    maxFrameSize: 1 << 20, additionalHeaders: [.authorization: "Bearer \(token)"]),
                logger: logger
            ) { inbound, outbound, _ in
                guard watching else {
                    opened.signal()
                    for try await _ in inbound.messages(maxSize: 1 << 20) {}
                    return
                }
                try await outbound.write(.text(#"{"watch": 1, "class": "Item", "where": "id == 1"}"#))
                var answered = false
                for try await message in inbound.messages(maxSize: 1 << 20) where !answered {
                    if case .text(let text) = message, (try? JSONValue.parse(Data(text.utf8)))?[field: "objects"] != nil
                    {
                        answered = true
                        opened.signal()
                    }
                }
            }
        }
    }
}
