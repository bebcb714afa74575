import RealmSync

/// One open of a session on one connection, as its worker's steps see it: the connection's outbox,
/// and whom to tell when the session fails. Every step runs with the endpoint under its lock and
/// queues what it sends before releasing it, so a session's messages leave in the order its
/// endpoint produced them.
struct SessionWire: Sendable {
    let number: UInt32
    /// Which open of the session this is (`SessionWorker.isLive`).
    let open: Int
    let link: any SessionLink
    let worker: SessionWorker
    let outbox: Outbox
    let codec: WireCodec
    /// The session failed on this open (a refused bind, a message it could not apply): the client
    /// records why. Called off the client's actor.
    let failed: @Sendable (_ open: Int, _ reason: String) -> Void

    /// Queues `body` on the session's worker: run with the endpoint unless this open ended, what
    /// it returns sent (a bind with `token`); when the file is busy, tried again later.
    func enqueue(token: String? = nil, _ body: @escaping @Sendable (any SyncClientEndpoint) throws -> [SyncMessage]) {
        worker.enqueue { [self] in
            guard worker.isLive(open) else { return .done }
            return link.withClient { endpoint in
                guard !endpoint.isBusy else { return .busy }
                do {
                    for message in try body(endpoint) { try send(message, token: token, endpoint) }
                } catch {
                    fail(endpoint, error)
                }
                return .done
            }
        }
    }

    /// Queues the end of this open: the server told (`unbind`) when `tellServer`, the endpoint
    /// disconnected. Runs even though the open is no longer live, and does not wait for a busy file
    /// (disconnecting writes nothing).
    func enqueueClose(tellServer: Bool) {
        worker.enqueue { [self] in
            link.withClient { endpoint in
                if tellServer, let bytes = try? codec.encode(.unbind(session: number)) { outbox.send(bytes) }
                endpoint.disconnect()
            }
            return .done
        }
    }

    /// One message of this session to the outbox. One the codec refuses (too large for a frame:
    /// the server would refuse it) fails the session, and the endpoint is told, so the host sees
    /// why it does not sync.
    private func send(_ message: SyncMessage, token: String?, _ endpoint: any SyncClientEndpoint) throws {
        let bytes: [UInt8]
        do {
            if case .bind = message {
                bytes = try codec.encode(message, token: token)
            } else {
                bytes = try codec.encode(message)
            }
        } catch {
            let failure = SyncError(
                .limitsExceeded, "session \(number) cannot send its \(WireKind(message).rawValue): \(error)")
            endpoint.transportFailed(failure)
            throw failure
        }
        outbox.send(bytes)
    }

    /// The session failed: closed until the next connection, the server told; the others go on.
    private func fail(_ endpoint: any SyncClientEndpoint, _ error: any Error) {
        worker.endLive(open)
        endpoint.disconnect()
        if let bytes = try? codec.encode(.unbind(session: number)) { outbox.send(bytes) }
        failed(open, "\(error)")
    }
}
