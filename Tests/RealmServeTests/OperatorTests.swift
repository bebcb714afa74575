import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

/// The admin listener: health, readiness, metrics that count what the test did, the admin token.
final class OperatorTests: XCTestCase {
    func testHealthReadinessMetricsAndTheAdminToken() async throws {
        let fixture = try await ServeFixture()
        let admin = fixture.admin
        let app = fixture.app
        let health = try await fixture.call { try admin.request("GET", "/healthz") }
        XCTAssertEqual(health.status, 200)
        let ready = try await fixture.call { try admin.request("GET", "/readyz") }
        XCTAssertEqual(ready.status, 200, "\(ready)")
        XCTAssertEqual(ready.json?[field: "ready"], .bool(true))
        let token = try await fixture.token("lena")
        for _ in 0..<3 {
            _ = try await fixture.call { try app.request("POST", "/v1/functions/echo", token: token, body: "{}") }
        }
        _ = try await fixture.call { try app.request("POST", "/v1/functions/nope", token: token) }
        let metrics = try await fixture.call { try admin.request("GET", "/metrics") }
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(
            metrics.text.contains(
                #"realmhost_http_requests_total{route="/v1/functions/{name}",method="POST",status="200"} 3"#),
            metrics.text)
        XCTAssertTrue(
            metrics.text.contains(
                #"realmhost_http_requests_total{route="/v1/functions/{name}",method="POST",status="404"} 1"#),
            metrics.text)
        XCTAssertTrue(metrics.text.contains("realmhost_tenants_open 1"), metrics.text)
        XCTAssertTrue(metrics.text.contains("realmhost_http_request_duration_seconds_bucket"), metrics.text)
        // Every other admin path needs the admin token, checked before routing.
        for path in ["/admin/tenants", "/admin/nothing-here"] {
            let refused = try await fixture.call { try admin.request("GET", path) }
            XCTAssertEqual(refused.status, 401, "\(path): \(refused)")
            let wrong = try await fixture.call { try admin.request("GET", path, token: "not-the-token") }
            XCTAssertEqual(wrong.status, 401, "\(path): \(wrong)")
        }
        let adminToken = try String(contentsOf: fixture.data.appendingPathComponent("admin-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let attrs = try FileManager.default.attributesOfItem(
            atPath: fixture.data.appendingPathComponent("admin-token").path)
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let tenants = try await fixture.call { try admin.request("GET", "/admin/tenants", token: adminToken) }
        XCTAssertEqual(tenants.json?[field: "tenants"], .array([.string("lena")]), "\(tenants)")
        let unknown = try await fixture.call { try admin.request("GET", "/admin/nothing-here", token: adminToken) }
        XCTAssertEqual(unknown.status, 404)
        // One JSON log line per request, with the route, status and error code.
        XCTAssertTrue(
            fixture.logLines.all.contains {
                $0.contains(#""route": "/v1/functions/{name}""#) && $0.contains(#""status": 404"#)
                    && $0.contains(#""error": "FunctionNotFound""#)
            }, fixture.logLines.all.joined(separator: "\n"))
        await fixture.stop()
    }

    func testReadinessNamesWhatIsMissing() async throws {
        let fixture = try await ServeFixture()
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: fixture.data.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: fixture.data.path) }
        guard getuid() != 0 else {
            // root writes anywhere: the folder cannot be made unwritable here.
            await fixture.stop()
            throw XCTSkip("root can write to any folder")
        }
        let admin = fixture.admin
        let ready = try await fixture.call { try admin.request("GET", "/readyz") }
        XCTAssertEqual(ready.status, 503, "\(ready)")
        XCTAssertTrue(ready.text.contains("not writable"), ready.text)
        await fixture.stop()
    }
}
