import Foundation
import RealmDatabase
import RealmSync
import XCTest

@testable import RealmHost

/// A tenant session's download marks and failures, without a network: the endpoint is fed as the
/// network client feeds it.
final class TenantSyncEndpointTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tenant-endpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private func endpoint() throws -> (TenantSyncEndpoint, SyncErrorEvents) {
        let schema = Schema([
            ObjectSchema(
                className: "Item",
                properties: [Property(name: "_id", type: .string), Property(name: "text", type: .string)],
                primaryKey: "_id")
        ])
        let configuration = Realm.Configuration(fileURL: folder.appendingPathComponent("a.realm"), schema: schema)
        let errors = SyncErrorEvents()
        let client = try SyncClient(configuration: configuration, user: "alice", wallClock: SystemWallClock())
        return (TenantSyncEndpoint(client: client, errors: errors), errors)
    }

    /// Connected, identified and downloaded once: marks may go.
    private func bringUp(_ endpoint: TenantSyncEndpoint) throws {
        _ = try endpoint.connect(session: 1)
        _ = try endpoint.receive(.ident(session: 1, clientFileID: 5, salt: 7))
        _ = try endpoint.receive(.download(session: 1, downloadCursor: 0, uploadAcknowledged: 0, changesets: []))
    }

    private func marks(_ messages: [SyncMessage]) -> [UInt64] {
        messages.compactMap { if case .mark(_, let request) = $0 { request } else { nil } }
    }

    func testOneMarkIsOutstandingAndItsAnswerAnswersEveryEarlierRequest() throws {
        let (endpoint, _) = try endpoint()
        // Waits asked for while offline (and perhaps timed out) add up to one mark, not a queue.
        let early = (0..<100).map { _ in endpoint.requestMark() }
        try bringUp(endpoint)
        XCTAssertEqual(marks(try endpoint.pendingUploads()), [100])
        let later = endpoint.requestMark()
        XCTAssertEqual(marks(try endpoint.pendingUploads()), [], "one mark is outstanding")

        XCTAssertEqual(try endpoint.receive(.mark(session: 1, requestID: 100)), [])
        XCTAssertTrue(early.allSatisfy { endpoint.isAnswered($0) })
        XCTAssertFalse(endpoint.isAnswered(later))
        XCTAssertEqual(marks(try endpoint.pendingUploads()), [later])
        XCTAssertEqual(try endpoint.receive(.mark(session: 1, requestID: later)), [])
        XCTAssertTrue(endpoint.isAnswered(later))
        XCTAssertEqual(marks(try endpoint.pendingUploads()), [], "nothing left to ask")
    }

    func testAMarkLostWithItsConnectionIsSentOnceOnTheNext() throws {
        let (endpoint, _) = try endpoint()
        try bringUp(endpoint)
        let first = endpoint.requestMark()
        XCTAssertEqual(marks(try endpoint.pendingUploads()), [first])
        endpoint.disconnect()
        let second = endpoint.requestMark()
        try bringUp(endpoint)
        XCTAssertEqual(marks(try endpoint.pendingUploads()), [second])
        XCTAssertEqual(try endpoint.receive(.mark(session: 1, requestID: second)), [])
        XCTAssertTrue(endpoint.isAnswered(first))
    }

    func testATransportFailureEndsTheSessionVisibly() throws {
        let (endpoint, errors) = try endpoint()
        try bringUp(endpoint)
        endpoint.transportFailed(SyncError(.limitsExceeded, "an upload of 30 MB is over the frame limit"))
        XCTAssertEqual(endpoint.sessionError, "an upload of 30 MB is over the frame limit")
        let events = errors.take()
        XCTAssertEqual(events.map(\.code), [Int(SyncErrorCode.limitsExceeded.rawValue)])
    }
}
