import Foundation
import RealmDatabase

/// The bytes of the client's `_sync_*` rows. Changesets, values and bootstrap batches use the wire
/// codecs (`ChangesetCodec`, `SyncValueCodec`, `SyncMessageCodec`), which check what they read: a
/// damaged row is a `SyncError` naming it. Element ids have a fixed form of their own, ordered.
enum ClientEncodings {
    // MARK: Changesets (the one place: the history holds what will be uploaded)

    static func encode(_ changeset: Changeset) -> [UInt8] { ChangesetCodec.encode(changeset) }

    static func decodeChangeset(_ bytes: [UInt8]) throws -> Changeset { try ChangesetCodec.decode(bytes) }

    // MARK: Values

    static func encode(_ value: SyncValue) -> Data { Data(SyncValueCodec.encode(value)) }

    static func decodeValue(_ data: Data) throws -> SyncValue { try SyncValueCodec.decode(Array(data)) }

    static func encode(_ ref: ObjectRef) -> Data { encode(.link(ref)) }

    static func decodeRef(_ data: Data) throws -> ObjectRef {
        guard case .link(let ref) = try decodeValue(data) else {
            throw SyncError(.badChangeset, "A stored object reference of the sync keys is not a reference")
        }
        return ref
    }

    // MARK: Element ids

    /// 20 big-endian bytes (clock, client file id, index): the blob order is the id order, and
    /// bytes 9…16 are the client file id.
    static func encode(_ e: ElementID) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        for (value, width) in [(e.clock.rawValue, 8), (e.clientFileID, 8), (UInt64(e.index), 4)] {
            for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        return Data(bytes)
    }

    static func decodeElement(_ data: Data, of table: String) throws -> ElementID {
        let bytes = Array(data)
        guard bytes.count == 20 else {
            throw SyncError(.badChangeset, "A stored element id of '\(table)' has \(bytes.count) bytes, not 20")
        }
        func number(_ range: Range<Int>) -> UInt64 { bytes[range].reduce(0) { $0 << 8 | UInt64($1) } }
        return ElementID(
            clock: HLCTimestamp(rawValue: number(0..<8)), clientFileID: number(8..<16),
            index: UInt32(truncatingIfNeeded: number(16..<20)))
    }

    // MARK: Bootstrap batches

    static func encode(bootstrap objects: [ObjectSnapshot], removals: [ObjectRef], serverVersion: UInt64) -> Data {
        Data(
            SyncMessageCodec.encode(
                .bootstrap(
                    session: 0, serverVersion: serverVersion, latestClock: .zero, uploadAcknowledged: 0,
                    objects: objects, isLast: false, progress: 0, removals: removals)))
    }

    static func decodeBootstrap(_ data: Data) throws -> (objects: [ObjectSnapshot], removals: [ObjectRef]) {
        guard case .bootstrap(_, _, _, _, let objects, _, _, _, let removals) = try SyncMessageCodec.decode(Array(data))
        else {
            throw SyncError(.badChangeset, "A stored bootstrap batch is not a bootstrap")
        }
        return (objects, removals)
    }

    // MARK: Subscription sets

    static func encode(_ query: QuerySet) -> Data { Data(SyncMessageCodec.encode(.query(session: 0, query: query))) }

    static func decodeQuerySet(_ data: Data) throws -> QuerySet {
        guard case .query(_, let query) = try SyncMessageCodec.decode(Array(data)) else {
            throw SyncError(.badChangeset, "The stored active subscription set is not a query message")
        }
        return query
    }
}
