import RealmSync
import RealmTestSupport
import XCTest

@testable import RealmSyncNet

/// Each malformation of a frame is refused with a `WireError` naming it, never a trap.
final class WireMalformationTests: XCTestCase {
    private let codec = WireCodec()
    private let mark = SyncMessage.mark(session: 7, requestID: 42)

    private func frame(_ head: String, _ body: [UInt8]) -> [UInt8] { Array(head.utf8) + [0x0A] + body }

    private func assertRefused(
        _ bytes: [UInt8], _ kind: WireError.Kind, mentioning text: String, codec: WireCodec? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try (codec ?? self.codec).decodeMessage(bytes), file: file, line: line) { error in
            guard let wire = error as? WireError else {
                return XCTFail("not a WireError: \(error)", file: file, line: line)
            }
            XCTAssertEqual(wire.kind, kind, "\(wire)", file: file, line: line)
            XCTAssertTrue(
                wire.message.contains(text), "'\(wire.message)' does not mention '\(text)'", file: file, line: line)
        }
    }

    private var markBody: [UInt8] { SyncMessageCodec.encode(mark) }

    func testAFrameOverTheLimitIsRefused() throws {
        let small = WireCodec(limits: WireLimits(maxFrameBytes: 16))
        assertRefused(try codec.encode(mark), .tooLarge, mentioning: "over 16", codec: small)
    }

    func testAFrameWithoutAHeadLineIsRefused() {
        assertRefused([], .badHead, mentioning: "no newline")
        assertRefused(Array(repeating: 0x41, count: 5000), .badHead, mentioning: "within the first 4096 bytes")
    }

    func testAnotherProtocolIsRefused() {
        assertRefused(frame("HTTP/1.1 200 OK", []), .badHead, mentioning: "does not start with RSYNC/1")
    }

    func testAnotherVersionIsRefusedByName() {
        assertRefused(frame("RSYNC/2 mark 7 0 0 0", []), .unsupportedVersion, mentioning: "RSYNC/2")
    }

    func testHeadFieldsThatDoNotParseAreRefused() {
        let n = markBody.count
        let cases: [(String, String)] = [
            ("RSYNC/1 mark 7 \(n) 0", "5 fields"),
            ("RSYNC/1 mark 7 \(n) 0 \(n) a.b c", "8 fields"),
            ("RSYNC/1 teleport 7 \(n) 0 \(n)", "unknown message kind"),
            ("RSYNC/1 mark -7 \(n) 0 \(n)", "field 3 (session)"),
            ("RSYNC/1 mark 4294967296 \(n) 0 \(n)", "field 3 (session)"),
            ("RSYNC/1 mark 7 0\(n) 0 \(n)", "field 4 (body length)"),
            ("RSYNC/1 mark 7 \(n) 2 \(n)", "field 5 (compressed)"),
            ("RSYNC/1 mark 7 \(n) 0 99999999999", "field 6 (inflated length)"),
            ("RSYNC/1 mark 7 \(n) 0 \(n) a.b.c", "only a bind carries a token"),
            ("RSYNC/1 bind 7 \(n) 0 \(n) a b", "8 fields"),
            ("RSYNC/1  mark 7 \(n) 0 \(n)", "unknown message kind ''"),
            ("RSYNC/1 mark 7 \(n) 0 \(n)\u{7F}", "not printable ASCII"),
        ]
        for (head, text) in cases {
            assertRefused(frame(head, markBody), .badHead, mentioning: text)
        }
    }

    func testABindTokenWithForeignCharactersIsRefused() {
        let bind = SyncMessageCodec.encode(.bind(session: 1, user: "u", needsClientFileID: false))
        assertRefused(frame("RSYNC/1 bind 1 \(bind.count) 0 \(bind.count) a/b", bind), .badHead, mentioning: "JWT")
    }

    func testABodyShorterOrLongerThanTheHeadSaysIsRefused() {
        let n = markBody.count
        assertRefused(frame("RSYNC/1 mark 7 \(n + 1) 0 \(n + 1)", markBody), .lengthMismatch, mentioning: "\(n) follow")
        assertRefused(frame("RSYNC/1 mark 7 \(n - 1) 0 \(n - 1)", markBody), .lengthMismatch, mentioning: "\(n) follow")
    }

    func testAPlainBodyClaimingAnotherInflatedLengthIsRefused() {
        let n = markBody.count
        assertRefused(frame("RSYNC/1 mark 7 \(n) 0 \(n + 3)", markBody), .lengthMismatch, mentioning: "cannot inflate")
    }

    func testAnInflatedLengthOverTheLimitIsRefused() throws {
        let small = WireCodec(limits: WireLimits(maxInflatedBodyBytes: 8))
        let n = markBody.count
        let deflated = try XCTUnwrap(Deflate.compress(markBody))
        assertRefused(
            frame("RSYNC/1 mark 7 \(deflated.count) 1 \(n + 100)", deflated), .tooLarge, mentioning: "over 8",
            codec: small)
    }

    func testABadDeflateStreamIsRefused() throws {
        let n = markBody.count
        let deflated = try XCTUnwrap(Deflate.compress(markBody))
        var corrupt = deflated
        corrupt[0] ^= 0xFF
        assertRefused(frame("RSYNC/1 mark 7 \(corrupt.count) 1 \(n)", corrupt), .badDeflate, mentioning: "corrupt")
        let truncated = Array(deflated.dropLast(3))
        assertRefused(
            frame("RSYNC/1 mark 7 \(truncated.count) 1 \(n)", truncated), .badDeflate,
            mentioning: "corrupt or truncated")
        let trailing = deflated + [1, 2, 3]
        assertRefused(
            frame("RSYNC/1 mark 7 \(trailing.count) 1 \(n)", trailing), .badDeflate, mentioning: "3 bytes follow")
        assertRefused(
            frame("RSYNC/1 mark 7 \(deflated.count) 1 \(n - 2)", deflated), .badDeflate, mentioning: "more than")
        assertRefused(
            frame("RSYNC/1 mark 7 \(deflated.count) 1 \(n - 1)", deflated), .badDeflate, mentioning: "inflates to")
        assertRefused(
            frame("RSYNC/1 mark 7 \(deflated.count) 1 \(n + 1)", deflated), .badDeflate, mentioning: "inflates to")
    }

    func testABodyThatDoesNotDecodeIsRefused() {
        let garbage: [UInt8] = [1, 2, 3, 4, 5]
        assertRefused(frame("RSYNC/1 mark 7 5 0 5", garbage), .badMessage, mentioning: "does not decode")
    }

    func testABodyOfAnotherKindOrSessionIsRefused() {
        let n = markBody.count
        assertRefused(frame("RSYNC/1 unbind 7 \(n) 0 \(n)", markBody), .badMessage, mentioning: "the body is mark")
        assertRefused(frame("RSYNC/1 mark 8 \(n) 0 \(n)", markBody), .badMessage, mentioning: "on session 7")
    }

    /// Random bytes and random cuts of good frames: every one decodes or throws a `WireError`.
    func testRandomInputsNeverTrap() throws {
        let seed = TestSeed.make("WireMalformationTests.random")
        var random = SplitMix64(seed: seed)
        let good = try codec.encode(
            .error(session: 1, code: .otherError, message: String(repeating: "ab", count: 900), tryAgain: true))
        for _ in 0..<2000 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if Bool.random(using: &random) {
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            }
            do {
                _ = try codec.decodeMessage(bytes)
            } catch is WireError {
            }
        }
    }
}
