import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua

/// An answer the app API gives instead of a result: the HTTP status, a stable `code` (Realm's error
/// name where there is one) and a message naming what and where. Written as
/// `{"error": {"code": "…", "message": "…"}}` (docs/SERVE.md "Errors").
public struct ServeError: Error, CustomStringConvertible, Sendable {
    public let statusCode: Int
    public let code: String
    public let message: String
    /// Seconds a client should wait before retrying (429, 503).
    public let retryAfter: Int?

    public init(status: Int, code: String, _ message: String, retryAfter: Int? = nil) {
        self.statusCode = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "\(statusCode) \(code): \(message)" }

    static func badRequest(_ message: String, code: String = "BadRequest") -> ServeError {
        ServeError(status: 400, code: code, message)
    }
    static func unauthorized(_ message: String) -> ServeError { ServeError(status: 401, code: "Unauthorized", message) }
    static func forbidden(_ message: String) -> ServeError { ServeError(status: 403, code: "Forbidden", message) }
    static func notFound(_ code: String, _ message: String) -> ServeError {
        ServeError(status: 404, code: code, message)
    }
    static func tooLarge(_ limit: Int) -> ServeError {
        ServeError(status: 413, code: "BodyTooLarge", "the request body is larger than the limit of \(limit) bytes")
    }
    static func busy(_ message: String) -> ServeError { ServeError(status: 429, code: "Busy", message, retryAfter: 1) }
    static func notReady(_ message: String) -> ServeError {
        ServeError(status: 503, code: "NotReady", message, retryAfter: 1)
    }

    /// The error body.
    var json: JSONValue {
        .object([
            JSONValue.Field(
                "error",
                .object([JSONValue.Field("code", .string(code)), JSONValue.Field("message", .string(message))]))
        ])
    }

    /// What a failure inside a tenant call becomes: a script's or the database's refusal is the
    /// caller's (4xx, with Realm's code); anything else is ours (500).
    static func from(_ error: Error) -> ServeError {
        if let serve = error as? ServeError { return serve }
        if let chunk = error as? ChunkError { return from(chunk) }
        if let realm = error as? RealmError { return from(realm) }
        if let json = error as? RealmJSONError { return .badRequest("\(json)", code: "InvalidValue") }
        if let host = error as? HostError { return from(host) }
        return ServeError(status: 500, code: "InternalError", "\(error)")
    }

    private static func from(_ chunk: ChunkError) -> ServeError {
        if let serve = chunk.underlying as? ServeError { return serve }
        if let json = chunk.underlying as? RealmJSONError { return .badRequest("\(json)", code: "InvalidValue") }
        if let realm = chunk.realmError, chunk.kind == .runtime, !(chunk.underlying is LuaError) {
            return from(realm)
        }
        switch chunk.kind {
        case .limit: return ServeError(status: 422, code: "Limit", "\(chunk)")
        case .interrupted: return ServeError(status: 503, code: "Interrupted", "\(chunk)")
        case .syntax, .runtime:
            if let realm = chunk.realmError {
                return ServeError(status: 422, code: ScriptErrorCode.name(realm.code), "\(chunk)")
            }
            if let host = chunk.underlying as? HostError { return from(host) }
            if let json = chunk.underlying as? RealmJSONError { return .badRequest("\(json)", code: "InvalidValue") }
            return ServeError(status: 422, code: "ScriptError", "\(chunk)")
        }
    }

    private static func from(_ realm: RealmError) -> ServeError {
        let status: Int
        switch realm.code {
        case .primaryKeyExists: status = 409
        case .invalidValue, .invalidProperty, .invalidClass, .primaryKeyChange, .notNullConstraint, .checkConstraint,
            .uniqueConstraint, .constraint:
            status = 400
        case .sqlite, .internalError, .fileAccess, .corruptFile, .notARealm: status = 500
        default: status = 422
        }
        return ServeError(status: status, code: ScriptErrorCode.name(realm.code), realm.message)
    }

    private static func from(_ host: HostError) -> ServeError {
        switch host {
        case .badUserName(let m): return .unauthorized(m)
        case .servedElsewhere: return ServeError(status: 421, code: "ServedElsewhere", "\(host)")
        default: return ServeError(status: 500, code: "HostError", "\(host)")
        }
    }
}
