import NIOCore
import NIOWebSocket
import RealmSync
import WSCore

/// One client connection on the server: reads frames, checks bind tokens, hands messages to the
/// hub in arrival order, and writes what the hub routes to it. A malformed frame closes this
/// connection (with the reason) and nothing else.
struct ServerConnection {
    let hub: SyncServerHub
    let codec: WireCodec
    let tokens: SyncToken

    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let outbox = Outbox()
        let connection = await hub.open(outbox)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await outbox.writeAll(to: outbound) }
            if let refusal = await read(inbound, connection) {
                outbox.close(refusal.code, reason: refusal.reason)
            } else {
                outbox.finish()
            }
            await group.waitForAll()
        }
        await hub.close(connection)
    }

    /// Reads until the peer closes; the reason to close when a frame is refused.
    private func read(_ inbound: WebSocketInboundStream, _ connection: ConnectionID) async
        -> (code: WebSocketErrorCode, reason: String)?
    {
        do {
            for try await message in inbound.messages(maxSize: codec.limits.maxFrameBytes) {
                guard case .binary(let buffer) = message else {
                    return (.unacceptableData, "text messages are not part of the sync protocol")
                }
                let (syncMessage, token) = try codec.decodeMessage(Array(buffer.readableBytesView))
                let authorization: BindAuthorization? =
                    if case .bind = syncMessage { await authorize(token) } else { nil }
                await hub.receive(syncMessage, authorization: authorization, on: connection)
            }
            return nil
        } catch let error as WireError {
            return (.protocolError, error.description)
        } catch {
            // The socket failed or the peer broke the WebSocket protocol: it is gone already.
            return nil
        }
    }

    private func authorize(_ token: String?) async -> BindAuthorization {
        guard let token else { return .refused("a bind needs the user's token") }
        do {
            return .user(try await tokens.verify(token))
        } catch {
            return .refused("\(error)")
        }
    }
}
