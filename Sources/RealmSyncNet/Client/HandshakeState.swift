import NIOCore
import Synchronization

/// Whether a connection attempt was upgraded to a WebSocket or gave up waiting first: exactly one
/// of the two happens (the watchdog and the upgrade race).
final class HandshakeState: Sendable {
    private enum Phase { case waiting, upgraded, timedOut }
    private let phase = Mutex(Phase.waiting)

    /// True when the upgrade came in time; the connection is served.
    func upgrade() -> Bool { move(to: .upgraded) }

    /// True when the upgrade had not come: the attempt is abandoned.
    func timeOut() -> Bool { move(to: .timedOut) }

    var hasTimedOut: Bool { phase.withLock { $0 == .timedOut } }

    private func move(to next: Phase) -> Bool {
        phase.withLock { phase in
            guard phase == .waiting else { return false }
            phase = next
            return true
        }
    }
}

/// The server accepted the connection and did not complete the WebSocket upgrade in time.
struct HandshakeTimeout: Error, CustomStringConvertible {
    let url: String
    let timeout: Duration
    var description: String { "\(url) did not answer the WebSocket upgrade within \(timeout)" }
}

/// The socket of one connection attempt, so that the attempt can be abandoned (a stop, the
/// handshake timeout) by closing it: the upgrade then fails and the attempt returns. Shutting the
/// attempt's event loop down instead left a pending upgrade waiting for good (found under load by
/// `NetDyingServerTests`: the client never stopped). Closed before the socket exists, the socket
/// is closed as soon as it does.
final class AttemptSocket: Sendable {
    private let state = Mutex<(channel: (any Channel)?, abandoned: Bool)>((nil, false))

    /// The attempt's channel, from its setup.
    func opened(_ channel: any Channel) {
        let abandoned = state.withLock { state in
            state.channel = channel
            return state.abandoned
        }
        if abandoned { channel.close(promise: nil) }
    }

    /// Abandons the attempt: its socket is closed now, or once it exists.
    func abandon() {
        let channel = state.withLock { state in
            state.abandoned = true
            return state.channel
        }
        channel?.close(promise: nil)
    }
}
