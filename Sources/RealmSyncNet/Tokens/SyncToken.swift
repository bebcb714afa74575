import Foundation
import JWTKit

/// User tokens: HS256 JWTs whose `sub` is the user name and whose `exp` is near, signed by a host
/// with the secret it shares with the server, verified by the server, which trusts nothing else
/// about who a session's user is.
public struct SyncToken: Sendable {
    public static let algorithm = "HS256"
    /// Short: a token is signed afresh at every connection, so it need only outlive the handshake.
    public static let defaultLifetime: Duration = .seconds(600)

    private let secret: [UInt8]

    /// HS256 wants a key at least as long as its hash (RFC 7518 §3.2); jwt-kit traps on a shorter one.
    public static let minimumSecretBytes = 32

    /// Throws when `secret` is shorter than `minimumSecretBytes`.
    public init(secret: [UInt8]) throws {
        guard secret.count >= Self.minimumSecretBytes else {
            throw SyncTokenError(
                .malformed,
                "the shared secret has \(secret.count) bytes, at least \(Self.minimumSecretBytes) are needed")
        }
        self.secret = secret
    }

    public init(secret: String) throws { try self.init(secret: Array(secret.utf8)) }

    /// A token for `user`, valid from `now` for `lifetime`.
    public func sign(user: String, lifetime: Duration = defaultLifetime, now: Date = Date()) async throws -> String {
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) * 1e-18
        let claims = SyncTokenClaims(
            sub: SubjectClaim(value: user), exp: ExpirationClaim(value: now.addingTimeInterval(seconds)))
        return try await keys().sign(claims)
    }

    /// The user `token` names, once its algorithm, signature, expiry and subject are checked.
    /// Throws `SyncTokenError`.
    public func verify(_ token: String) async throws -> String {
        try Self.checkAlgorithm(token)
        let claims: SyncTokenClaims
        do {
            claims = try await keys().verify(token, as: SyncTokenClaims.self)
        } catch let error as SyncTokenError {
            throw error
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw SyncTokenError(.badSignature, "the signature does not match the shared secret")
        } catch {
            throw SyncTokenError(.malformed, "\(error)")
        }
        guard let user = claims.sub?.value, !user.isEmpty else {
            throw SyncTokenError(.missingSubject, "the token names no user (no 'sub')")
        }
        return user
    }

    private func keys() async -> JWTKeyCollection {
        await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    }

    /// jwt-kit verifies with the key's algorithm whatever the header says; a header naming another
    /// (or `none`) is refused here so a token's claims about itself are never taken on trust.
    private static func checkAlgorithm(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = base64URLDecode(parts[0]),
            let object = try? JSONSerialization.jsonObject(with: header) as? [String: Any]
        else { throw SyncTokenError(.malformed, "not a JWT (three base64url parts, a JSON header)") }
        guard let algorithm = object["alg"] as? String, algorithm == Self.algorithm else {
            let named = object["alg"].map { String(describing: $0).prefix(20) } ?? "nothing"
            throw SyncTokenError(.wrongAlgorithm, "the header names '\(named)', not \(Self.algorithm)")
        }
    }

    private static func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// The claims of a user token. `sub` is optional so a token without one is refused by name.
struct SyncTokenClaims: JWTPayload {
    var sub: SubjectClaim?
    var exp: ExpirationClaim?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        guard let exp else { throw SyncTokenError(.expired, "the token has no expiry ('exp')") }
        do {
            try exp.verifyNotExpired()
        } catch {
            throw SyncTokenError(.expired, "the token expired at \(exp.value)")
        }
    }
}
