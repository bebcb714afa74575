import Foundation
import XCTest

@testable import RealmBench

/// The pieces the network rows measure with: percentiles, the observers' barrier, a run that
/// reports its own figure, and the report of a row in kilobytes. No timing is asserted.
final class BenchMeasurementTests: XCTestCase {
    func testPercentilesAreNearestRankInSeconds() {
        var samples = LatencySamples()
        for ms in (1...100).reversed() { samples.add(from: 0, to: UInt64(ms) * 1_000_000) }
        XCTAssertEqual(samples.percentile(0.5).value, 0.050, accuracy: 1e-9)
        XCTAssertEqual(samples.percentile(0.99).value, 0.099, accuracy: 1e-9)
        XCTAssertEqual(samples.percentile(1).value, 0.100, accuracy: 1e-9)
        XCTAssertEqual(samples.percentile(0.99).events, 100)
        samples.add(from: 10, to: 5)
        XCTAssertEqual(samples.percentile(0).value, 0, "an end before its start counts as no time")
        XCTAssertFalse(LatencySamples().percentile(0.5).value.isFinite, "no samples, no figure")
    }

    func testTheBarrierIsReachedWhenEveryObserverSawTheValueOrALaterOne() throws {
        let barrier = ObservationBarrier(observers: 3)
        barrier.expect(5)
        barrier.observed(4, by: 0)
        barrier.observed(5, by: 0)
        barrier.observed(5, by: 0)
        barrier.observed(7, by: 3)
        barrier.observed(6, by: 1)
        XCTAssertThrowsError(try barrier.wait("write 5", timeout: .milliseconds(20))) { error in
            XCTAssertEqual("\(error)", "write 5: 1 of 3 observers had not seen it after 0.02 seconds")
        }
        barrier.observed(5, by: 2)
        XCTAssertGreaterThan(try barrier.wait("write 5", timeout: .seconds(10)), 0)
        barrier.expect(6)
        XCTAssertThrowsError(try barrier.wait("write 6", timeout: .milliseconds(20)), "a new round starts unseen")
    }

    func testARunThatMeasuresItselfReportsItsFigureAndCountsItsWallTimeForMinTime() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = BenchContext(folder: folder, scale: 1, runs: 1, minTime: 0.05)
        var released = 0
        let side: SideBuilder = { _ in
            PreparedRun(
                run: {
                    // 30 ms of CPU (and so at least 30 ms of wall time).
                    let start = processCPUNanoseconds()
                    while processCPUNanoseconds() - start < 30_000_000 {}
                    return 7
                }, figure: { RunFigure(value: 0.001, events: 4) }, release: { released += 1 })
        }
        let m = try Runner(context: context).measure(
            Comparison(
                name: "self", target: 2, size: 1, warmUpSize: nil, maxFigure: 100, unit: .kilobytes, ours: side,
                raw: side))
        // Counting the figures (1 ms a run) toward --min-time would make 50 rounds; the wall time makes 1 or 2.
        XCTAssertLessThanOrEqual(m.runs, 2)
        XCTAssertEqual(released, 2 * m.runs, "every run released what it started")
        XCTAssertEqual(m.ours.bestSeconds, 0.001)
        XCTAssertLessThan(m.ours.cpuSeconds, 0.02, "the run's 30 ms of CPU are shared out over its 4 events")
        XCTAssertEqual(m.passed, true)
        XCTAssertEqual(m.unit, .kilobytes)
        let json = Report.json(m)
        XCTAssertTrue(json.contains(#""unit": "KB""#), json)
        XCTAssertTrue(json.contains(#""target_kb": 100.0"#), json)
        XCTAssertFalse(json.contains("target_s"), json)
        XCTAssertTrue(Report.table([m]).contains("≤ 2.0, ≤ 100 KB"), Report.table([m]))
    }
}
