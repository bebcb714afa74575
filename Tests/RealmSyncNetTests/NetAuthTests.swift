import Foundation
import RealmSync
import XCTest

@testable import RealmSyncNet

/// The server trusts only the token: a session bound as another user, or with a forged or expired
/// token, gets an `error` and nothing of the store.
final class NetAuthTests: XCTestCase {
    /// Registers `replica` as `user` on a client signing with `tokens`; the session's error once it has one.
    private func refusal(
        _ fixture: NetFixture, url: String, user: String, tokens: @escaping SyncNetClient.TokenSource
    ) async throws -> String? {
        let replica = try fixture.replica("refused-\(user)", user: user)
        let host = try fixture.client(url: url, tokens: tokens)
        try await host.register(replica, session: 1, user: user)
        await host.start()
        _ = await eventually { await host.sessionErrors[1] != nil }
        let error = await host.sessionErrors[1]
        await host.stop()
        XCTAssertEqual(replica.count, 0)
        return error
    }

    func testBobsSessionWithAlicesTokenIsRefused() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let signer = try SyncToken(secret: fixture.secret)
        let error = try await refusal(fixture, url: url, user: "bob") { _ in try await signer.sign(user: "alice") }
        XCTAssertTrue(
            error?.contains("the token is for user 'alice', the bind asks for 'bob'") == true, "\(error ?? "none")")
        XCTAssertTrue(
            error?.contains("sync error \(SyncErrorCode.userMismatch.rawValue)") == true, "\(error ?? "none")")
        XCTAssertEqual(try fixture.latestServerVersion(), 0)
        await server.stop()
    }

    func testAForgedTokenIsRefused() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let forger = try SyncToken(secret: "a guess at the secret, long enough to be used")
        let error = try await refusal(fixture, url: url, user: "alice") { try await forger.sign(user: $0) }
        XCTAssertTrue(error?.contains("token refused (badSignature)") == true, "\(error ?? "none")")
        XCTAssertTrue(error?.contains("sync error \(SyncErrorCode.badAuthentication.rawValue)") == true)
        await server.stop()
    }

    func testAnExpiredTokenIsRefused() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let signer = try SyncToken(secret: fixture.secret)
        let error = try await refusal(fixture, url: url, user: "alice") {
            try await signer.sign(user: $0, now: Date().addingTimeInterval(-3600))
        }
        XCTAssertTrue(error?.contains("token refused (expired)") == true, "\(error ?? "none")")
        await server.stop()
    }

    func testABindWithoutATokenIsRefused() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let bind = try WireCodec().encode(.bind(session: 4, user: "alice", needsClientFileID: true))
        let result = try await rawPeer(url: url, send: [bind], replies: 1)
        let replies = try result.received.map { try WireCodec().decodeMessage($0).message }
        guard case .error(4, .badAuthentication, let message, false)? = replies.first else {
            return XCTFail("no refusal: \(replies)")
        }
        XCTAssertTrue(message.contains("needs the user's token"), message)
        await server.stop()
    }
}
