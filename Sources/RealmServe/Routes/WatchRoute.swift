import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import RealmDatabase

/// `GET /v1/watch`: the token is checked before the upgrade (by `WatchUpgradeGate`, then again
/// here); a request without a valid one is not upgraded and goes on to the app router, whose
/// `/v1/watch` route answers 401 (no frame is ever read). Then each text message registers or ends a live query (`WatchSession`); a frame of
/// another kind is answered with an error message and changes nothing.
struct WatchRoute: Sendable {
    let app: AppRoutes

    static let path = "/v1/watch"

    func add(to router: Router<ServeRequestContext>) {
        router.ws(RouterPath(Self.path)) { request, context in
            do {
                _ = try await app.authenticate(request, context)
                return .upgrade([:])
            } catch {
                return .dontUpgrade
            }
        } onUpgrade: { inbound, outbound, context in
            guard let user = context.requestContext.notes.current.user else { return }
            app.log(
                JSONValue.object([
                    .init("time", .string(LogTime.now())),
                    .init("method", .string("GET")), .init("route", .string("/v1/watch")), .init("status", .int(101)),
                    .init("user", .string(user)),
                ]).text())
            let (stream, continuation) = AsyncStream.makeStream(
                of: String.self, bufferingPolicy: .bufferingOldest(WatchSession.queueLimit))
            let session = WatchSession(
                user: user, lanes: app.lanes, metrics: app.metrics, maxDepth: app.options.maxJSONDepth,
                maxQueuedBytes: app.options.watchQueueBytes, outgoing: continuation,
                abort: { [channel = context.requestContext.channel] in channel.close(promise: nil) })
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await text in stream {
                        try? await outbound.write(.text(text))
                        session.written(text)
                    }
                }
                do {
                    for try await message in inbound.messages(maxSize: app.options.maxBodyBytes) {
                        switch message {
                        case .text(let text): await session.receive(text)
                        case .binary:
                            session.sendError(id: nil, .badRequest("watch messages are JSON text, not binary frames"))
                        }
                    }
                } catch {
                    session.sendError(id: nil, .badRequest("the message cannot be read: \(error)"))
                }
                await session.close()
                continuation.finish()
                await group.waitForAll()
            }
        }
    }
}
