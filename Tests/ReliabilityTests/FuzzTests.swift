import Foundation
import RealmTestSupport
import XCTest

/// A short run of `realm-fuzz` (Sources/RealmFuzz) over each target, with the corpus in
/// Tests/FuzzCorpus: no crash, no hang, no failure. The million-input runs and their figures are
/// in docs/RELIABILITY.md. `RELIABILITY_FUZZ_SCALE=<x>` multiplies the input counts below; the seed
/// is `TestSeed`'s (pinned under `CI=true`, random locally, `RELIABILITY_SEED` to replay).
final class FuzzTests: ReliabilityTestCase {
    /// Inputs per target in a debug build (about 5–10 s each).
    static let inputs: [(target: String, count: Int)] = [
        ("query-grammar", 20_000), ("query", 3_000), ("schema-lua", 8_000), ("schema-json", 15_000), ("plugin", 3_000),
        ("json", 5_000), ("binding", 25_000), ("changeset", 20_000), ("wire", 20_000),
    ]

    func testFuzzTargetsShortRun() throws {
        let fuzzer = try BuiltProducts.require("realm-fuzz")
        let scale = ProcessInfo.processInfo.environment["RELIABILITY_FUZZ_SCALE"].flatMap(Double.init) ?? 1
        let seed = seed("fuzz")
        // Two at a time: the machine has two cores.
        var pending = Self.inputs
        while !pending.isEmpty {
            let batch = pending.prefix(2)
            pending.removeFirst(batch.count)
            let runs = try batch.map { item -> (String, ChildProcess, Date) in
                let corpus = Self.repositoryRoot.appendingPathComponent("Tests/FuzzCorpus/\(item.target)").path
                let child = try ChildProcess(
                    fuzzer,
                    [
                        item.target, "--iterations", String(Int(Double(item.count) * scale)), "--seed", String(seed),
                        "--corpus", corpus, "--hang-seconds", "30", "--quiet", "--crash-dir", self.folder.path,
                    ])
                return (item.target, child, Date())
            }
            for (target, child, started) in runs {
                let summary = finish(child, target: target, started: started)
                XCTAssertTrue(summary.contains(" 0 failures"), "\(target): \(summary)")
                if target == "binding" { checkBindingCoverage(summary) }
            }
        }
    }

    /// Every case of Tests/FuzzCorpus/binding (the calls that crashed or hung when they were found),
    /// replayed by `realm-fuzz binding --replay`, each in a process of its own: each must return or
    /// raise a Lua error.
    func testBindingCorpusReplays() throws {
        let fuzzer = try BuiltProducts.require("realm-fuzz")
        let folder = Self.repositoryRoot.appendingPathComponent("Tests/FuzzCorpus/binding")
        let cases = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".lua") }
            .sorted()
        XCTAssertFalse(cases.isEmpty, "no corpus in \(folder.path)")
        var pending = cases[...]
        while !pending.isEmpty {
            let batch = pending.prefix(2)
            pending.removeFirst(batch.count)
            let runs = try batch.map { name -> (String, ChildProcess, Date) in
                let child = try ChildProcess(
                    fuzzer,
                    [
                        "binding", "--replay", folder.appendingPathComponent(name).path, "--hang-seconds", "20",
                        "--crash-dir", self.folder.path,
                    ])
                return (name, child, Date())
            }
            for (name, child, started) in runs {
                let summary = finish(child, target: name, started: started)
                XCTAssertTrue(summary.contains(": accepted") || summary.contains(": rejected"), "\(name): \(summary)")
            }
        }
    }

    /// Waits for a fuzzer run (killing it after 600 s), checks that it ended by itself with status 0,
    /// and returns its summary lines.
    private func finish(_ child: ChildProcess, target: String, started: Date) -> String {
        // The fuzzer's own watchdog ends a hung input; this is the last resort.
        while child.process.isRunning && Date().timeIntervalSince(started) < 600 { usleep(50_000) }
        if child.process.isRunning {
            child.kill()
            XCTFail("\(target): still running after 600 s")
        }
        child.finish()
        let summary = child.lines.filter { $0.hasPrefix("realm-fuzz") || $0.hasPrefix("  ") }.joined(separator: "\n")
        print(summary)
        let input = Self.lastInput(child.standardError)
        XCTAssertEqual(child.process.terminationReason, .exit, "\(target) crashed on:\n\(input)")
        XCTAssertEqual(child.process.terminationStatus, 0, "\(target): \(summary)\n\(input)")
        return summary
    }

    /// The input a crash or hang report names (the fuzzer prints it between its header and
    /// `<<<end of input>>>`), else the end of the standard error.
    static func lastInput(_ standardError: String) -> String {
        guard
            let header = standardError.range(of: "realm-fuzz: CRASH", options: .backwards)
                ?? standardError.range(of: "realm-fuzz: HANG", options: .backwards)
        else { return String(standardError.suffix(2000)) }
        return String(standardError[header.lowerBound...].prefix(4000))
    }

    /// The binding target reached every registered type and called every member of each.
    private func checkBindingCoverage(_ summary: String) {
        guard let line = summary.split(separator: "\n").first(where: { $0.hasPrefix("realm-fuzz binding coverage") })
        else { return XCTFail("binding: no coverage line in\n\(summary)") }
        XCTAssertTrue(line.contains("types without a receiver: none"), String(line))
        let counts = line.split(separator: " ").first { $0.contains("/") }?.split(separator: "/").compactMap {
            Int($0)
        }
        XCTAssertEqual(counts?.count, 2, String(line))
        XCTAssertEqual(counts?.first, counts?.last, "binding: members never called:\n\(summary)")
        XCTAssertGreaterThan(counts?.last ?? 0, 50, String(line))
    }
}

/// The seed rule every randomized test follows.
final class TestSeedTests: XCTestCase {
    func testExplicitSeedWinsThenCIThenRandom() {
        let random = { UInt64(42) }
        XCTAssertEqual(TestSeed.choose(environment: ["RELIABILITY_SEED": "7", "CI": "true"], random: random).seed, 7)
        XCTAssertEqual(TestSeed.choose(environment: ["CI": "true"], pinned: 9, random: random).seed, 9)
        XCTAssertEqual(TestSeed.choose(environment: ["CI": "true"], random: random).source, .ci)
        XCTAssertEqual(TestSeed.choose(environment: ["CI": "false"], random: random).seed, 42)
        XCTAssertEqual(TestSeed.choose(environment: [:], random: random).source, .random)
        // An unreadable RELIABILITY_SEED is ignored.
        XCTAssertEqual(TestSeed.choose(environment: ["RELIABILITY_SEED": "x"], random: random).source, .random)
    }
}
