import Foundation
import JWTKit
import XCTest

@testable import RealmSyncNet

/// Tokens: what a host signs the server accepts; forged, expired, other-algorithm and subjectless
/// tokens are refused by name.
final class SyncTokenTests: XCTestCase {
    private let tokens = try? SyncToken(secret: "a secret shared by the hosts and the server, long enough for HS384")

    private func authority() throws -> SyncToken { try XCTUnwrap(tokens) }

    private func assertRefused(
        _ token: String, _ reason: SyncTokenError.Reason, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        do {
            let user = try await authority().verify(token)
            XCTFail("accepted for \(user)", file: file, line: line)
        } catch let error as SyncTokenError {
            XCTAssertEqual(error.reason, reason, "\(error)", file: file, line: line)
        }
    }

    /// A token signed by jwt-kit directly, with any claims and algorithm.
    private func forge(_ claims: some JWTPayload, secret: String, digest: DigestAlgorithm = .sha256) async throws
        -> String
    {
        try await JWTKeyCollection().add(hmac: HMACKey(from: Array(secret.utf8)), digestAlgorithm: digest).sign(claims)
    }

    func testATokenNamesItsUser() async throws {
        let token = try await authority().sign(user: "alice")
        let user = try await authority().verify(token)
        XCTAssertEqual(user, "alice")
    }

    func testATokenSignedWithAnotherSecretIsRefused() async throws {
        let other = try SyncToken(secret: "not the shared secret, though as long as one")
        try await assertRefused(try await other.sign(user: "alice"), .badSignature)
    }

    func testAnAlteredPayloadIsRefused() async throws {
        let alice = try await authority().sign(user: "alice").split(separator: ".").map(String.init)
        let bob = try await authority().sign(user: "bob").split(separator: ".").map(String.init)
        try await assertRefused([alice[0], bob[1], alice[2]].joined(separator: "."), .badSignature)
    }

    func testAnExpiredTokenIsRefused() async throws {
        let token = try await authority().sign(user: "alice", now: Date().addingTimeInterval(-3600))
        try await assertRefused(token, .expired)
    }

    func testATokenWithoutExpiryIsRefused() async throws {
        let claims = SyncTokenClaims(sub: SubjectClaim(value: "alice"), exp: nil)
        try await assertRefused(
            try await forge(claims, secret: "a secret shared by the hosts and the server, long enough for HS384"),
            .expired)
    }

    func testAnotherAlgorithmIsRefused() async throws {
        let claims = SyncTokenClaims(sub: "alice", exp: ExpirationClaim(value: Date().addingTimeInterval(60)))
        let hs384 = try await forge(
            claims, secret: "a secret shared by the hosts and the server, long enough for HS384", digest: .sha384)
        try await assertRefused(hs384, .wrongAlgorithm)
        // alg "none": the good token's payload and signature under a header naming no algorithm.
        let good = try await authority().sign(user: "alice").split(separator: ".").map(String.init)
        let none = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        try await assertRefused([none, good[1], good[2]].joined(separator: "."), .wrongAlgorithm)
    }

    func testATokenWithoutSubjectIsRefused() async throws {
        let claims = SyncTokenClaims(sub: nil, exp: ExpirationClaim(value: Date().addingTimeInterval(60)))
        try await assertRefused(
            try await forge(claims, secret: "a secret shared by the hosts and the server, long enough for HS384"),
            .missingSubject)
        let empty = SyncTokenClaims(sub: "", exp: ExpirationClaim(value: Date().addingTimeInterval(60)))
        try await assertRefused(
            try await forge(empty, secret: "a secret shared by the hosts and the server, long enough for HS384"),
            .missingSubject)
    }

    func testGarbageIsRefusedAsMalformed() async throws {
        for garbage in ["", "abc", "a.b.c", "....", "eyJhbGciOiJIUzI1NiJ9.!!!.x"] {
            try await assertRefused(garbage, .malformed)
        }
    }

    func testASecretShorterThanTheHashIsRefused() {
        XCTAssertThrowsError(try SyncToken(secret: [UInt8]()))
        XCTAssertThrowsError(try SyncToken(secret: [UInt8](repeating: 7, count: 31)))
        XCTAssertNoThrow(try SyncToken(secret: [UInt8](repeating: 7, count: 32)))
    }
}
