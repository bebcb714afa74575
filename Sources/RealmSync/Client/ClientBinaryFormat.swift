import Foundation
import RealmDatabase

/// The bytes the client stores in its `_sync_*` tables (history, set and map mirrors, bootstrap
/// batches). Local to one file; the wire format is `ChangesetCodec`'s. Every read is checked: the
/// file is input, and a damaged row throws `SyncError(.badChangeset)` naming what was being read.
struct ClientBinaryWriter {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ v: UInt8) { bytes.append(v) }

    mutating func uint64(_ v: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift)))
        }
    }

    mutating func uint32(_ v: UInt32) { uint64(UInt64(v)) }
    mutating func int64(_ v: Int64) { uint64(UInt64(bitPattern: v)) }

    mutating func blob<C: Collection>(_ data: C) where C.Element == UInt8 {
        uint64(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func string(_ s: String) { blob(Array(s.utf8)) }
    mutating func strings(_ items: [String]) {
        uint64(UInt64(items.count))
        for s in items { string(s) }
    }

    mutating func primaryKey(_ key: SyncPrimaryKey) {
        switch key {
        case .null: byte(0)
        case .int(let v):
            byte(1)
            int64(v)
        case .string(let v):
            byte(2)
            string(v)
        case .objectId(let v):
            byte(3)
            blob(v.bytes)
        case .uuid(let v):
            byte(4)
            blob(withUnsafeBytes(of: v.uuid) { Array($0) })
        }
    }

    mutating func ref(_ ref: ObjectRef) {
        string(ref.className)
        primaryKey(ref.primaryKey)
    }

    mutating func fields(_ fields: [SyncField]) {
        uint64(UInt64(fields.count))
        for f in fields {
            string(f.name)
            value(f.value)
        }
    }

    mutating func values(_ items: [SyncValue]) {
        uint64(UInt64(items.count))
        for v in items { value(v) }
    }

    mutating func value(_ v: SyncValue) {
        switch v {
        case .null: byte(0)
        case .bool(let b): byte(b ? 2 : 1)
        case .int(let i):
            byte(3)
            int64(i)
        case .float(let f):
            byte(4)
            uint32(f.bitPattern)
        case .double(let d):
            byte(5)
            uint64(d.bitPattern)
        case .string(let s):
            byte(6)
            string(s)
        case .data(let d):
            byte(7)
            blob(d)
        case .date(let t):
            byte(8)
            int64(t.seconds)
            int64(Int64(t.nanoseconds))
        case .decimal(let d):
            byte(9)
            blob(d.storedBytes)
        case .objectId(let o):
            byte(10)
            blob(o.bytes)
        case .uuid(let u):
            byte(11)
            blob(withUnsafeBytes(of: u.uuid) { Array($0) })
        case .link(let r):
            byte(12)
            ref(r)
        case .embedded(let f):
            byte(13)
            fields(f)
        case .list(let items):
            byte(14)
            values(items)
        case .map(let f):
            byte(15)
            fields(f)
        }
    }

    mutating func element(_ e: ElementID) {
        uint64(e.clock.rawValue)
        uint64(e.clientFileID)
        uint32(e.index)
    }

    mutating func instruction(_ i: Instruction) {
        switch i {
        case .create(let o, let f):
            byte(0)
            ref(o)
            fields(f)
        case .erase(let o):
            byte(1)
            ref(o)
        case .set(let o, let path, let v):
            byte(2)
            ref(o)
            strings(path)
            value(v)
        case .listInsert(let o, let field, let e, let p, let v):
            byte(3)
            ref(o)
            string(field)
            element(e)
            blob(p.bytes)
            value(v)
        case .listErase(let o, let field, let e):
            byte(4)
            ref(o)
            string(field)
            element(e)
        case .listMove(let o, let field, let e, let p):
            byte(5)
            ref(o)
            string(field)
            element(e)
            blob(p.bytes)
        case .listSet(let o, let field, let e, let v):
            byte(6)
            ref(o)
            string(field)
            element(e)
            value(v)
        case .listClear(let o, let field):
            byte(7)
            ref(o)
            string(field)
        case .setAdd(let o, let field, let v):
            byte(8)
            ref(o)
            string(field)
            value(v)
        case .setRemove(let o, let field, let v):
            byte(9)
            ref(o)
            string(field)
            value(v)
        case .mapPut(let o, let field, let key, let v):
            byte(10)
            ref(o)
            string(field)
            string(key)
            value(v)
        case .mapRemove(let o, let field, let key):
            byte(11)
            ref(o)
            string(field)
            string(key)
        }
    }

    mutating func snapshot(_ s: ObjectSnapshot) {
        ref(s.object)
        fields(s.fields)
        uint64(UInt64(s.lists.count))
        for list in s.lists {
            string(list.field)
            uint64(UInt64(list.elements.count))
            for e in list.elements {
                element(e.id)
                blob(e.position.bytes)
                value(e.value)
            }
        }
        uint64(UInt64(s.sets.count))
        for set in s.sets {
            string(set.field)
            values(set.values)
        }
        uint64(UInt64(s.maps.count))
        for map in s.maps {
            string(map.field)
            fields(map.entries)
        }
    }

    mutating func changeset(_ c: Changeset) {
        uint64(c.clientVersion)
        uint64(c.basedOnServerVersion)
        uint64(c.clock.rawValue)
        uint64(c.clientFileID)
        uint64(UInt64(c.instructions.count))
        for i in c.instructions { instruction(i) }
    }
}

struct ClientBinaryReader {
    private let bytes: [UInt8]
    private var offset = 0
    private let what: String

    init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    var isAtEnd: Bool { offset == bytes.count }

    func damaged(_ detail: String) -> SyncError {
        SyncError(.badChangeset, "The stored \(what) is damaged at byte \(offset): \(detail)")
    }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw damaged("it ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint64() throws -> UInt64 {
        var v: UInt64 = 0
        for _ in 0..<8 { v = v << 8 | UInt64(try byte()) }
        return v
    }

    mutating func uint32() throws -> UInt32 {
        guard let v = UInt32(exactly: try uint64()) else { throw damaged("a 32-bit number is too large") }
        return v
    }

    mutating func int64() throws -> Int64 { Int64(bitPattern: try uint64()) }

    /// A count of items still to read; each takes at least one byte, so a larger count is damage.
    mutating func count() throws -> Int {
        let n = try uint64()
        guard n <= UInt64(bytes.count - offset), let count = Int(exactly: n) else {
            throw damaged("a count of \(n) exceeds the bytes left")
        }
        return count
    }

    mutating func blob() throws -> [UInt8] {
        let n = try count()
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    mutating func string() throws -> String {
        guard let s = String(validating: try blob(), as: UTF8.self) else { throw damaged("a string is not UTF-8") }
        return s
    }

    mutating func strings() throws -> [String] { try (0..<count()).map { _ in try string() } }

    private mutating func uuid() throws -> UUID {
        let b = try blob()
        guard b.count == 16 else { throw damaged("a UUID of \(b.count) bytes") }
        return UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    private mutating func objectId() throws -> ObjectId {
        let b = try blob()
        guard let o = ObjectId(bytes: b) else { throw damaged("an object id of \(b.count) bytes") }
        return o
    }

    mutating func primaryKey() throws -> SyncPrimaryKey {
        switch try byte() {
        case 0: return .null
        case 1: return .int(try int64())
        case 2: return .string(try string())
        case 3: return .objectId(try objectId())
        case 4: return .uuid(try uuid())
        case let tag: throw damaged("unknown primary key tag \(tag)")
        }
    }

    mutating func ref() throws -> ObjectRef { ObjectRef(try string(), try primaryKey()) }

    mutating func fields() throws -> [SyncField] {
        try (0..<count()).map { _ in SyncField(try string(), try value()) }
    }

    mutating func values() throws -> [SyncValue] { try (0..<count()).map { _ in try value() } }

    mutating func value() throws -> SyncValue {
        switch try byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .int(try int64())
        case 4: return .float(Float(bitPattern: try uint32()))
        case 5: return .double(Double(bitPattern: try uint64()))
        case 6: return .string(try string())
        case 7: return .data(Data(try blob()))
        case 8:
            let seconds = try int64()
            guard let nanos = Int32(exactly: try int64()), let t = Timestamp(seconds: seconds, nanoseconds: nanos)
            else {
                throw damaged("a date out of range")
            }
            return .date(t)
        case 9:
            guard let d = Decimal128(storedBytes: Data(try blob())) else { throw damaged("a decimal128") }
            return .decimal(d)
        case 10: return .objectId(try objectId())
        case 11: return .uuid(try uuid())
        case 12: return .link(try ref())
        case 13: return .embedded(try fields())
        case 14: return .list(try values())
        case 15: return .map(try fields())
        case let tag: throw damaged("unknown value tag \(tag)")
        }
    }

    mutating func element() throws -> ElementID {
        ElementID(clock: HLCTimestamp(rawValue: try uint64()), clientFileID: try uint64(), index: try uint32())
    }

    mutating func position() throws -> FractionalPosition {
        guard let p = FractionalPosition(bytes: try blob()) else { throw damaged("a list position") }
        return p
    }

    mutating func instruction() throws -> Instruction {
        switch try byte() {
        case 0: return .create(try ref(), fields: try fields())
        case 1: return .erase(try ref())
        case 2: return .set(try ref(), path: try strings(), value: try value())
        case 3:
            return .listInsert(
                try ref(), field: try string(), element: try element(), position: try position(), value: try value())
        case 4: return .listErase(try ref(), field: try string(), element: try element())
        case 5: return .listMove(try ref(), field: try string(), element: try element(), position: try position())
        case 6: return .listSet(try ref(), field: try string(), element: try element(), value: try value())
        case 7: return .listClear(try ref(), field: try string())
        case 8: return .setAdd(try ref(), field: try string(), value: try value())
        case 9: return .setRemove(try ref(), field: try string(), value: try value())
        case 10: return .mapPut(try ref(), field: try string(), key: try string(), value: try value())
        case 11: return .mapRemove(try ref(), field: try string(), key: try string())
        case let tag: throw damaged("unknown instruction tag \(tag)")
        }
    }

    mutating func snapshot() throws -> ObjectSnapshot {
        let object = try ref()
        let objectFields = try fields()
        let lists = try (0..<count()).map { _ in
            ListSnapshot(
                field: try string(),
                elements: try (0..<count()).map { _ in
                    ListSnapshot.Element(id: try element(), position: try position(), value: try value())
                })
        }
        let sets = try (0..<count()).map { _ in SetSnapshot(field: try string(), values: try values()) }
        let maps = try (0..<count()).map { _ in MapSnapshot(field: try string(), entries: try fields()) }
        return ObjectSnapshot(object: object, fields: objectFields, lists: lists, sets: sets, maps: maps)
    }

    mutating func changeset() throws -> Changeset {
        let version = try uint64()
        let based = try uint64()
        let clock = HLCTimestamp(rawValue: try uint64())
        let file = try uint64()
        let instructions = try (0..<count()).map { _ in try instruction() }
        return Changeset(
            clientVersion: version, basedOnServerVersion: based, clock: clock, clientFileID: file,
            instructions: instructions)
    }
}

/// The one place stored changesets are encoded: swapping in `ChangesetCodec` changes only this.
enum StoredChangeset {
    static func encode(_ changeset: Changeset) -> [UInt8] {
        var writer = ClientBinaryWriter()
        writer.changeset(changeset)
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> Changeset {
        var reader = ClientBinaryReader(bytes, what: "changeset")
        let changeset = try reader.changeset()
        guard reader.isAtEnd else { throw reader.damaged("bytes follow the changeset") }
        return changeset
    }
}
