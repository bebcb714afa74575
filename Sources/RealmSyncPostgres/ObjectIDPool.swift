import RealmSync

/// Ids for new objects, taken from the objects' sequence a batch at a time (one round trip for
/// many creates) and kept by the store across its transactions.
///
/// An id taken is never given again by PostgreSQL, whether or not the transaction that used it
/// commits, so ids left unused (a write undone, the server stopping) are gaps: harmless, since an
/// object's id only orders objects. Each server sharing a store takes its own batches.
final class ObjectIDPool {
    private var free: [Int64] = []
    /// The next batch's size: doubled after each batch, so a store creating many objects takes
    /// them a thousand at a time and one creating few wastes few.
    private var batchSize: Int64 = 16
    static let largestBatch: Int64 = 1024

    /// An unused id; `take(n)` reads `n` new ones from the sequence when none is left.
    func next(_ take: (Int64) throws -> [Int64]) throws -> Int64 {
        if free.isEmpty {
            free = try take(batchSize).reversed()
            batchSize = min(Self.largestBatch, batchSize * 2)
        }
        guard let id = free.popLast() else {
            throw SyncStoreError("taking an id for a new object: the objects' sequence returned none")
        }
        return id
    }
}
