import Hummingbird
import RealmDatabase

/// A `ServeError` thrown by a handler answers with its status and the error body.
extension ServeError: HTTPResponseError {
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = Response.json(json, status: status)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}

extension Response {
    /// A JSON answer written by the project's one JSON writer.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.text())))
    }
}
