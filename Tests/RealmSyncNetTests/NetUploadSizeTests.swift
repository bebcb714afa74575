import Foundation
import RealmSync
import XCTest

@testable import RealmSyncNet

/// Uploads stay within the frame limit: the client splits them; a changeset too large for any frame
/// fails its session with an error the host sees, instead of vanishing.
final class NetUploadSizeTests: XCTestCase {
    private let limits = WireLimits(maxFrameBytes: 4096)

    /// Text deflate cannot shrink much: random letters and digits.
    private func noise(_ count: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<count).map { _ in alphabet.randomElement() ?? "x" })
    }

    func testCommitsOverTheFrameLimitTogetherAreSplitAndArrive() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer(limits: limits)
        let url = try await fixture.url(of: server)
        let a = try fixture.replica("a", user: "alice")
        for index in 0..<20 { try a.write("item\(index)", noise(1000)) }
        let host = try fixture.client(url: url, limits: limits)
        try await host.register(a, session: 1, user: "alice")
        await host.start()

        let stored = await eventually { (try? fixture.serverState().objects.count) == 20 }
        XCTAssertTrue(stored, "20 KB of commits did not arrive in 4 KB frames")
        let errors = await host.sessionErrors
        XCTAssertEqual(errors, [:])
        await host.stop()
        await server.stop()
    }

    /// The server cuts a bootstrap by bytes as well as by objects: a replica bootstrapping 20 KB of
    /// objects through 4 KB frames gets them all, with no session error.
    func testABootstrapOverTheFrameLimitArrivesInFramesThatFit() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer(limits: limits)
        let url = try await fixture.url(of: server)
        let writer = try fixture.replica("a", user: "alice")
        for index in 0..<20 { try writer.write("item\(index)", noise(1000)) }
        let first = try fixture.client(url: url, limits: limits)
        try await first.register(writer, session: 1, user: "alice")
        await first.start()
        let stored = await eventually { (try? fixture.serverState().objects.count) == 20 }
        XCTAssertTrue(stored, "20 KB of commits did not arrive in 4 KB frames")
        await first.stop()

        let reader = try fixture.replica("b", user: "alice")
        let second = try fixture.client(url: url, limits: limits)
        try await second.register(reader, session: 1, user: "alice")
        await second.start()
        let bootstrapped = await eventually { reader.count == 20 }
        XCTAssertTrue(bootstrapped, "a bootstrap of 20 KB did not arrive in 4 KB frames: \(reader.count) objects")
        XCTAssertTrue(try reader.text("item7") == writer.text("item7"), "item7 arrived other than written")
        let errors = await second.sessionErrors
        XCTAssertEqual(errors, [:])
        await second.stop()
        await server.stop()
    }

    func testAChangesetOverTheFrameLimitFailsItsSessionVisibly() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer(limits: limits)
        let url = try await fixture.url(of: server)
        let a = try fixture.replica("a", user: "alice")
        try a.write("big", noise(8000))
        let host = try fixture.client(url: url, limits: limits)
        try await host.register(a, session: 1, user: "alice")
        await host.start()

        let failed = await eventually { await host.sessionErrors[1]?.contains("cannot send its upload") == true }
        let errors = await host.sessionErrors
        XCTAssertTrue(failed, "\(errors)")
        await host.stop()
        await server.stop()
    }
}
