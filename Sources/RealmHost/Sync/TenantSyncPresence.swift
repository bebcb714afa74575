import Foundation

/// Whether a tenant syncs at the moment, as the REPL's prompt needs it (cached by `TenantSession`
/// after each run, as `hasOpenWrite` is, so that a prompt costs no tenant lookup).
public enum TenantSyncPresence: Sendable, Equatable {
    /// No script opened a flexible-sync realm on a server (or the host has none).
    case none
    /// Every session is paused (`syncSession:pause()`).
    case paused
    case active
}

extension Tenant {
    var syncPresence: TenantSyncPresence {
        guard let provider = runtime.syncProvider as? TenantSyncProvider, !provider.sessions.isEmpty else {
            return .none
        }
        return provider.sessions.values.contains { $0.state == "active" } ? .active : .paused
    }
}

extension TenantSession {
    /// True when the user's synced realms cannot reach the server now: every session is paused, or
    /// the host's connection is not up. False for a user with no sync session.
    public var isOffline: Bool {
        switch syncPresence {
        case .none: return false
        case .paused: return true
        case .active: return host.syncTransport?.connectionState != "connected"
        }
    }
}
