import Foundation
import Hummingbird
import LuaSandbox
import NIOCore
import RealmDatabase
import RealmHost

/// The app API under `/v1` (docs/SERVE.md "The app API"): functions and objects, each call in
/// the caller's own realm, run in the caller's lane. Watches are in `WatchRoute`.
struct AppRoutes: Sendable {
    let lanes: TenantLanes
    let tokens: AppTokens
    let options: HostServeOptions
    let metrics: ServeMetrics
    /// Where request log lines go.
    let log: @Sendable (String) -> Void

    /// Every route of the app listener, with the parameter names of `docs/openapi.yaml`
    /// (`OpenAPITests` checks that the document has each).
    static let routes: [(method: HTTPRequest.Method, path: String)] = [
        (.post, "/v1/functions/:name"), (.get, "/v1/objects/:Class"), (.post, "/v1/objects/:Class"),
        (.patch, "/v1/objects/:Class/:primaryKey"), (.delete, "/v1/objects/:Class/:primaryKey"), (.get, "/v1/watch"),
    ]

    func add(to router: Router<ServeRequestContext>) {
        for route in Self.routes {
            router.on(RouterPath(route.path), method: route.method) { request, context in
                try await answer(route.method, route.path, request, context)
            }
        }
    }

    private func answer(
        _ method: HTTPRequest.Method, _ path: String, _ request: Request, _ context: ServeRequestContext
    ) async throws -> Response {
        switch (method, path) {
        case (.post, "/v1/functions/:name"): return try await callFunction(request, context)
        case (.get, "/v1/objects/:Class"): return try await query(request, context)
        case (.post, "/v1/objects/:Class"): return try await create(request, context)
        case (.patch, _): return try await update(request, context)
        case (.delete, _): return try await delete(request, context)
        default:
            // A /v1/watch request that was not upgraded: no valid token (401), or no upgrade asked.
            _ = try await authenticate(request, context)
            throw ServeError.badRequest("/v1/watch is a WebSocket: send 'Connection: Upgrade' and 'Upgrade: websocket'")
        }
    }

    // MARK: Functions

    private func callFunction(_ request: Request, _ context: ServeRequestContext) async throws -> Response {
        let caller = try await authenticate(request, context)
        let name = try context.parameters.require("name")
        context.notes.set { $0.function = name }
        guard lanes.host.registry.functionPlugins[name] != nil else {
            throw ServeError.notFound("FunctionNotFound", "no plugin declares a function '\(name)'")
        }
        let body = try await JSONBody.object(try await readBody(request), maxDepth: options.maxJSONDepth)
        let claims = caller.claims
        let user = caller.user
        let started = ContinuousClock.now
        defer { metrics.luaTime(ContinuousClock.now - started) }
        let result = try await run(caller.user) { session in
            let arguments = try JSONBody.untypedValue(body, at: "args")
            let callerValue = RealmValue.dictionary([
                "user": .string(user), "claims": try JSONBody.untypedValue(claims, at: "claims"),
            ])
            return try session.runFunction(name, arguments: arguments, caller: callerValue) { values, reader in
                try FunctionResult.json(values.first ?? .nil, reader: reader)
            }
        }
        return .json(.object([JSONValue.Field("result", result)]))
    }

    // MARK: Objects

    private func query(_ request: Request, _ context: ServeRequestContext) async throws -> Response {
        let caller = try await authenticate(request, context)
        let className = try allowedClass(context, write: false)
        let parameters = request.uri.queryParameters.map { ($0.key, $0.value) }
        let query = try Self.query(from: parameters, maxDepth: options.maxJSONDepth)
        let page = try await run(caller.user) { session in
            try session.perform { try ObjectVerbs(realm: try $0.appRealm(), className: className).list(query) }
        }
        return .json(page)
    }

    private func create(_ request: Request, _ context: ServeRequestContext) async throws -> Response {
        let caller = try await authenticate(request, context)
        let className = try allowedClass(context, write: true)
        let body = try JSONBody.parse(try await readBody(request), maxDepth: options.maxJSONDepth)
        let object = try await run(caller.user) { session in
            try session.perform { try ObjectVerbs(realm: try $0.appRealm(), className: className).create(body) }
        }
        return .json(object, status: .created)
    }

    private func update(_ request: Request, _ context: ServeRequestContext) async throws -> Response {
        let caller = try await authenticate(request, context)
        let className = try allowedClass(context, write: true)
        let key = try context.parameters.require("primaryKey")
        let body = try JSONBody.parse(try await readBody(request), maxDepth: options.maxJSONDepth)
        let object = try await run(caller.user) { session in
            try session.perform {
                try ObjectVerbs(realm: try $0.appRealm(), className: className).update(primaryKey: key, body)
            }
        }
        return .json(object)
    }

    private func delete(_ request: Request, _ context: ServeRequestContext) async throws -> Response {
        let caller = try await authenticate(request, context)
        let className = try allowedClass(context, write: true)
        let key = try context.parameters.require("primaryKey")
        try await run(caller.user) { session in
            try session.perform {
                try ObjectVerbs(realm: try $0.appRealm(), className: className).delete(primaryKey: key)
            }
        }
        return Response(status: .noContent)
    }

    // MARK: Steps

    /// The caller of a request, from its `Authorization: Bearer` token (401 when missing or bad).
    func authenticate(_ request: Request, _ context: ServeRequestContext) async throws -> AppTokens.Caller {
        let accessToken = request.uri.path == WatchRoute.path ? request.uri.queryParameters["access_token"] : nil
        let caller = try await caller(
            authorization: request.headers[.authorization], accessToken: accessToken.map(String.init))
        context.notes.set { $0.user = caller.user }
        return caller
    }

    /// The caller an `Authorization` header's value (nil: none) names, or on `/v1/watch` the
    /// `access_token` query parameter (RFC 6750 §2.3: a browser's WebSocket cannot set a header);
    /// throws `ServeError.unauthorized` saying why not.
    func caller(authorization header: String?, accessToken: String? = nil) async throws -> AppTokens.Caller {
        if let accessToken {
            // RFC 6750 §2: one method per request.
            guard header == nil else {
                throw ServeError.unauthorized("the token is given twice: Authorization header and access_token")
            }
            guard !accessToken.isEmpty else { throw ServeError.unauthorized("the access_token parameter is empty") }
            return try await tokens.verify(accessToken)
        }
        guard let header else {
            throw ServeError.unauthorized("no Authorization header (expected 'Bearer <token>')")
        }
        guard header.hasPrefix("Bearer "), case let token = Self.trimmingBlanks(header.utf8.dropFirst(7)),
            !token.isEmpty
        else { throw ServeError.unauthorized("the Authorization header must be 'Bearer <token>'") }
        return try await tokens.verify(String(decoding: token, as: UTF8.self))
    }

    /// `bytes` without the spaces and tabs around them (HTTP's optional whitespace). On bytes:
    /// Foundation's `trimmingCharacters` took a twentieth of a served read call.
    private static func trimmingBlanks(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        let blank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    /// The class of the path, when a plugin's `api` table lets apps reach it this way.
    private func allowedClass(_ context: ServeRequestContext, write: Bool) throws -> String {
        let className = try context.parameters.require("Class")
        guard let access = lanes.host.registry.api[className] else {
            throw ServeError.forbidden("no plugin's api table names class '\(className)'")
        }
        if write && !access.allowsWrites {
            throw ServeError.forbidden(
                "class '\(className)' is \"read\" in the plugins' api table: it cannot be written")
        }
        return className
    }

    /// The body, at most `maxBodyBytes` (413 past it).
    private func readBody(_ request: Request) async throws -> Data {
        var request = request
        do {
            return Data(buffer: try await request.collectBody(upTo: options.maxBodyBytes))
        } catch is NIOTooManyBytesError {
            throw ServeError.tooLarge(options.maxBodyBytes)
        }
    }

    /// Runs tenant work in the user's lane; failures become `ServeError`s.
    private func run<T: Sendable>(_ user: String, _ body: @escaping @Sendable (TenantSession) throws -> T) async throws
        -> T
    {
        do {
            return try await lanes.run(user, body)
        } catch {
            throw ServeError.from(error)
        }
    }

    /// `where`, `args`, `sort`, `limit` and `offset` of a query's URL.
    static func query(from pairs: [(Substring, Substring)], maxDepth: Int) throws -> ObjectVerbs.Query {
        var query = ObjectVerbs.Query()
        let known: Set<Substring> = ["where", "args", "sort", "limit", "offset"]
        var parameters = [Substring: Substring]()
        for (key, value) in pairs {
            guard known.contains(key) else {
                throw ServeError.badRequest("unknown query parameter '\(key)' (where, args, sort, limit, offset)")
            }
            guard parameters[key] == nil else { throw ServeError.badRequest("query parameter '\(key)' given twice") }
            parameters[key] = value
        }
        query.whereClause = parameters["where"].map(String.init)
        if let args = parameters["args"] {
            guard case .array(let items) = try JSONBody.parse(Data(args.utf8), maxDepth: maxDepth, what: "'args'")
            else { throw ServeError.badRequest("'args' must be a JSON array") }
            query.arguments = items
        }
        if let sort = parameters["sort"] { query.sort = try ObjectVerbs.Query.sortDescriptors(String(sort)) }
        query.limit = try integer(parameters["limit"], "limit", 0...1000) ?? query.limit
        query.offset = try integer(parameters["offset"], "offset", 0...Int(Int32.max)) ?? 0
        return query
    }

    private static func integer(_ text: Substring?, _ name: String, _ range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let n = Int(text), range.contains(n) else {
            throw ServeError.badRequest("'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }
}
