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
