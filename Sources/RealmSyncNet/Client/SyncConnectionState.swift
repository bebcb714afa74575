/// The state of a network client's connection to the server.
public enum SyncConnectionState: String, Hashable, Sendable {
    /// Not connected; waiting to retry (or stopped).
    case disconnected
    /// Opening the WebSocket, or binding the sessions.
    case connecting
    /// Connected, the sessions bound.
    case connected
}
