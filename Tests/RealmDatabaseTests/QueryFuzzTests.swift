import Foundation
import RealmTestSupport
import XCTest

@testable import RealmDatabase

/// Fuzzing the query language: random and mutated inputs must compile or fail with a query error,
/// never crash, and the SQL of every compiled query must be accepted by SQLite. Seeds: `TestSeed`
/// (the historical seeds under `CI=true`, random locally, `RELIABILITY_SEED` to replay).
final class QueryFuzzTests: XCTestCase {
    /// Parse-only runs: the lexer and parser on random, generated and mutated inputs.
    func testFuzzParser() {
        let iterations = Int(ProcessInfo.processInfo.environment["QUERY_FUZZ_PARSE_RUNS"] ?? "") ?? 100_000
        let seed = TestSeed.make("query parser fuzz", pinned: 0x5EED_0001)
        let report = QueryFuzzer.run(iterations: iterations, seed: seed, mode: .parse)
        print("QueryFuzzTests.testFuzzParser: \(report)")
        XCTAssertEqual(report.failures, [], "RELIABILITY_SEED=\(seed): \(report)")
        XCTAssertGreaterThan(report.parsed, iterations / 20, "RELIABILITY_SEED=\(seed)")
    }

    /// Parse, translate and run on SQLite.
    func testFuzzCompileAndExecute() {
        let iterations = Int(ProcessInfo.processInfo.environment["QUERY_FUZZ_EXEC_RUNS"] ?? "") ?? 20_000
        let seed = TestSeed.make("query execution fuzz", pinned: 0x5EED_0002)
        let report = QueryFuzzer.run(iterations: iterations, seed: seed, mode: .execute)
        print("QueryFuzzTests.testFuzzCompileAndExecute: \(report)")
        XCTAssertEqual(report.failures, [], "RELIABILITY_SEED=\(seed): \(report)")
        XCTAssertGreaterThan(report.executed, iterations / 50, "RELIABILITY_SEED=\(seed)")
    }
}
