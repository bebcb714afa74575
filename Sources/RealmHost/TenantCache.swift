import Foundation
import RealmDatabase
import Synchronization

/// One user's place in the host: the per-user lock and, behind it, the user's tenant.
///
/// The lock is held for the whole of a `TenantHost.withTenant` call, so the work for one user is
/// serialized: there is never more than one slot per user in the cache, and a slot leaves the cache
/// only when no one holds or waits for its lock (see `TenantCache.evictIdle`).
final class TenantSlot: Sendable {
    let user: String
    /// The user's tenant, built by the first caller that finds none.
    let state = Mutex(TenantHolder())
    /// The thread holding the lock (0 when none): a nested `withTenant` for the same user on the
    /// same thread is refused with an error, where locking again would trap.
    private let holder = Atomic<UInt>(0)

    init(user: String) { self.user = user }

    /// Runs `body` holding the user's lock, as the only thread working for this user.
    func withLock<T: Sendable>(_ body: (inout TenantHolder) throws -> T) throws -> T {
        let thread = ThreadID.current
        guard holder.load(ordering: .relaxed) != thread else {
            throw HostError.configuration(
                "withTenant for user '\(user)' was called inside withTenant for the same user; "
                    + "use the tenant already held")
        }
        return try state.withLock { tenant throws -> T in
            holder.store(thread, ordering: .relaxed)
            defer { holder.store(0, ordering: .relaxed) }
            return try body(&tenant)
        }
    }
}

/// The tenant inside a slot's lock.
///
/// `@unchecked Sendable` because `Tenant` (a Lua state and a realm) is not: the invariant that makes
/// it sound is that the tenant is touched only by the thread holding its slot's lock, inside
/// `withTenant`, whose body cannot hand the tenant (or anything non-Sendable) out (`T: Sendable`).
struct TenantHolder: @unchecked Sendable {
    var tenant: Tenant?
}

/// The tenants open in a host: slots by user, when each was last checked out, and how many callers
/// have checked each slot out (they hold its lock or wait for it).
///
/// A slot is evicted only when no caller has it checked out. When every slot past `capacity` is in
/// use, the cache holds more than `capacity` slots until their callers are done: a busy tenant is
/// never dropped (that would let a second tenant for the same user run beside the first).
///
/// Every call of every user passes here under the host's lock, so a check-out is O(1): recency is a
/// stamp per user, and the least recently used are found by sorting the stamps only when the cache
/// is over capacity (a list kept in order cost O(users) per call: measured by `serve_read_call`).
struct TenantCache {
    private(set) var slots: [String: TenantSlot] = [:]
    /// When each user was last checked out (a counter, not a time).
    private var stamps: [String: UInt64] = [:]
    private var clock: UInt64 = 0
    private var checkouts: [String: Int] = [:]
    /// Users whose tenant must stay open while idle (live queries hold observers in its realm).
    private var pins: [String: Int] = [:]

    /// Users in the cache, least recently used first.
    var order: [String] { stamps.sorted { $0.value < $1.value }.map(\.key) }

    mutating func pin(_ user: String) { pins[user, default: 0] += 1 }

    mutating func unpin(_ user: String) {
        let remaining = (pins[user] ?? 1) - 1
        pins[user] = remaining > 0 ? remaining : nil
    }

    /// The user's slot (created if absent), checked out by the caller and made most recently used.
    mutating func checkOut(_ user: String) -> TenantSlot {
        let slot = slots[user] ?? TenantSlot(user: user)
        if slots[user] == nil { slots[user] = slot }
        clock += 1
        stamps[user] = clock
        checkouts[user, default: 0] += 1
        return slot
    }

    /// Ends a check-out. A slot left without a tenant (its opening failed) leaves the cache once idle.
    mutating func checkIn(_ user: String, hasTenant: Bool) {
        let remaining = (checkouts[user] ?? 1) - 1
        checkouts[user] = remaining > 0 ? remaining : nil
        if remaining <= 0 && !hasTenant { remove(user) }
    }

    func isIdle(_ user: String) -> Bool { checkouts[user] == nil }

    /// Idle and not pinned: may be closed to make room.
    func isEvictable(_ user: String) -> Bool { isIdle(user) && pins[user] == nil }

    /// Removes least recently used evictable slots until at most `capacity` remain, or none is.
    /// Returns the removed slots: their tenants close when the caller drops them, outside the lock.
    mutating func evictIdle(capacity: Int) -> [TenantSlot] {
        guard slots.count > capacity else { return [] }
        let candidates = stamps.filter { isEvictable($0.key) }.sorted { $0.value < $1.value }
        var evicted: [TenantSlot] = []
        for (user, _) in candidates.prefix(slots.count - capacity) {
            if let slot = slots[user] { evicted.append(slot) }
            remove(user)
        }
        return evicted
    }

    /// Removes every idle slot (`closeAll`); slots in use stay until their callers are done.
    mutating func removeIdle() -> [TenantSlot] {
        let idle = slots.keys.filter(isIdle)
        let removed = idle.compactMap { slots[$0] }
        for user in idle { remove(user) }
        return removed
    }

    private mutating func remove(_ user: String) {
        slots[user] = nil
        stamps[user] = nil
    }
}
