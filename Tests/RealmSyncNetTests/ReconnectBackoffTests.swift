import XCTest

@testable import RealmSyncNet

final class ReconnectBackoffTests: XCTestCase {
    func testDelaysDoubleFromOneSecondToFiveMinutes() {
        let top = ReconnectBackoff(random: { 0.999_999 })
        let expected: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32)]
        for (failures, delay) in expected.enumerated() {
            let got = top.delay(afterFailures: failures)
            XCTAssertLessThanOrEqual(got, delay)
            XCTAssertGreaterThan(got, delay * 0.99)
        }
        XCTAssertLessThanOrEqual(top.delay(afterFailures: 9), .seconds(300))
        XCTAssertGreaterThan(top.delay(afterFailures: 9), .seconds(299))
        XCTAssertLessThanOrEqual(top.delay(afterFailures: 1_000_000), .seconds(300))
    }

    func testJitterScalesADelayDownToHalf() {
        XCTAssertEqual(ReconnectBackoff(random: { 0 }).delay(afterFailures: 3), .seconds(4))
        XCTAssertEqual(ReconnectBackoff(random: { 0.5 }).delay(afterFailures: 3), .seconds(6))
        // Out-of-range randoms are clamped, never a longer or negative delay.
        XCTAssertEqual(ReconnectBackoff(random: { 7 }).delay(afterFailures: 0), .seconds(1))
        XCTAssertEqual(ReconnectBackoff(random: { -1 }).delay(afterFailures: 0), .milliseconds(500))
    }
}
