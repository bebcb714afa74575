import RealmSync
import XCTest

@testable import RealmSyncNet

/// Frames round-trip: head fields, tokens, plain and deflated bodies, every message kind.
final class WireCodecTests: XCTestCase {
    private let codec = WireCodec()

    private func roundTrip(_ message: SyncMessage, token: String? = nil) throws -> [UInt8] {
        let bytes = try codec.encode(message, token: token)
        let decoded = try codec.decodeMessage(bytes)
        XCTAssertEqual(decoded.message, message)
        XCTAssertEqual(decoded.token, token)
        return bytes
    }

    private func headLine(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
    }

    func testSmallMessagesTravelPlainWithTheirHead() throws {
        let message = SyncMessage.mark(session: 7, requestID: 42)
        let bytes = try roundTrip(message)
        let body = SyncMessageCodec.encode(message)
        XCTAssertEqual(headLine(bytes), "RSYNC/1 mark 7 \(body.count) 0 \(body.count)")
        XCTAssertEqual(Array(bytes.suffix(body.count)), body)
    }

    func testBindCarriesItsTokenInTheHead() throws {
        let bytes = try roundTrip(.bind(session: 3, user: "alice", needsClientFileID: true), token: "aa.bb-_.cc")
        XCTAssertTrue(headLine(bytes).hasSuffix(" aa.bb-_.cc"), headLine(bytes))
    }

    func testLargeBodiesAreDeflated() throws {
        let text = String(repeating: "a repetitive error message ", count: 200)
        let message = SyncMessage.error(session: 1, code: .otherError, message: text, tryAgain: true)
        let plain = SyncMessageCodec.encode(message)
        let bytes = try roundTrip(message)
        let fields = headLine(bytes).split(separator: " ")
        XCTAssertEqual(fields[4], "1")
        XCTAssertEqual(fields[5], "\(plain.count)")
        XCTAssertLessThan(bytes.count, plain.count / 4)
    }

    func testBodiesUpToOneKiBStayPlainEvenWhenTheyWouldShrink() throws {
        let message = SyncMessage.queryError(session: 2, version: 9, message: String(repeating: "z", count: 1000))
        let body = SyncMessageCodec.encode(message)
        XCTAssertLessThanOrEqual(body.count, 1024)
        XCTAssertGreaterThan(body.count, 1000)
        let bytes = try roundTrip(message)
        XCTAssertEqual(headLine(bytes).split(separator: " ")[4], "0")
    }

    func testEveryKindRoundTrips() throws {
        let messages: [SyncMessage] = [
            .bind(session: 1, user: "u", needsClientFileID: false),
            .ident(session: 1, clientFileID: 5, salt: 6),
            .unbind(session: 4_000_000_000),
            .mark(session: 1, requestID: 1),
            .upload(session: 2, changesets: []),
            .download(session: 2, downloadCursor: 3, uploadAcknowledged: 1, changesets: []),
            .error(session: 9, code: .badAuthentication, message: "no", tryAgain: false),
            .queryError(session: 1, version: -1, message: "bad"),
        ]
        for message in messages { _ = try roundTrip(message) }
        XCTAssertEqual(Set(messages.map { WireKind($0) }).count, messages.count)
    }

    func testEncodingRefusesAFrameOverTheLimit() throws {
        let small = WireCodec(limits: WireLimits(maxFrameBytes: 64, deflateAbove: 1 << 20))
        let message = SyncMessage.error(
            session: 1, code: .otherError, message: String(repeating: "x", count: 100), tryAgain: true)
        XCTAssertThrowsError(try small.encode(message)) { error in
            XCTAssertEqual((error as? WireError)?.kind, .tooLarge)
        }
    }

    func testEncodingRefusesATokenOutsideABind() throws {
        XCTAssertThrowsError(try codec.encode(.mark(session: 1, requestID: 1), token: "a.b.c")) { error in
            XCTAssertEqual((error as? WireError)?.kind, .badHead)
        }
    }
}
