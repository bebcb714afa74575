import Foundation
import Hummingbird
import RealmDatabase

#if canImport(Glibc)
    import Glibc
#endif

/// One log line per request on standard error, JSON (docs/SERVE.md): time, request id, method,
/// route, user, function, status, duration, error code; and the request's metrics. It also turns a
/// `ServeError` thrown anywhere below into its answer, so the line has its status and code.
struct RequestLog: RouterMiddleware {
    typealias Context = ServeRequestContext
    let metrics: ServeMetrics
    let write: @Sendable (String) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch let error as ServeError {
            context.notes.set { $0.errorCode = error.code }
            response = try error.response(from: request, context: context)
        } catch let error as HTTPResponseError {
            context.notes.set { $0.errorCode = "HTTP\(error.status.code)" }
            response = try ServeError(status: error.status.code, code: Self.code(error.status), "\(error.status)")
                .response(from: request, context: context)
        } catch {
            context.notes.set { $0.errorCode = "InternalError" }
            response = try ServeError(status: 500, code: "InternalError", "\(error)").response(
                from: request, context: context)
        }
        let duration = ContinuousClock.now - started
        let route = context.endpointPath ?? "unmatched"
        metrics.request(route: route, method: request.method.rawValue, status: response.status.code, duration: duration)
        let notes = context.notes.current
        var fields: [JSONValue.Field] = [
            .init("time", .string(LogTime.now())), .init("request", .string(context.id)),
            .init("method", .string(request.method.rawValue)), .init("route", .string(route)),
            .init("status", .int(Int64(response.status.code))),
            .init(
                "ms",
                .double((Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1e3))),
        ]
        if let user = notes.user { fields.append(.init("user", .string(user))) }
        if let function = notes.function { fields.append(.init("function", .string(function))) }
        if let code = notes.errorCode { fields.append(.init("error", .string(code))) }
        write(JSONValue.object(fields).text())
        return response
    }

    private static func code(_ status: HTTPResponse.Status) -> String {
        switch status.code {
        case 404: "NotFound"
        case 405: "MethodNotAllowed"
        case 413: "BodyTooLarge"
        default: "BadRequest"
        }
    }
}

/// The log lines' UTC time, `2026-11-28T02:59:01.123Z`, written without a formatter object (one per
/// request cost more than the rest of the line).
enum LogTime {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let millis = Int(spec.tv_nsec / 1_000_000)
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
    }
}
