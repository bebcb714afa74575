import Foundation
import XCTest

@testable import RealmSyncNet

/// The shared secret: created once, 0600, random; read back the same; refused when others may read
/// it or when too short; what a host signs with it the server verifies.
final class SyncSharedSecretTests: XCTestCase {
    private var folder = URL(fileURLWithPath: "/")

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private var secretPath: String { folder.appendingPathComponent(SyncSharedSecret.fileName).path }

    private func mode(of path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    func testTheServerCreatesARandomSecretReadableByItsOwnerOnlyAndReadsItBackAfterwards() throws {
        let created = try SyncSharedSecret.forServer(dataFolder: folder, environment: [:])
        XCTAssertEqual(created.origin, .created(secretPath))
        XCTAssertEqual(try mode(of: secretPath), 0o600)
        let text = try String(contentsOfFile: secretPath, encoding: .utf8)
        XCTAssertEqual(text.count, 2 * SyncSharedSecret.generatedBytes + 1, "hex digits and a newline")
        XCTAssertTrue(text.dropLast().allSatisfy(\.isHexDigit), text)

        let again = try SyncSharedSecret.forServer(dataFolder: folder, environment: [:])
        XCTAssertEqual(again.origin, .file(secretPath))
        XCTAssertEqual(again.bytes, created.bytes)

        let other = FileManager.default.temporaryDirectory.appendingPathComponent("sync-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: other) }
        let elsewhere = try SyncSharedSecret.forServer(dataFolder: other, environment: [:])
        XCTAssertNotEqual(elsewhere.bytes, created.bytes, "two created secrets are the same")
    }

    func testTheEnvironmentWinsAndNoFileIsCreated() throws {
        let value = "  an environment secret of more than thirty-two bytes \n"
        let secret = try SyncSharedSecret.forServer(
            dataFolder: folder, environment: [SyncSharedSecret.environmentVariable: value])
        XCTAssertEqual(secret.origin, .environment)
        XCTAssertEqual(secret.bytes, Array("an environment secret of more than thirty-two bytes".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: secretPath))
    }

    func testAFileOthersMayReadOrWriteIsRefusedNamingItsMode() throws {
        try String(repeating: "cd", count: 32).write(toFile: secretPath, atomically: true, encoding: .utf8)
        for mode in [0o644, 0o640, 0o602, 0o700] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: secretPath)
            XCTAssertThrowsError(try SyncSharedSecret.read(file: secretPath)) { error in
                XCTAssertTrue("\(error)".contains("has mode 0\(String(mode, radix: 8))"), "\(error)")
            }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: secretPath)
        XCTAssertEqual(try SyncSharedSecret.read(file: secretPath).bytes.count, 64)
    }

    func testAShortOrMissingSecretIsRefusedNamingWhere() throws {
        XCTAssertThrowsError(
            try SyncSharedSecret.fromEnvironment([SyncSharedSecret.environmentVariable: "short"])
        ) { error in
            XCTAssertTrue("\(error)".contains("$REALMHOST_SYNC_SECRET"), "\(error)")
            XCTAssertTrue("\(error)".contains("at least 32"), "\(error)")
        }
        XCTAssertNil(try SyncSharedSecret.fromEnvironment([:]))
        XCTAssertThrowsError(try SyncSharedSecret.read(file: secretPath)) { error in
            XCTAssertTrue("\(error)".contains(secretPath), "\(error)")
        }
    }

    func testATokenSignedWithTheSecretIsVerifiedByTheServerAndItsDescriptionHidesIt() async throws {
        let secret = try SyncSharedSecret.forServer(dataFolder: folder, environment: [:])
        let token = try await secret.signToken(user: "alice")
        let server = try SyncToken(secret: secret.bytes)
        let user = try await server.verify(token)
        XCTAssertEqual(user, "alice")
        XCTAssertFalse("\(secret)".contains(String(decoding: secret.bytes, as: UTF8.self)), "\(secret)")
        XCTAssertTrue("\(secret)".contains(secretPath), "\(secret)")
    }
}
