import Foundation
import RealmDatabase

/// How the store turns values, primary keys and changesets into bytes and back: the one place to
/// swap in the shared binary codec (`SyncValueCodec`, `ChangesetCodec`) once it lands. Until then a
/// minimal private format: a tag byte per value, integers little-endian, lengths as UInt32.
enum StoreEncoding {
    static func encode(_ value: SyncValue) -> [UInt8] {
        var writer = StoreByteWriter()
        writer.value(value)
        return writer.bytes
    }

    static func decodeValue(_ bytes: [UInt8]) throws -> SyncValue {
        var reader = StoreByteReader(bytes)
        let value = try reader.value()
        try reader.expectEnd()
        return value
    }

    static func encode(_ key: SyncPrimaryKey) -> [UInt8] {
        var writer = StoreByteWriter()
        writer.primaryKey(key)
        return writer.bytes
    }

    static func decodePrimaryKey(_ bytes: [UInt8]) throws -> SyncPrimaryKey {
        var reader = StoreByteReader(bytes)
        let key = try reader.primaryKey()
        try reader.expectEnd()
        return key
    }

    static func encode(_ changeset: Changeset) -> [UInt8] {
        var writer = StoreByteWriter()
        writer.changeset(changeset)
        return writer.bytes
    }

    static func decodeChangeset(_ bytes: [UInt8]) throws -> Changeset {
        var reader = StoreByteReader(bytes)
        let changeset = try reader.changeset()
        try reader.expectEnd()
        return changeset
    }
}

private struct StoreByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func raw(_ v: [UInt8]) {
        u32(UInt32(truncatingIfNeeded: v.count))
        bytes += v
    }
    mutating func string(_ v: String) { raw(Array(v.utf8)) }
    mutating func count(_ n: Int) { u32(UInt32(truncatingIfNeeded: n)) }

    mutating func primaryKey(_ key: SyncPrimaryKey) {
        switch key {
        case .null: u8(0)
        case .int(let v):
            u8(1)
            u64(UInt64(bitPattern: v))
        case .string(let v):
            u8(2)
            string(v)
        case .objectId(let v):
            u8(3)
            raw(v.bytes)
        case .uuid(let v):
            u8(4)
            string(v.uuidString)
        }
    }

    mutating func ref(_ ref: ObjectRef) {
        string(ref.className)
        primaryKey(ref.primaryKey)
    }

    mutating func fields(_ fields: [SyncField]) {
        count(fields.count)
        for field in fields {
            string(field.name)
            value(field.value)
        }
    }

    mutating func value(_ value: SyncValue) {
        switch value {
        case .null: u8(0)
        case .bool(let v):
            u8(1)
            u8(v ? 1 : 0)
        case .int(let v):
            u8(2)
            u64(UInt64(bitPattern: v))
        case .float(let v):
            u8(3)
            u32(v.bitPattern)
        case .double(let v):
            u8(4)
            u64(v.bitPattern)
        case .string(let v):
            u8(5)
            string(v)
        case .data(let v):
            u8(6)
            raw(Array(v))
        case .date(let v):
            u8(7)
            u64(UInt64(bitPattern: v.seconds))
            u32(UInt32(bitPattern: v.nanoseconds))
        case .decimal(let v):
            u8(8)
            string(v.description)
        case .objectId(let v):
            u8(9)
            raw(v.bytes)
        case .uuid(let v):
            u8(10)
            string(v.uuidString)
        case .link(let v):
            u8(11)
            ref(v)
        case .embedded(let v):
            u8(12)
            fields(v)
        case .list(let v):
            u8(13)
            count(v.count)
            for item in v { self.value(item) }
        case .map(let v):
            u8(14)
            fields(v)
        }
    }

    mutating func element(_ id: ElementID) {
        u64(id.clock.rawValue)
        u64(id.clientFileID)
        u32(id.index)
    }

    mutating func instruction(_ instruction: Instruction) {
        switch instruction {
        case .create(let o, let f):
            u8(0)
            ref(o)
            fields(f)
        case .erase(let o):
            u8(1)
            ref(o)
        case .set(let o, let path, let v):
            u8(2)
            ref(o)
            count(path.count)
            for name in path { string(name) }
            value(v)
        case .listInsert(let o, let f, let e, let p, let v):
            u8(3)
            ref(o)
            string(f)
            element(e)
            raw(p.bytes)
            value(v)
        case .listErase(let o, let f, let e):
            u8(4)
            ref(o)
            string(f)
            element(e)
        case .listMove(let o, let f, let e, let p):
            u8(5)
            ref(o)
            string(f)
            element(e)
            raw(p.bytes)
        case .listSet(let o, let f, let e, let v):
            u8(6)
            ref(o)
            string(f)
            element(e)
            value(v)
        case .listClear(let o, let f):
            u8(7)
            ref(o)
            string(f)
        case .setAdd(let o, let f, let v):
            u8(8)
            ref(o)
            string(f)
            value(v)
        case .setRemove(let o, let f, let v):
            u8(9)
            ref(o)
            string(f)
            value(v)
        case .mapPut(let o, let f, let k, let v):
            u8(10)
            ref(o)
            string(f)
            string(k)
            value(v)
        case .mapRemove(let o, let f, let k):
            u8(11)
            ref(o)
            string(f)
            string(k)
        }
    }

    mutating func changeset(_ c: Changeset) {
        u64(c.clientVersion)
        u64(c.basedOnServerVersion)
        u64(c.clock.rawValue)
        u64(c.clientFileID)
        count(c.instructions.count)
        for i in c.instructions { instruction(i) }
    }
}

private struct StoreByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private func corrupt(_ what: String) -> SyncStoreError {
        SyncStoreError("corrupt stored bytes: \(what) at offset \(offset) of \(bytes.count)")
    }

    func expectEnd() throws {
        if offset != bytes.count { throw corrupt("trailing bytes") }
    }

    mutating func take(_ n: Int) throws -> ArraySlice<UInt8> {
        guard n >= 0, bytes.count - offset >= n else { throw corrupt("truncated") }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }

    mutating func u8() throws -> UInt8 { try take(1).first ?? 0 }
    mutating func u32() throws -> UInt32 { try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    mutating func u64() throws -> UInt64 { try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } }
    /// A count of items that follow: each takes at least one byte, so a count above the bytes left
    /// is corrupt (and must not reserve memory for it).
    mutating func count() throws -> Int {
        let n = Int(try u32())
        guard n <= bytes.count - offset else { throw corrupt("count \(n) past the end") }
        return n
    }
    mutating func raw() throws -> [UInt8] { Array(try take(try count())) }
    mutating func string() throws -> String { String(decoding: try raw(), as: UTF8.self) }

    mutating func primaryKey() throws -> SyncPrimaryKey {
        switch try u8() {
        case 0: return .null
        case 1: return .int(Int64(bitPattern: try u64()))
        case 2: return .string(try string())
        case 3: return .objectId(try objectId())
        case 4: return .uuid(try uuid())
        case let tag: throw corrupt("primary key tag \(tag)")
        }
    }

    mutating func objectId() throws -> ObjectId {
        guard let id = ObjectId(bytes: try raw()) else { throw corrupt("object id") }
        return id
    }

    mutating func uuid() throws -> UUID {
        guard let id = UUID(uuidString: try string()) else { throw corrupt("uuid") }
        return id
    }

    mutating func ref() throws -> ObjectRef { ObjectRef(try string(), try primaryKey()) }

    mutating func fields() throws -> [SyncField] {
        try (0..<(try count())).map { _ in SyncField(try string(), try value()) }
    }

    mutating func value() throws -> SyncValue {
        switch try u8() {
        case 0: return .null
        case 1: return .bool(try u8() != 0)
        case 2: return .int(Int64(bitPattern: try u64()))
        case 3: return .float(Float(bitPattern: try u32()))
        case 4: return .double(Double(bitPattern: try u64()))
        case 5: return .string(try string())
        case 6: return .data(Data(try raw()))
        case 7:
            let seconds = Int64(bitPattern: try u64())
            guard let date = Timestamp(seconds: seconds, nanoseconds: Int32(bitPattern: try u32())) else {
                throw corrupt("timestamp")
            }
            return .date(date)
        case 8:
            guard let decimal = Decimal128(string: try string()) else { throw corrupt("decimal") }
            return .decimal(decimal)
        case 9: return .objectId(try objectId())
        case 10: return .uuid(try uuid())
        case 11: return .link(try ref())
        case 12: return .embedded(try fields())
        case 13: return .list(try (0..<(try count())).map { _ in try value() })
        case 14: return .map(try fields())
        case let tag: throw corrupt("value tag \(tag)")
        }
    }

    mutating func element() throws -> ElementID {
        ElementID(clock: HLCTimestamp(rawValue: try u64()), clientFileID: try u64(), index: try u32())
    }

    mutating func position() throws -> FractionalPosition {
        guard let position = FractionalPosition(bytes: try raw()) else { throw corrupt("list position") }
        return position
    }

    mutating func instruction() throws -> Instruction {
        switch try u8() {
        case 0: return .create(try ref(), fields: try fields())
        case 1: return .erase(try ref())
        case 2:
            let o = try ref()
            let path = try (0..<(try count())).map { _ in try string() }
            return .set(o, path: path, value: try value())
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
        case let tag: throw corrupt("instruction tag \(tag)")
        }
    }

    mutating func changeset() throws -> Changeset {
        let clientVersion = try u64()
        let basedOn = try u64()
        let clock = HLCTimestamp(rawValue: try u64())
        let fileID = try u64()
        let instructions = try (0..<(try count())).map { _ in try instruction() }
        return Changeset(
            clientVersion: clientVersion, basedOnServerVersion: basedOn, clock: clock, clientFileID: fileID,
            instructions: instructions)
    }
}
