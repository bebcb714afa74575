import Dispatch
import Foundation
import RealmHost
import Synchronization
import XCTest

/// Work for one user never runs twice at once, even while the tenant cache is thrashing; a tenant
/// in use is never evicted; the cache returns to its size once idle.
final class TenantSerializationTests: ReliabilityTestCase {
    /// What the requests of the hammer test saw, per user.
    struct Observed: Sendable {
        var inUse: [String: Int] = [:]
        var overlaps: [String] = []
        /// The tenant (its Lua global `tenantID`) and counter (`n`) the last request of a user saw.
        var last: [String: (id: Int64, n: Int64)] = [:]
        var continuityBreaks: [String] = []
        var continued = 0
    }

    func testRequestsForOneUserNeverOverlapWhileTheCacheThrashes() throws {
        let users = ["alice", "bob", "carol", "dave"]
        for cacheSize in [1, 2] {
            let host = try notesHost(cacheSize: cacheSize)
            let seed = self.seed("tenant serialization, cacheSize \(cacheSize)")
            let observed = Mutex(Observed())
            let nextTenantID = Atomic<Int64>(1)
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                var rng = SeededGenerator(seed: seed &+ UInt64(worker))
                for _ in 0..<60 {
                    let user = users[Int(rng.next() % UInt64(users.count))]
                    do {
                        try host.withTenant(user) { tenant in
                            try Self.request(tenant, user: user, observed: observed, nextID: nextTenantID)
                        }
                    } catch {
                        failures.withLock { $0.append("\(user): \(error)") }
                    }
                }
            }
            XCTAssertEqual(failures.withLock { $0 }, [])
            let result = observed.withLock { $0 }
            XCTAssertEqual(result.overlaps, [], "two requests for one user ran at once (cache size \(cacheSize))")
            XCTAssertEqual(result.continuityBreaks, [], "a cached tenant lost its Lua globals")
            XCTAssertGreaterThan(result.continued, 0, "no request ever found its tenant still cached")
            XCTAssertLessThanOrEqual(host.openTenants.count, cacheSize, "the cache stays past its size once idle")
        }
    }

    /// One request: marks the user in use, bumps the tenant's Lua counter, checks it continues the
    /// previous request's when the tenant is the same one, then waits a little to widen the window.
    static func request(
        _ tenant: Tenant, user: String, observed: borrowing Mutex<Observed>, nextID: borrowing Atomic<Int64>
    ) throws {
        let fresh = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        observed.withLock { o in
            if o.inUse[user, default: 0] > 0 { o.overlaps.append(user) }
            o.inUse[user, default: 0] += 1
        }
        defer { observed.withLock { $0.inUse[user, default: 0] -= 1 } }
        let values = try tenant.runtime.execute(
            "if tenantID == nil then tenantID = \(fresh); n = 0 end\nn = n + 1\nreturn tenantID, n",
            chunkName: "=request")
        guard values.count == 2, let id = values[0].integerValue, let n = values[1].integerValue else {
            throw HostError.plugin("unexpected result \(values)")
        }
        usleep(200)
        observed.withLock { o in
            if let last = o.last[user], last.id == id {
                if n == last.n + 1 {
                    o.continued += 1
                } else {
                    o.continuityBreaks.append("\(user): \(last.n) then \(n)")
                }
            }
            o.last[user] = (id, n)
        }
    }

    func testANestedRequestForTheSameUserIsRefusedNotDeadlocked() throws {
        let host = try notesHost()
        let message = try host.withTenant("alice") { _ -> String in
            do {
                try host.withTenant("alice") { _ in }
                return "a nested withTenant for alice ran"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertTrue(message.contains("inside withTenant for the same user"), message)
        // Another user's tenant may be used inside, and alice's lock is free afterwards.
        XCTAssertEqual(try host.withTenant("alice") { _ in try host.withTenant("bob") { _ in 2 } }, 2)
    }

    func testATenantInUseIsNotEvictedAndTheCacheShrinksBackWhenIdle() throws {
        let host = try notesHost(cacheSize: 1)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            _ = try? host.withTenant("alice") { tenant in
                _ = try tenant.runtime.execute("mark = 'kept'", chunkName: "=a")
                entered.signal()
                release.wait()
            }
        }.start()
        entered.wait()
        // Bob's tenant is added while alice's is busy: the cache exceeds its size instead of dropping
        // hers, then drops bob's (idle, least recently used) once he is done.
        let whileBoth = try host.withTenant("bob") { _ in host.openTenants }
        XCTAssertEqual(Set(whileBoth), ["alice", "bob"], "a tenant in use was evicted")
        XCTAssertEqual(host.openTenants, ["alice"], "a busy tenant was evicted, or an idle one kept past the size")
        release.signal()
        done.wait()
        // Alice's tenant, still cached, kept her global; the cache is back to its size.
        let mark = try host.withTenant("alice") { try $0.runtime.execute("return mark", chunkName: "=a").first }
        XCTAssertEqual(mark?.stringValue, "kept")
        XCTAssertEqual(host.openTenants, ["alice"])
    }
}
