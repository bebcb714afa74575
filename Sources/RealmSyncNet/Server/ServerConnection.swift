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
    let bindDeadline: Duration
    /// How long the writer may take once the connection ended (then it is cancelled: its blocked
    /// write to a peer that does not read gives up, and the socket is closed).
    let closeTimeout: Duration

    /// What one of the connection's tasks ended with.
    private enum Finished: Sendable {
        case reader(ReadEnding)
        case writer
        /// The connection ended `closeTimeout` ago and its writer is still writing.
        case writerOverdue
        /// The reader and the writer ended in time.
        case writerInTime
    }

    /// How reading a connection ended.
    enum ReadEnding: Sendable {
        /// The peer closed, or this side stopped reading (the outbox ended).
        case ended
        /// A frame was refused: the connection closes with this code and reason.
        case refused(WebSocketErrorCode, String)
        /// The WebSocket layer failed (a message over the limit, a broken frame): rethrown, so it
        /// closes the connection with its own code (1009 for a message too large).
        case failed(any Error)
    }

    /// `channel`: the connection's socket, closed when the writer is overdue.
    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel) async throws {
        let outbox = Outbox(maxQueuedBytes: codec.limits.maxQueuedBytes)
        guard let connection = await hub.open(outbox) else {
            // The peer may be gone already; nothing was opened for it.
            try? await outbound.close(
                .unknown(1013), reason: "the server serves its limit of connections; try again later")
            return
        }
        let deadline = Task { await closeUnlessBound(connection, outbox) }
        defer { deadline.cancel() }
        let closeTimeout = closeTimeout
        let ending = await withTaskGroup(of: Finished.self) { group in
            group.addTask {
                await outbox.writeAll(to: outbound)
                return .writer
            }
            group.addTask { .reader(await read(inbound, connection, outbox)) }
            // The outbox always ends before the reader and the writer are both done (either ending
            // ends it), so this task never outlives them by more than the timeout.
            group.addTask {
                await outbox.waitForEnd()
                let waited = (try? await Task.sleep(for: closeTimeout)) != nil
                return waited ? .writerOverdue : .writerInTime
            }
            var ending: ReadEnding?
            while let next = await group.next() {
                switch next {
                case .reader(let read):
                    ending = read
                    end(outbox, read)
                case .writer:
                    // The writer is done (this side closed, or the socket failed): stop reading.
                    group.cancelAll()
                case .writerOverdue:
                    // A peer that does not read (a 1008 for its queue, waiting behind frames it
                    // never takes): the socket is closed under the writer, which fails it.
                    channel.close(promise: nil)
                    group.cancelAll()
                case .writerInTime:
                    break
                }
            }
            return ending
        }
        await hub.close(connection)
        if case .failed(let error) = ending { throw error }
    }

    /// Closes the connection when no session bound on it within `bindDeadline`.
    private func closeUnlessBound(_ connection: ConnectionID, _ outbox: Outbox) async {
        guard (try? await Task.sleep(for: bindDeadline)) != nil, await !hub.hasBound(connection) else { return }
        outbox.close(.policyViolation, reason: "no session was bound within \(bindDeadline) of connecting")
    }

    /// The reader is done: the writer writes what is queued, then the close a refusal asks for.
    private func end(_ outbox: Outbox, _ ending: ReadEnding) {
        switch ending {
        case .refused(let code, let reason): outbox.close(code, reason: reason)
        case .ended, .failed: outbox.finish()
        }
    }

    /// Reads until the peer closes or the outbox ends; the next frame is read only once the answers
    /// queued for this peer are under the outbox's low-water mark.
    private func read(_ inbound: WebSocketInboundStream, _ connection: ConnectionID, _ outbox: Outbox) async
        -> ReadEnding
    {
        do {
            await outbox.waitForRoom()
            for try await message in inbound.messages(maxSize: codec.limits.maxFrameBytes) {
                guard !outbox.hasEnded else { return .ended }
                guard case .binary(let buffer) = message else {
                    return .refused(.unacceptableData, "text messages are not part of the sync protocol")
                }
                let (syncMessage, token) = try codec.decodeMessage(Array(buffer.readableBytesView))
                let authorization: BindAuthorization? =
                    if case .bind = syncMessage { await authorize(token) } else { nil }
                await hub.receive(syncMessage, authorization: authorization, on: connection)
                await outbox.waitForRoom()
                guard !outbox.hasEnded else { return .ended }
            }
            return .ended
        } catch let error as WireError {
            return .refused(.protocolError, error.description)
        } catch {
            return Task.isCancelled ? .ended : .failed(error)
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
