import XCTest

@testable import RealmSync

final class ClockTests: XCTestCase {
    func testReadingsOnlyGrowWhenTheWallClockStandsStillOrGoesBack() {
        var clock = HybridLogicalClock()
        let a = clock.tick(now: 1000)
        let b = clock.tick(now: 1000)
        let c = clock.tick(now: 900)
        XCTAssertLessThan(a, b)
        XCTAssertLessThan(b, c)
        XCTAssertEqual(c.milliseconds, 1000)
        XCTAssertEqual(c.counter, 2)
    }

    func testAnObservedRemoteReadingIsExceededByTheNextLocalOne() {
        var clock = HybridLogicalClock()
        _ = clock.tick(now: 10)
        let remote = HLCTimestamp(milliseconds: 5000, counter: 7)
        clock.observe(remote)
        let next = clock.tick(now: 20)
        XCTAssertGreaterThan(next, remote)
        XCTAssertEqual(next.milliseconds, 5000)
    }

    func testAFullCounterCarriesIntoTheMilliseconds() {
        var clock = HybridLogicalClock(last: HLCTimestamp(milliseconds: 7, counter: .max))
        let next = clock.tick(now: 7)
        XCTAssertEqual(next.milliseconds, 8)
        XCTAssertEqual(next.counter, 0)
    }

    func testPositionsBetweenAnyTwoAreStrictlyBetween() {
        var positions: [FractionalPosition] = [.first]
        var generator = UInt64(42)
        for _ in 0..<2000 {
            generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let index = Int(generator >> 33) % (positions.count + 1)
            let lower = index > 0 ? positions[index - 1] : nil
            let upper = index < positions.count ? positions[index] : nil
            let new = FractionalPosition.between(lower, upper)
            if let lower { XCTAssertLessThan(lower, new) }
            if let upper { XCTAssertLessThan(new, upper) }
            XCTAssertNotNil(FractionalPosition(bytes: new.bytes))
            positions.insert(new, at: index)
        }
    }
}
