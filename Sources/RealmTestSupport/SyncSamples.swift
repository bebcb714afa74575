import Foundation
import RealmDatabase
import RealmSync

/// Random but valid sync data (values, changesets, messages) from a seed: the codec's round-trip
/// tests and the `changeset` fuzz target's seeds. Names, keys and values come from small pools so
/// that interning and collisions are exercised; values nest up to `maxDepth`.
public struct SyncSamples {
    public var random: SplitMix64
    public var maxDepth: Int

    public init(seed: UInt64, maxDepth: Int = 4) {
        random = SplitMix64(seed: seed)
        self.maxDepth = maxDepth
    }

    static let classNames = ["Dog", "Person", "Toy", "", "Ünïcødé", "a.b"]
    static let fieldNames = ["name", "age", "tags", "owner", "address", "street", "", "ß", "😀"]
    static let strings = ["", "x", "Rex", "é", "e\u{301}", "😀", "\u{0}", "a\"b", String(repeating: "long ", count: 40)]

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(truncatingIfNeeded: random.next() % UInt64(n)) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A 64-bit integer of random magnitude (small ones often, the extremes sometimes).
    public mutating func int64() -> Int64 {
        switch below(6) {
        case 0: return pick([0, 1, -1, .max, .min, Int64(Int32.max)])
        case 1: return Int64(below(300)) - 150
        default: return Int64(bitPattern: random.next()) >> Int64(below(64))
        }
    }

    public mutating func uint64() -> UInt64 { random.next() >> UInt64(below(64)) }

    public mutating func primaryKey() -> SyncPrimaryKey {
        switch below(5) {
        case 0: return .null
        case 1: return .int(int64())
        case 2: return .string(pick(Self.strings))
        case 3: return .objectId(objectId())
        default: return .uuid(uuid())
        }
    }

    public mutating func objectRef() -> ObjectRef { ObjectRef(pick(Self.classNames), primaryKey()) }

    mutating func objectId() -> ObjectId {
        ObjectId(bytes: (0..<12).map { _ in UInt8(truncatingIfNeeded: random.next()) }) ?? .generate()
    }

    mutating func uuid() -> UUID {
        var tuple: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &tuple) { raw in
            for i in raw.indices { raw[i] = UInt8(truncatingIfNeeded: random.next()) }
        }
        return UUID(uuid: tuple)
    }

    public mutating func value(depth: Int = 0) -> SyncValue {
        let kinds = depth < maxDepth ? 15 : 12
        switch below(kinds) {
        case 0: return .null
        case 1: return .bool(below(2) == 0)
        case 2: return .int(int64())
        case 3:
            return .float(
                pick([Float.nan, -0.0, .infinity, 1.5, Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))]))
        case 4: return .double(pick([Double.nan, -0.0, -.infinity, 0.1, Double(bitPattern: random.next())]))
        case 5: return .string(pick(Self.strings))
        case 6: return .data(Data((0..<below(20)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case 7:
            let seconds = Int64(below(2_000_000_000)) - 1_000_000_000
            let nanos = Int32(below(1_000_000_000))
            return .date(Timestamp(seconds: seconds, nanoseconds: seconds < 0 ? -nanos : nanos) ?? .epoch)
        case 8:
            return .decimal(pick([Decimal128(int64()), .nan, .infinity, Decimal128(string: "-1.25E-300") ?? .zero]))
        case 9: return .objectId(objectId())
        case 10: return .uuid(uuid())
        case 11: return .link(objectRef())
        case 12: return .embedded(fields(depth: depth + 1))
        case 13: return .list((0..<below(4)).map { _ in value(depth: depth + 1) })
        default: return .map(fields(depth: depth + 1))
        }
    }

    mutating func fields(depth: Int) -> [SyncField] {
        (0..<below(4)).map { _ in SyncField(pick(Self.fieldNames), value(depth: depth)) }
    }

    public mutating func elementID() -> ElementID {
        ElementID(clock: HLCTimestamp(rawValue: uint64()), clientFileID: uint64(), index: UInt32(below(10)))
    }

    public mutating func position() -> FractionalPosition {
        var bytes = (0..<below(5)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        bytes.append(UInt8(1 + below(255)))
        return FractionalPosition(bytes: bytes) ?? .first
    }

    public mutating func instruction() -> Instruction {
        let o = objectRef()
        let field = pick(Self.fieldNames)
        switch below(12) {
        case 0: return .create(o, fields: fields(depth: 0))
        case 1: return .erase(o)
        case 2: return .set(o, path: (0...below(3)).map { _ in pick(Self.fieldNames) }, value: value())
        case 3: return .listInsert(o, field: field, element: elementID(), position: position(), value: value())
        case 4: return .listErase(o, field: field, element: elementID())
        case 5: return .listMove(o, field: field, element: elementID(), position: position())
        case 6: return .listSet(o, field: field, element: elementID(), value: value())
        case 7: return .listClear(o, field: field)
        case 8: return .setAdd(o, field: field, value: value())
        case 9: return .setRemove(o, field: field, value: value())
        case 10: return .mapPut(o, field: field, key: pick(Self.strings), value: value())
        default: return .mapRemove(o, field: field, key: pick(Self.strings))
        }
    }

    public mutating func changeset(maxInstructions: Int = 8) -> Changeset {
        Changeset(
            clientVersion: uint64(), basedOnServerVersion: uint64(), clock: HLCTimestamp(rawValue: uint64()),
            clientFileID: uint64(), instructions: (0..<below(maxInstructions + 1)).map { _ in instruction() })
    }

    public mutating func snapshot() -> ObjectSnapshot {
        ObjectSnapshot(
            object: objectRef(), fields: fields(depth: 0),
            lists: (0..<below(3)).map { _ in
                ListSnapshot(
                    field: pick(Self.fieldNames),
                    elements: (0..<below(4)).map { _ in
                        ListSnapshot.Element(id: elementID(), position: position(), value: value())
                    })
            },
            sets: (0..<below(3)).map { _ in
                SetSnapshot(field: pick(Self.fieldNames), values: (0..<below(4)).map { _ in value() })
            },
            maps: (0..<below(3)).map { _ in MapSnapshot(field: pick(Self.fieldNames), entries: fields(depth: 1)) },
            times: snapshotTimes())
    }

    private mutating func writeTime() -> WriteTime {
        WriteTime(clock: HLCTimestamp(rawValue: uint64()), clientFileID: uint64())
    }

    private mutating func snapshotTimes() -> SnapshotTimes {
        SnapshotTimes(
            erasedAt: uint64(), erasedBy: uint64(),
            fields: (0..<below(3)).map { _ in
                .init(
                    path: (0..<below(3) + 1).map { _ in pick(Self.fieldNames) }, time: writeTime(),
                    replacedAt: uint64(), replacedBy: uint64())
            },
            elements: (0..<below(3)).map { _ in
                .init(field: pick(Self.fieldNames), id: elementID(), position: writeTime(), value: writeTime())
            },
            entries: (0..<below(3)).map { _ in .init(field: pick(Self.fieldNames), key: value(), time: writeTime()) })
    }

    public mutating func message() -> SyncMessage {
        let session = UInt32(truncatingIfNeeded: uint64())
        switch below(11) {
        case 0: return .bind(session: session, user: pick(Self.strings), needsClientFileID: below(2) == 0)
        case 1: return .ident(session: session, clientFileID: uint64(), salt: uint64())
        case 2:
            return .identify(
                session: session, clientFileID: uint64(), salt: uint64(), downloadCursor: uint64(),
                query: querySet())
        case 3: return .upload(session: session, changesets: (0..<below(3)).map { _ in changeset(maxInstructions: 4) })
        case 4:
            return .download(
                session: session, downloadCursor: uint64(), uploadAcknowledged: uint64(),
                changesets: (0..<below(3)).map { _ in
                    IntegratedChangeset(
                        serverVersion: uint64(), origin: changeset(maxInstructions: 4), recipientClientVersion: uint64()
                    )
                },
                replacements: (0..<below(2)).map { _ in snapshot() }, removals: objectRefs(),
                compensating: (0..<below(2)).map { _ in
                    CompensatingWrite(object: objectRef(), reason: pick(Self.strings), serverVersion: uint64())
                })
        case 5:
            return .bootstrap(
                session: session, serverVersion: uint64(), latestClock: HLCTimestamp(rawValue: uint64()),
                uploadAcknowledged: uint64(), objects: (0..<below(3)).map { _ in snapshot() },
                isLast: below(2) == 0, progress: Double(below(101)) / 100,
                queryVersion: Int64(bitPattern: uint64()), removals: objectRefs())
        case 6: return .mark(session: session, requestID: uint64())
        case 7:
            return .error(
                session: session, code: pick([.badSyntax, .badChangeset, .clockTooFarAhead, .compensatingWrite]),
                message: pick(Self.strings), tryAgain: below(2) == 0)
        case 8: return .query(session: session, query: querySet())
        case 9:
            return .queryError(
                session: session, version: Int64(bitPattern: uint64()), message: pick(Self.strings))
        default: return .unbind(session: session)
        }
    }

    private mutating func querySet() -> QuerySet {
        QuerySet(
            version: Int64(bitPattern: uint64()),
            subscriptions: (0..<below(4)).map { _ in
                SubscriptionQuery(className: pick(Self.classNames), query: pick(Self.strings))
            })
    }

    private mutating func objectRefs() -> [ObjectRef] { (0..<below(3)).map { _ in objectRef() } }
}
