import Foundation
import JWTKit
import RealmDatabase
import RealmHost
import Synchronization

/// App users' tokens (docs/SERVE.md "Who is calling"): JWTs verified against the keys of
/// `host.lua`'s `auth` table, or HS256 with the development secret (`DATA/auth-secret`).
///
/// The algorithm is the key's, never the token's: the header's `alg` must name the algorithm of
/// the key its `kid` selects (a token may omit `kid` only when one key is configured). `exp` is
/// required; `nbf`, `iss` and `aud` are checked when present or configured. Every refusal says why
/// (expired, wrong audience, unknown kid, bad signature…), never which part of a signature was wrong.
public struct AppTokens: Sendable {
    /// Who a verified token names, and everything it claims (functions see them as `caller.claims`).
    public struct Caller: Sendable {
        public let user: String
        public let claims: JSONValue
    }

    /// The development secret's file in the data folder.
    public static let secretFileName = "auth-secret"
    /// How far a clock may be off between the token's issuer and this host.
    public static let leeway: TimeInterval = 30

    private let keys: JWTKeyCollection
    /// The algorithm of each key, by kid ("" for the one key without a kid).
    private let algorithms: [String: String]
    private let issuer: String?
    private let audience: String?
    private let userClaim: String
    /// The HS256 secret, when tokens are signed with it (then `sign` works).
    private let secret: [UInt8]?
    /// Tokens verified already, until they expire: an app sends the same token with every call, and
    /// verifying it again (two JSON documents, a signature) cost more than a small call itself.
    private let verified = VerifiedTokens()

    /// The verifier `auth` describes: public keys (inline and from `jwksFile`) or, without any, the
    /// development secret (created, mode 0600, when missing).
    public static func make(auth: HostAuthOptions, dataFolder: URL) async throws -> AppTokens {
        let keys = JWTKeyCollection()
        var algorithms = [String: String]()
        if auth.usesPublicKeys {
            for key in auth.keys {
                try await add(key, to: keys)
                algorithms[key.kid] = key.algorithm
            }
            if let file = auth.jwksFile { try await addJWKS(file, to: keys, algorithms: &algorithms) }
            // jwt-kit falls back to its first key for a token whose kid it does not know; `verify`
            // checks the kid first, and without a default key nothing can slip past that check.
            if algorithms.count > 1 { await keys.clearDefault() }
            return AppTokens(keys: keys, algorithms: algorithms, auth: auth, secret: nil)
        }
        let path = (auth.secretFile ?? dataFolder.appendingPathComponent(secretFileName)).path
        let text: String
        do {
            text = try OwnerOnlyFile.readOrCreate(path, what: "the app tokens' secret file")
        } catch let failure as OwnerOnlyFile.Failure {
            throw HostError.configuration(failure.message)
        }
        let secret = Array(text.utf8)
        guard secret.count >= 32 else {
            throw HostError.configuration(
                "the app tokens' secret file \(path) holds \(secret.count) bytes; 32 at least")
        }
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return AppTokens(keys: keys, algorithms: ["": "HS256"], auth: auth, secret: secret)
    }

    private init(keys: JWTKeyCollection, algorithms: [String: String], auth: HostAuthOptions, secret: [UInt8]?) {
        self.keys = keys
        self.algorithms = algorithms
        issuer = auth.issuer
        audience = auth.audience
        userClaim = auth.userClaim
        self.secret = secret
    }

    /// Whether tokens are signed with the development secret (`realm-host token` can sign them).
    public var canSign: Bool { secret != nil }

    // MARK: Verifying

    /// The caller a `Bearer` token names; throws `ServeError.unauthorized` saying why not.
    public func verify(_ token: String, now: Date = Date()) async throws -> Caller {
        if let caller = verified.caller(token, at: now.timeIntervalSince1970) { return caller }
        let (header, payload) = try Self.parts(of: token)
        let kid = header[field: "kid"].flatMap { if case .string(let s) = $0 { s } else { nil } }
        let expected = try algorithm(forKid: kid)
        guard case .string(let named)? = header[field: "alg"], named == expected else {
            throw ServeError.unauthorized(
                "the token's header names algorithm '\(Self.text(header[field: "alg"]))'; its key uses \(expected)")
        }
        do {
            _ = try await keys.verify(token, as: SignatureOnly.self)
        } catch let error as JWTError {
            switch error.errorType {
            case .unknownKID: throw ServeError.unauthorized("unknown kid '\(kid ?? "")'")
            case .signatureVerificationFailed: throw ServeError.unauthorized("bad signature")
            default: throw ServeError.unauthorized("the token cannot be verified (malformed)")
            }
        } catch {
            throw ServeError.unauthorized("the token cannot be verified (malformed)")
        }
        try checkClaims(payload, now: now)
        guard case .string(let user)? = payload[field: userClaim] else {
            throw ServeError.unauthorized("the token has no '\(userClaim)' claim naming the user")
        }
        do {
            try UserName.validate(user)
        } catch {
            throw ServeError.unauthorized("the token's '\(userClaim)' is not a valid user name: \(error)")
        }
        let caller = Caller(user: user, claims: payload)
        if let exp = Self.seconds(payload[field: "exp"]) {
            verified.keep(token, caller, notBefore: Self.seconds(payload[field: "nbf"]) ?? 0, until: exp + Self.leeway)
        }
        return caller
    }

    /// The algorithm the key named by `kid` uses; a missing kid is allowed only with one key.
    private func algorithm(forKid kid: String?) throws -> String {
        if let kid {
            if let algorithm = algorithms[kid] { return algorithm }
            if algorithms.count == 1, let only = algorithms[""] { return only }
            throw ServeError.unauthorized("unknown kid '\(kid)'")
        }
        guard algorithms.count == 1, let only = algorithms.values.first else {
            throw ServeError.unauthorized("the token has no 'kid' and several keys are configured")
        }
        return only
    }

    /// `exp` (required), `nbf`, `iss` and `aud`, with `leeway` for clocks.
    private func checkClaims(_ payload: JSONValue, now: Date) throws {
        guard let exp = Self.seconds(payload[field: "exp"]) else {
            throw ServeError.unauthorized("the token has no expiry ('exp')")
        }
        let time = now.timeIntervalSince1970
        if exp + Self.leeway < time {
            throw ServeError.unauthorized("the token expired at \(Date(timeIntervalSince1970: exp))")
        }
        if let nbf = Self.seconds(payload[field: "nbf"]), nbf - Self.leeway > time {
            throw ServeError.unauthorized("the token is not valid before \(Date(timeIntervalSince1970: nbf))")
        }
        if let issuer {
            guard case .string(let iss)? = payload[field: "iss"], iss == issuer else {
                throw ServeError.unauthorized(
                    "wrong issuer: '\(Self.text(payload[field: "iss"]))', expected '\(issuer)'")
            }
        }
        if let audience {
            let audiences: [String]
            switch payload[field: "aud"] {
            case .string(let one)?: audiences = [one]
            case .array(let many)?: audiences = many.compactMap { if case .string(let s) = $0 { s } else { nil } }
            default: audiences = []
            }
            guard audiences.contains(audience) else {
                throw ServeError.unauthorized("wrong audience: the token is not for '\(audience)'")
            }
        }
    }

    // MARK: Signing (development)

    /// A token for `user` with the development secret, for `realm-host token` and tests.
    public func sign(user: String, lifetime: TimeInterval, claims: [String: String] = [:], now: Date = Date())
        async throws -> String
    {
        guard canSign else {
            throw HostError.configuration(
                "host.lua's auth names public keys: tokens are issued by whoever holds their private keys, not by realm-host"
            )
        }
        var payload = DevelopmentClaims(claims: claims)
        payload.claims[userClaim] = user
        guard let exp = Int64(exactly: (now.timeIntervalSince1970 + lifetime).rounded(.down)) else {
            throw HostError.configuration("a token lifetime of \(lifetime) s is out of range")
        }
        payload.exp = exp
        payload.iat = Int64(now.timeIntervalSince1970)
        if let issuer { payload.claims["iss"] = issuer }
        if let audience { payload.claims["aud"] = audience }
        return try await keys.sign(payload)
    }

    // MARK: Plumbing

    private static func add(_ key: HostAuthOptions.Key, to keys: JWTKeyCollection) async throws {
        let kid = JWKIdentifier(string: key.kid)
        do {
            switch key.algorithm {
            case "EdDSA": await keys.add(eddsa: try EdDSA.PublicKey(pem: key.publicKeyPEM), kid: kid)
            case "ES256": await keys.add(ecdsa: try ES256PublicKey(pem: key.publicKeyPEM), kid: kid)
            case "RS256":
                await keys.add(
                    rsa: try Insecure.RSA.PublicKey(pem: key.publicKeyPEM), digestAlgorithm: .sha256, kid: kid)
            default: throw HostError.configuration("auth key '\(key.kid)': unknown algorithm \(key.algorithm)")
            }
        } catch let error as HostError {
            throw error
        } catch {
            throw HostError.configuration(
                "auth key '\(key.kid)' (\(key.algorithm)): its publicKey is not a valid PEM key")
        }
    }

    private static func addJWKS(_ file: URL, to keys: JWTKeyCollection, algorithms: inout [String: String]) async throws
    {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw HostError.configuration("auth.jwksFile \(file.path) cannot be read")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw HostError.configuration("auth.jwksFile \(file.path): \(error)")
        }
        guard case .array(let entries)? = document[field: "keys"] else {
            throw HostError.configuration("auth.jwksFile \(file.path): not a JWKS document ({\"keys\": [...]})")
        }
        for (i, entry) in entries.enumerated() {
            guard case .string(let kid)? = entry[field: "kid"], case .string(let alg)? = entry[field: "alg"],
                HostAuthOptions.algorithms.contains(alg)
            else {
                throw HostError.configuration(
                    "auth.jwksFile \(file.path): keys[\(i)] needs a 'kid' and an 'alg' of "
                        + HostAuthOptions.algorithms.joined(separator: ", "))
            }
            algorithms[kid] = alg
        }
        do {
            try await keys.add(jwksJSON: String(decoding: data, as: UTF8.self))
        } catch {
            throw HostError.configuration("auth.jwksFile \(file.path): a key cannot be read (\(error))")
        }
    }

    /// The header and payload of a compact JWS, as JSON.
    private static func parts(of token: String) throws -> (JSONValue, JSONValue) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = decode(parts[0]), let payload = decode(parts[1]),
            case .object = header, case .object = payload
        else { throw ServeError.unauthorized("not a JWT (three base64url parts with JSON header and claims)") }
        return (header, payload)
    }

    private static func decode(_ part: Substring) -> JSONValue? {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard part.count <= 65_536, let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONValue.parse(data)
    }

    private static func seconds(_ value: JSONValue?) -> Double? {
        switch value {
        case .int(let i)?: return Double(i)
        case .double(let d)? where d.isFinite: return d
        default: return nil
        }
    }

    private static func text(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        if case .string(let s) = value { return String(s.prefix(40)) }
        return String(value.text().prefix(40))
    }
}

/// Verified tokens and their callers, each until its expiry. Bounded: past `capacity` entries the
/// whole table is dropped (tokens are verified again), so memory stays flat however many callers come.
final class VerifiedTokens: Sendable {
    static let capacity = 10_000
    private let entries = Mutex<[String: (caller: AppTokens.Caller, notBefore: Double, until: Double)]>([:])

    func caller(_ token: String, at time: Double) -> AppTokens.Caller? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard time < entry.until else {
                entries[token] = nil
                return nil
            }
            return time + AppTokens.leeway >= entry.notBefore ? entry.caller : nil
        }
    }

    func keep(_ token: String, _ caller: AppTokens.Caller, notBefore: Double, until: Double) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = (caller, notBefore, until)
        }
    }
}

/// jwt-kit checks the signature; the claims are checked by `AppTokens` with its own messages.
private struct SignatureOnly: JWTPayload {
    init(from decoder: Decoder) throws {}
    func encode(to encoder: Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The claims of a development token: string claims, `exp` and `iat`.
private struct DevelopmentClaims: JWTPayload {
    var claims: [String: String]
    var exp: Int64 = 0
    var iat: Int64 = 0

    init(claims: [String: String]) { self.claims = claims }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: Decoder) throws { claims = [:] }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in claims.sorted(by: { $0.key < $1.key }) {
            try container.encode(value, forKey: Key(stringValue: name))
        }
        try container.encode(exp, forKey: Key(stringValue: "exp"))
        try container.encode(iat, forKey: Key(stringValue: "iat"))
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
