import Foundation
import Hummingbird
import RealmDatabase
import RealmHost

/// The admin listener (docs/SERVE.md "Operators"): `/healthz`, `/readyz` and `/metrics` for
/// anyone who reaches the listener; every other path needs the admin token, checked before
/// routing (`AdminTokenMiddleware`).
struct OperatorRoutes: Sendable {
    let lanes: TenantLanes
    let metrics: ServeMetrics
    /// Why the host is not ready, if it is not (an empty list: ready).
    let readiness: @Sendable () async -> [String]

    static let openPaths: Set<String> = ["/healthz", "/readyz", "/metrics"]
    /// Every route of the admin listener (`OpenAPITests` checks that `docs/openapi.yaml` has each).
    static let routes = ["/healthz", "/readyz", "/metrics", "/admin/tenants"]

    func add(to router: Router<ServeRequestContext>) {
        router.get("/healthz") { _, _ in Response.json(.object([JSONValue.Field("status", .string("ok"))])) }
        router.get("/readyz") { _, _ in
            let reasons = await readiness()
            return Response.json(
                .object([
                    JSONValue.Field("ready", .bool(reasons.isEmpty)),
                    JSONValue.Field("reasons", .array(reasons.map { .string($0) })),
                ]), status: reasons.isEmpty ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { _, _ in
            metrics.setTenantsOpen(lanes.host.openTenants.count)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text())))
        }
        router.get("/admin/tenants") { _, _ in
            Response.json(.object([JSONValue.Field("tenants", .array(lanes.host.openTenants.map { .string($0) }))]))
        }
    }
}

/// Every admin path but the open ones needs `Authorization: Bearer <admin token>`; compared in
/// constant time.
struct AdminTokenMiddleware: RouterMiddleware {
    typealias Context = ServeRequestContext
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if OperatorRoutes.openPaths.contains(request.uri.path) { return try await next(request, context) }
        let given = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let given, Self.equal(Array(given.utf8), Array(token.utf8)) else {
            throw ServeError.unauthorized(
                "this admin path needs the admin token (DATA/admin-token) as 'Bearer <token>'")
        }
        return try await next(request, context)
    }

    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
