// realm-fuzz: seeded mutation fuzzing of the query language, the schema loaders (Lua tables and
// stored JSON), the plugin loader and the JSON import, and boundary calls of every Lua binding
// (BindingTarget). See docs/RELIABILITY.md.
//
//   swift build -c release --scratch-path .build-fuzz --product realm-fuzz
//   .build-fuzz/release/realm-fuzz TARGET [--iterations N] [--seed S] [--corpus DIR] [--hang-seconds T]
//
// TARGET is query, query-grammar, schema-lua, schema-json, plugin, json, binding, changeset (the sync
// decoders: values, changesets, messages), wire (the network frame decoder), or all. Inputs are the
// corpus seeds (Tests/FuzzCorpus/<target>/ by default, plus built-in ones) mutated byte by byte,
// and structured inputs made by the target's generator. Every input must be accepted or refused
// with a clean error (RealmError, LuaError, HostError); anything else is a failure. A crash
// (signal) or an input running longer than --hang-seconds writes the input to
// realm-fuzz-crash-<target>-<pid>.txt and ends the run with status 3. Status 1: failures.
// `--avoid TEXT` skips generated inputs containing TEXT, or every part of `A&&B` (binding: to explore
// past a known crash).
import Foundation
import RealmDatabase
import RealmTestSupport
import Synchronization

// MARK: - Crash and hang capture

/// The input being run, kept where a signal handler can write it out.
nonisolated(unsafe) var currentInput = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
nonisolated(unsafe) var currentLength = 0
nonisolated(unsafe) var crashFile: Int32 = -1
let inputStartedAt = Atomic<UInt64>(0)

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func writeAll(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) {
    var done = 0
    while done < count {
        let n = write(fd, pointer + done, count - done)
        if n <= 0 { return }
        done += n
    }
}

func dumpCurrentInput(_ header: StaticString) {
    for fd in [crashFile, 2] where fd >= 0 {
        writeAll(fd, header.utf8Start, header.utf8CodeUnitCount)
        writeAll(fd, currentInput, currentLength)
        writeAll(fd, "\n<<<end of input>>>\n", 20)
    }
}

func crashPath(_ options: Options) -> String {
    (options.crashDirectory ?? ".") + "/realm-fuzz-crash-\(options.target)-\(getpid()).txt"
}

func installCrashHandlers(path: String) {
    crashFile = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    // The handler runs on a stack of its own, so that a stack overflow is reported too.
    var altStack = stack_t()
    altStack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: 1 << 18, alignment: 16)
    altStack.ss_size = 1 << 18
    altStack.ss_flags = 0
    sigaltstack(&altStack, nil)
    for sig in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
        var action = sigaction()
        #if os(Linux)
            action.__sigaction_handler.sa_handler = { sig in
                dumpCurrentInput("\nrealm-fuzz: CRASH (signal) on this input:\n")
                signal(sig, SIG_DFL)
                raise(sig)
            }
        #else
            action.__sigaction_u.__sa_handler = { sig in
                dumpCurrentInput("\nrealm-fuzz: CRASH (signal) on this input:\n")
                signal(sig, SIG_DFL)
                raise(sig)
            }
        #endif
        action.sa_flags = Int32(SA_ONSTACK)
        sigaction(sig, &action, nil)
    }
}

/// Ends the run when one input takes longer than `seconds`: the sandbox limits should stop any
/// script long before.
func startWatchdog(seconds: Double) {
    let limit = UInt64(seconds * 1e9)
    let thread = Thread {
        while true {
            usleep(100_000)
            let started = inputStartedAt.load(ordering: .relaxed)
            if started != 0, now() > started, now() - started > limit {
                dumpCurrentInput("\nrealm-fuzz: HANG (input ran past the limit) on this input:\n")
                _exit(3)
            }
        }
    }
    thread.start()
}

// MARK: - Options

struct Options {
    var target = ""
    var iterations = 100_000
    var seed: UInt64 = 1
    var corpus: String?
    var hangSeconds = 10.0
    /// Inputs slower than this are printed (they are not failures unless past --hang-seconds).
    var slowSeconds = 0.25
    /// Where a crashing or hanging input is written (default: the current folder).
    var crashDirectory: String?
    /// Runs the target on these files only (to replay a crash, a hang or a failure).
    var replay: [String] = []
    /// Generated inputs containing one of these are not run (binding: to explore past a known crash).
    var avoid: [String] = []
    var quiet = false
}

func parseOptions() -> Options {
    var o = Options()
    var args = Array(CommandLine.arguments.dropFirst())
    guard !args.isEmpty else {
        FileHandle.standardError.write(
            Data(
                ("usage: realm-fuzz query|query-grammar|schema-lua|schema-json|plugin|json|binding|changeset|wire|all "
                    + "[--iterations N] [--seed S] [--corpus DIR] [--hang-seconds T] [--slow-seconds T] "
                    + "[--crash-dir DIR] [--replay FILE]... [--avoid TEXT]... [--quiet]\n").utf8))
        exit(2)
    }
    o.target = args.removeFirst()
    while !args.isEmpty {
        let flag = args.removeFirst()
        if flag == "--quiet" {
            o.quiet = true
            continue
        }
        guard let value = args.first else {
            FileHandle.standardError.write(Data("\(flag) needs a value\n".utf8))
            exit(2)
        }
        args.removeFirst()
        switch flag {
        case "--iterations": o.iterations = Int(value) ?? o.iterations
        case "--seed": o.seed = UInt64(value) ?? o.seed
        case "--corpus": o.corpus = value
        case "--hang-seconds": o.hangSeconds = Double(value) ?? o.hangSeconds
        case "--slow-seconds": o.slowSeconds = Double(value) ?? o.slowSeconds
        case "--crash-dir": o.crashDirectory = value
        case "--replay": o.replay.append(value)
        case "--avoid": o.avoid.append(value)
        default:
            FileHandle.standardError.write(Data("unknown option \(flag)\n".utf8))
            exit(2)
        }
    }
    return o
}

/// Tests/FuzzCorpus/<target> of the repository this executable was built in, when it exists.
func defaultCorpus(_ target: String) -> String? {
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    dir.appendPathComponent("Tests/FuzzCorpus/\(target)")
    return FileManager.default.fileExists(atPath: dir.path) ? dir.path : nil
}

// MARK: - The loop

struct Summary {
    var inputs = 0, accepted = 0, rejected = 0, generated = 0, slow = 0
    var failures: [String] = []
    var slowest = 0.0
    var seconds = 0.0
}

func fuzz(_ target: FuzzTarget, options: Options) -> Summary {
    var rng = FuzzRandom(seed: options.seed)
    let corpus = loadCorpus(options.corpus ?? defaultCorpus(target.name), builtIn: target.seeds)
    let mutator = Mutator(dictionary: target.dictionary)
    var summary = Summary()
    let start = now()
    var lastReport = start
    for i in 1...max(1, options.iterations) {
        var input: [UInt8]
        if rng.chance(target.generatedPercent), let made = target.generate(&rng) {
            summary.generated += 1
            input = rng.chance(40) ? mutator.mutate(made, other: rng.pick(corpus), rng: &rng) : made
        } else {
            input =
                rng.chance(3) ? rng.pick(corpus) : mutator.mutate(rng.pick(corpus), other: rng.pick(corpus), rng: &rng)
        }
        if input.count > 1 << 20 { input.removeLast(input.count - (1 << 20)) }
        input.withUnsafeBufferPointer { currentInput.update(from: $0.baseAddress!, count: $0.count) }
        currentLength = input.count
        let began = now()
        inputStartedAt.store(began, ordering: .relaxed)
        let outcome = autoreleasepool { target.run(input) }
        inputStartedAt.store(0, ordering: .relaxed)
        let took = Double(now() - began) / 1e9
        summary.slowest = max(summary.slowest, took)
        if took > options.slowSeconds {
            summary.slow += 1
            if summary.slow <= 10 {
                let shown = String(decoding: input.prefix(400), as: UTF8.self).debugDescription
                FileHandle.standardError.write(
                    Data(
                        "realm-fuzz: slow input (\(String(format: "%.3f", took)) s, \(input.count) bytes): \(shown)\n"
                            .utf8))
            }
        }
        summary.inputs += 1
        switch outcome {
        case .accepted: summary.accepted += 1
        case .rejected: summary.rejected += 1
        case .failure(let why):
            if summary.failures.count < 50 { summary.failures.append(why) }
            if summary.failures.count <= 5 { FileHandle.standardError.write(Data("realm-fuzz: FAILURE \(why)\n".utf8)) }
        }
        if i % 1000 == 0 { target.maintain(after: i) }
        if !options.quiet, now() - lastReport > 10_000_000_000 {
            lastReport = now()
            print(
                "  \(target.name): \(i) inputs, \(summary.accepted) accepted, \(summary.failures.count) failures, "
                    + "\(Int(Double(i) / (Double(lastReport - start) / 1e9)))/s"
            )
            fflush(nil)
        }
    }
    summary.seconds = Double(now() - start) / 1e9
    return summary
}

#if !canImport(ObjectiveC)
    func autoreleasepool<T>(_ body: () throws -> T) rethrows -> T { try body() }
#endif

func makeTarget(_ name: String, options: Options) throws -> FuzzTarget {
    switch name {
    case "query": return try QueryTarget()
    case "schema-lua": return try SchemaLuaTarget()
    case "schema-json": return try SchemaJSONTarget()
    case "plugin": return try PluginTarget(extraSeeds: [])
    case "json": return try JSONImportTarget()
    case "binding": return try BindingTarget(avoid: options.avoid)
    case "changeset": return ChangesetTarget()
    case "wire": return WireTarget()
    default: throw HostFuzzError.unknownTarget(name)
    }
}

enum HostFuzzError: Error { case unknownTarget(String) }

let options = parseOptions()
let names =
    options.target == "all"
    ? ["query-grammar", "query", "schema-lua", "schema-json", "plugin", "json", "binding", "changeset", "wire"]
    : [options.target]
installCrashHandlers(path: crashPath(options))
startWatchdog(seconds: options.hangSeconds)
var failed = false
for name in names {
    if name == "query-grammar" {
        // The query language's own generator (QueryFuzzer): grammar-made queries and token soups,
        // parsed, compiled and run on SQLite.
        let report = QueryFuzzer.run(iterations: options.iterations, seed: options.seed, mode: .execute)
        print(
            "realm-fuzz query-grammar: \(report.iterations) inputs in \(String(format: "%.1f", report.seconds)) s "
                + "(\(Int(Double(report.iterations) / max(report.seconds, 0.001)))/s): \(report.parsed) parsed, "
                + "\(report.compiled) compiled, \(report.executed) executed, \(report.failures.count) failures"
        )
        for f in report.failures.prefix(20) { print("  FAILURE \(f)") }
        failed = failed || !report.failures.isEmpty
        continue
    }
    let target: FuzzTarget
    do { target = try makeTarget(name, options: options) } catch {
        print("realm-fuzz: cannot set up \(name): \(error)")
        exit(2)
    }
    if !options.replay.isEmpty {
        for file in options.replay {
            guard let data = FileManager.default.contents(atPath: file) else {
                print("realm-fuzz: cannot read \(file)")
                exit(2)
            }
            let input = [UInt8](data)
            input.withUnsafeBufferPointer { currentInput.update(from: $0.baseAddress!, count: min($0.count, 1 << 20)) }
            currentLength = min(input.count, 1 << 20)
            let began = now()
            inputStartedAt.store(began, ordering: .relaxed)
            let outcome = target.run(input)
            inputStartedAt.store(0, ordering: .relaxed)
            print(
                "realm-fuzz \(name) replay \(file): \(outcome) in "
                    + "\(String(format: "%.3f", Double(now() - began) / 1e9)) s"
            )
            if case .failure = outcome { failed = true }
        }
        continue
    }
    let s = fuzz(target, options: options)
    print(
        "realm-fuzz \(name): \(s.inputs) inputs in \(String(format: "%.1f", s.seconds)) s "
            + "(\(Int(Double(s.inputs) / max(s.seconds, 0.001)))/s), seed \(options.seed): \(s.accepted) accepted, "
            + "\(s.rejected) refused cleanly, \(s.generated) generated, \(s.failures.count) failures, slowest input "
            + "\(String(format: "%.3f", s.slowest)) s, \(s.slow) over \(options.slowSeconds) s"
    )
    let report = target.report()
    if !report.isEmpty { print(report) }
    for f in s.failures.prefix(20) { print("  FAILURE \(f)") }
    fflush(nil)
    failed = failed || !s.failures.isEmpty
}
if crashFile >= 0 {
    close(crashFile)
    unlink(crashPath(options))
}
exit(failed ? 1 : 0)
