import Foundation
import XCTest

/// A short run of `realm-fuzz` (Sources/RealmFuzz) over each target, with the corpus in
/// Tests/FuzzCorpus: no crash, no hang, no failure. The million-input runs and their figures are
/// in docs/RELIABILITY.md. `RELIABILITY_FUZZ_SCALE=<x>` multiplies the input counts below.
final class FuzzTests: ReliabilityTestCase {
    /// Inputs per target in a debug build (about 5–10 s each).
    static let inputs: [(target: String, count: Int)] = [
        ("query-grammar", 20_000), ("query", 3_000), ("schema-lua", 8_000), ("schema-json", 15_000), ("plugin", 3_000),
        ("json", 5_000),
    ]

    func testFuzzTargetsShortRun() throws {
        let fuzzer = try BuiltProducts.require("realm-fuzz")
        let scale = ProcessInfo.processInfo.environment["RELIABILITY_FUZZ_SCALE"].flatMap(Double.init) ?? 1
        let seed =
            ProcessInfo.processInfo.environment["RELIABILITY_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64(Int64.max))
        print("fuzz: RELIABILITY_SEED=\(seed)")
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
                // The fuzzer's own watchdog ends a hung input after 30 s; this is the last resort.
                while child.process.isRunning && Date().timeIntervalSince(started) < 600 { usleep(50_000) }
                if child.process.isRunning {
                    child.kill()
                    XCTFail("\(target): still running after 600 s")
                }
                child.finish()
                let summary = child.lines.filter { $0.hasPrefix("realm-fuzz") || $0.hasPrefix("  FAILURE") }.joined(
                    separator: "\n")
                print(summary)
                XCTAssertEqual(
                    child.process.terminationReason, .exit, "\(target) crashed:\n\(child.standardError.suffix(4000))")
                XCTAssertEqual(
                    child.process.terminationStatus, 0, "\(target): \(summary)\n\(child.standardError.suffix(4000))")
                XCTAssertTrue(summary.contains(" 0 failures"), "\(target): \(summary)")
            }
        }
    }
}
