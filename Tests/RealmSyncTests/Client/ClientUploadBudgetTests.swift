import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// `maxUploadBytes` splits the pending changesets into uploads that each fit a transport's frame.
final class ClientUploadBudgetTests: XCTestCase {
    private var folder: ClientTestFolder!
    private let wall = ManualWallClock.clientStart()

    override func setUpWithError() throws { folder = try ClientTestFolder() }
    override func tearDown() { folder = nil }

    /// An identified client with `count` local commits, each a person with a 300-character name.
    private func clientWithCommits(_ count: Int) throws -> SyncClient {
        let client = try SyncClient(configuration: folder.configuration("a"), user: "u", wallClock: wall)
        try client.identify(as: 1)
        for index in 0..<count {
            try client.realm.write {
                _ = try client.realm.create(
                    "Person", value: ["id": .string("p\(index)"), "name": .string(String(repeating: "x", count: 300))])
            }
        }
        return client
    }

    private func changesets(_ messages: [SyncMessage]) -> [UInt64] {
        messages.flatMap { message -> [UInt64] in
            guard case .upload(_, let changesets) = message else { return [] }
            return changesets.map(\.clientVersion)
        }
    }

    func testUploadsAreSplitToStayUnderTheBudgetInOrder() throws {
        let client = try clientWithCommits(5)
        client.maxUploadBytes = 800
        let messages = try client.pendingUploads()
        XCTAssertGreaterThan(messages.count, 1)
        for message in messages {
            XCTAssertLessThanOrEqual(SyncMessageCodec.encode(message).count, 800, "\(message)")
        }
        XCTAssertEqual(changesets(messages), [1, 2, 3, 4, 5])
        XCTAssertEqual(try client.pendingUploads(), [], "every changeset was sent")
    }

    func testWithoutABudgetOneUploadCarriesThemAll() throws {
        let client = try clientWithCommits(3)
        let messages = try client.pendingUploads()
        XCTAssertEqual(messages.count, 1)
        XCTAssertEqual(changesets(messages), [1, 2, 3])
    }

    func testAChangesetOverTheBudgetGoesAlone() throws {
        let client = try clientWithCommits(3)
        client.maxUploadBytes = 10
        let messages = try client.pendingUploads()
        XCTAssertEqual(messages.count, 3)
        XCTAssertEqual(changesets(messages), [1, 2, 3])
    }
}
