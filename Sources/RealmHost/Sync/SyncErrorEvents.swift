import RealmSync
import Synchronization

/// A sync error a session reported: a compensating write (code 231, with its objects) or the
/// session's end (a refused bind, a message it could not apply).
public struct SyncErrorEvent: Sendable {
    public var code: Int
    public var message: String
    public var compensatingWrites: [CompensatingWrite]
}

/// The errors of one session, recorded on the network's thread and taken by the tenant's, which
/// hands them to the script's `errorHandler` (Lua runs on the tenant's thread only).
public final class SyncErrorEvents: Sendable {
    /// Past this many untaken errors the oldest are dropped: a script that never waits must not make
    /// the host hold every error of a long session.
    static let capacity = 1000
    /// How many of the latest errors `.sync` lists, taken or not.
    static let recentCapacity = 10
    private let events = Mutex<[SyncErrorEvent]>([])
    private let latest = Mutex<[SyncErrorEvent]>([])

    public init() {}

    func append(_ event: SyncErrorEvent) {
        events.withLock { list in
            list.append(event)
            if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
        }
        latest.withLock { list in
            list.append(event)
            if list.count > Self.recentCapacity { list.removeFirst(list.count - Self.recentCapacity) }
        }
    }

    /// The latest errors, oldest first, whether a script took them or not.
    var recent: [SyncErrorEvent] { latest.withLock { $0 } }

    /// The errors recorded since the last call, oldest first.
    func take() -> [SyncErrorEvent] {
        events.withLock { list in
            defer { list = [] }
            return list
        }
    }
}
