import Foundation
import JWTKit
import RealmDatabase
import RealmTestSupport
import XCTest

/// Who may call: every refusal reason, public keys by kid (rotation), the algorithm of the key.
final class TokenTests: XCTestCase {
    func testRefusalsSayWhy() async throws {
        let fixture = try await ServeFixture()
        let app = fixture.app
        let expired = try await fixture.token("u", lifetime: -120)
        let cases: [(String?, String)] = [
            (nil, "no Authorization header"),
            ("garbage", "not a JWT"),
            (expired, "expired"),
            (try await fixture.token("../etc"), "not a valid user name"),
        ]
        for (token, why) in cases {
            let answer = try await fixture.call { try app.request("POST", "/v1/functions/echo", token: token) }
            XCTAssertEqual(answer.status, 401, "\(why): \(answer)")
            XCTAssertEqual(answer.errorCode, "Unauthorized")
            XCTAssertTrue(answer.text.contains(why), "\(why): \(answer)")
        }
        let basic = try await fixture.call {
            try app.request("POST", "/v1/functions/echo", headers: ["Authorization": "Basic dTpw"])
        }
        XCTAssertEqual(basic.status, 401)
        // A token signed with another secret.
        let other = await JWTKeyCollection().add(
            hmac: HMACKey(from: Array(repeating: UInt8(7), count: 32)), digestAlgorithm: .sha256)
        let forged = try await other.sign(Claims(sub: "u", exp: Date().timeIntervalSince1970 + 60))
        let refused = try await fixture.call { try app.request("POST", "/v1/functions/echo", token: forged) }
        XCTAssertEqual(refused.status, 401)
        XCTAssertTrue(refused.text.contains("bad signature"), "\(refused)")
        await fixture.stop()
    }

    func testPublicKeysByKidIssuerAudienceAndNotBefore() async throws {
        let ed = try EdDSA.PrivateKey(curve: .ed25519)
        let es = ES256PrivateKey()
        let hostLua = """
            return { auth = { issuer = "https://id.example", audience = "doggo-app", keys = {
              { kid = "2025", alg = "EdDSA", publicKey = [[\(ed.publicKey.pemRepresentation)]] },
              { kid = "2026", alg = "ES256", publicKey = [[\(es.publicKey.pemRepresentation)]] },
            } } }
            """
        let fixture = try await ServeFixture(hostLua: hostLua)
        let edKeys = await JWTKeyCollection().add(eddsa: ed, kid: "2025")
        let esKeys = await JWTKeyCollection().add(ecdsa: es, kid: "2026")
        let now = Date().timeIntervalSince1970
        func claims(_ sub: String, iss: String = "https://id.example", aud: String = "doggo-app", nbf: Double? = nil)
            -> Claims
        {
            Claims(sub: sub, exp: now + 60, iss: iss, aud: aud, nbf: nbf)
        }
        let app = fixture.app
        // Both keys verify their own tokens: rotation without a flag day.
        for token in [
            try await edKeys.sign(claims("old"), kid: "2025"), try await esKeys.sign(claims("new"), kid: "2026"),
        ] {
            let answer = try await fixture.call { try app.request("POST", "/v1/functions/whoami", token: token) }
            XCTAssertEqual(answer.status, 200, "\(answer)")
        }
        let cases: [(String, String)] = [
            (try await edKeys.sign(claims("u", iss: "https://evil.example"), kid: "2025"), "wrong issuer"),
            (try await edKeys.sign(claims("u", aud: "other-app"), kid: "2025"), "wrong audience"),
            (try await edKeys.sign(claims("u", nbf: now + 3600), kid: "2025"), "not valid before"),
            (try await edKeys.sign(claims("u"), kid: "1999"), "unknown kid"),
            (
                try await JWTKeyCollection().add(eddsa: try EdDSA.PrivateKey(curve: .ed25519)).sign(
                    claims("u"), kid: "2025"),
                "bad signature"
            ),
            // The ES256 key's kid on an EdDSA token: the key's algorithm wins.
            (try await JWTKeyCollection().add(eddsa: ed).sign(claims("u"), kid: "2026"), "its key uses ES256"),
            (try await JWTKeyCollection().add(eddsa: ed).sign(claims("u")), "no 'kid'"),
        ]
        for (token, why) in cases {
            let answer = try await fixture.call { try app.request("POST", "/v1/functions/whoami", token: token) }
            XCTAssertEqual(answer.status, 401, "\(why): \(answer)")
            XCTAssertTrue(answer.text.contains(why), "\(why): \(answer)")
        }
        // With only public keys, the host signs nothing.
        do {
            _ = try await fixture.token("u")
            XCTFail("signed a token without the development secret")
        } catch {
            XCTAssertTrue("\(error)".contains("public keys"), "\(error)")
        }
        await fixture.stop()
    }
}

extension TokenTests {
    func testRS256AndAJWKSFile() async throws {
        let rsa = try Insecure.RSA.PrivateKey(backing: .init(keySize: .bits2048))
        let ed = try EdDSA.PrivateKey(curve: .ed25519)
        // The JWKS entry of the Ed25519 key: its 32 bytes are the end of the SPKI PEM.
        let der = try XCTUnwrap(
            Data(
                base64Encoded: ed.publicKey.pemRepresentation.split(separator: "\n").filter { !$0.hasPrefix("-----") }
                    .joined()))
        let x = der.suffix(32).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let jwks = #"{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "\#(x)", "kid": "from-jwks", "alg": "EdDSA"}]}"#
        let hostLua = """
            return { auth = { jwksFile = "jwks.json", keys = {
              { kid = "rsa", alg = "RS256", publicKey = [[\(rsa.publicKey.pemRepresentation)]] },
            } } }
            """
        let fixture = try await ServeFixture(
            hostLua: hostLua,
            beforeStart: { data in
                try jwks.write(to: data.appendingPathComponent("jwks.json"), atomically: true, encoding: .utf8)
            })
        let claims = Claims(sub: "rosa", exp: Date().timeIntervalSince1970 + 60)
        let rsaToken = try await JWTKeyCollection().add(rsa: rsa, digestAlgorithm: .sha256).sign(claims, kid: "rsa")
        let jwksToken = try await JWTKeyCollection().add(eddsa: ed).sign(claims, kid: "from-jwks")
        let app = fixture.app
        for token in [rsaToken, jwksToken] {
            let answer = try await fixture.call { try app.request("POST", "/v1/functions/whoami", token: token) }
            XCTAssertEqual(answer.status, 200, "\(answer)")
            XCTAssertEqual(answer.json?[field: "result"]?[field: "user"], .string("rosa"))
        }
        // The RSA kid on the JWKS key's token: refused by the algorithm.
        let swapped = try await JWTKeyCollection().add(eddsa: ed).sign(claims, kid: "rsa")
        let refused = try await fixture.call { try app.request("POST", "/v1/functions/whoami", token: swapped) }
        XCTAssertEqual(refused.status, 401)
        XCTAssertTrue(refused.text.contains("its key uses RS256"), "\(refused)")
        await fixture.stop()
    }
}

/// A token's claims as an identity provider would write them.
struct Claims: JWTPayload {
    var sub: String
    var exp: Double
    var iss: String?
    var aud: String?
    var nbf: Double?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
