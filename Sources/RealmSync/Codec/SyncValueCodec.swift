import Foundation
import RealmDatabase

/// The binary encoding of one `SyncValue` (also how values travel inside changesets, snapshots and
/// messages). Deterministic: equal values give equal bytes.
public enum SyncValueCodec {
    public static func encode(_ value: SyncValue) -> [UInt8] {
        var writer = ByteWriter()
        writer.header(magic: CodecFormat.valueMagic)
        writer.value(value)
        return writer.bytes
    }

    /// Throws `SyncError(.badChangeset)` naming what is malformed and where.
    public static func decode(_ bytes: [UInt8]) throws -> SyncValue {
        var reader = ByteReader(bytes, code: .badChangeset, subject: "value")
        try reader.header(magic: CodecFormat.valueMagic)
        let value = try reader.value(depth: 0)
        try reader.expectEnd()
        return value
    }
}

extension ByteWriter {
    mutating func value(_ value: SyncValue) {
        switch value {
        case .null: byte(ValueTag.null.rawValue)
        case .bool(let v): byte(v ? ValueTag.true.rawValue : ValueTag.false.rawValue)
        case .int(let v):
            byte(ValueTag.int.rawValue)
            zigzag(v)
        case .float(let v):
            byte(ValueTag.float.rawValue)
            littleEndian(UInt64(v.bitPattern), width: 4)
        case .double(let v):
            byte(ValueTag.double.rawValue)
            littleEndian(v.bitPattern, width: 8)
        case .string(let v):
            byte(ValueTag.string.rawValue)
            string(v)
        case .data(let v):
            byte(ValueTag.data.rawValue)
            lengthPrefixed(v)
        case .date(let v):
            byte(ValueTag.date.rawValue)
            zigzag(v.seconds)
            zigzag(Int64(v.nanoseconds))
        case .decimal(let v):
            byte(ValueTag.decimal.rawValue)
            fixed(v.storedBytes)
        case .objectId(let v):
            byte(ValueTag.objectId.rawValue)
            fixed(v.bytes)
        case .uuid(let v):
            byte(ValueTag.uuid.rawValue)
            uuid(v)
        case .link(let ref):
            byte(ValueTag.link.rawValue)
            string(ref.className)
            primaryKey(ref.primaryKey)
        case .embedded(let fields):
            byte(ValueTag.embedded.rawValue)
            namedValues(fields)
        case .list(let items):
            byte(ValueTag.list.rawValue)
            count(items.count)
            for item in items { self.value(item) }
        case .map(let entries):
            byte(ValueTag.map.rawValue)
            namedValues(entries)
        }
    }

    mutating func namedValues(_ fields: [SyncField]) {
        count(fields.count)
        for field in fields {
            string(field.name)
            value(field.value)
        }
    }

    mutating func uuid(_ v: UUID) {
        withUnsafeBytes(of: v.uuid) { fixed($0) }
    }

    mutating func primaryKey(_ key: SyncPrimaryKey) {
        switch key {
        case .null: byte(PrimaryKeyTag.null.rawValue)
        case .int(let v):
            byte(PrimaryKeyTag.int.rawValue)
            zigzag(v)
        case .string(let v):
            byte(PrimaryKeyTag.string.rawValue)
            string(v)
        case .objectId(let v):
            byte(PrimaryKeyTag.objectId.rawValue)
            fixed(v.bytes)
        case .uuid(let v):
            byte(PrimaryKeyTag.uuid.rawValue)
            uuid(v)
        }
    }

    /// An object reference with its class name inline (snapshots; changesets intern class names).
    mutating func objectRef(_ ref: ObjectRef) {
        string(ref.className)
        primaryKey(ref.primaryKey)
    }
}

extension ByteReader {
    /// One value; `depth` counts the embedded objects, lists and maps around it.
    mutating func value(depth: Int) throws -> SyncValue {
        let raw = try byte("a value tag")
        guard let tag = ValueTag(rawValue: raw) else { throw error("bad value tag \(raw)") }
        switch tag {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int: return .int(try zigzag("an int value"))
        case .float:
            return .float(Float(bitPattern: UInt32(truncatingIfNeeded: try littleEndian(width: 4, "a float value"))))
        case .double: return .double(Double(bitPattern: try littleEndian(width: 8, "a double value")))
        case .string: return .string(try string("a string value"))
        case .data: return .data(Data(try lengthPrefixed("a data value")))
        case .date: return .date(try date())
        case .decimal:
            guard let d = Decimal128(storedBytes: Data(try fixed(16, "a decimal value"))) else {
                throw error("invalid decimal128 bytes")
            }
            return .decimal(d)
        case .objectId: return .objectId(try objectId("an objectId value"))
        case .uuid: return .uuid(try uuid("a uuid value"))
        case .link: return .link(try objectRef())
        case .embedded, .list, .map:
            guard depth < CodecFormat.maximumNesting else {
                throw error("nesting deeper than \(CodecFormat.maximumNesting) levels")
            }
            if tag == .list {
                let n = try count("the item count of a list value")
                var items: [SyncValue] = []
                items.reserveCapacity(n)
                for _ in 0..<n { items.append(try value(depth: depth + 1)) }
                return .list(items)
            }
            let fields = try namedValues(depth: depth + 1)
            return tag == .map ? .map(fields) : .embedded(fields)
        }
    }

    mutating func namedValues(depth: Int) throws -> [SyncField] {
        // Each entry takes at least a name length and a value tag.
        let n = try count("the field count of an embedded object or map", minimumSize: 2)
        var fields: [SyncField] = []
        fields.reserveCapacity(n)
        for _ in 0..<n {
            let name = try string("a field name")
            fields.append(SyncField(name, try value(depth: depth)))
        }
        return fields
    }

    mutating func date() throws -> Timestamp {
        let seconds = try zigzag("the seconds of a date")
        let raw = try zigzag("the nanoseconds of a date")
        guard let nanoseconds = Int32(exactly: raw), let t = Timestamp(seconds: seconds, nanoseconds: nanoseconds)
        else { throw error("invalid date (\(seconds) s, \(raw) ns)") }
        return t
    }

    mutating func objectId(_ what: String) throws -> ObjectId {
        guard let id = ObjectId(bytes: Array(try fixed(12, what))) else { throw error("invalid \(what)") }
        return id
    }

    mutating func uuid(_ what: String) throws -> UUID {
        let raw = try fixed(16, what)
        var tuple: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &tuple) { target in
            for (i, b) in raw.enumerated() { target[i] = b }
        }
        return UUID(uuid: tuple)
    }

    mutating func primaryKey() throws -> SyncPrimaryKey {
        let raw = try byte("a primary key tag")
        guard let tag = PrimaryKeyTag(rawValue: raw) else { throw error("bad primary key tag \(raw)") }
        switch tag {
        case .null: return .null
        case .int: return .int(try zigzag("an int primary key"))
        case .string: return .string(try string("a string primary key"))
        case .objectId: return .objectId(try objectId("an objectId primary key"))
        case .uuid: return .uuid(try uuid("a uuid primary key"))
        }
    }

    mutating func objectRef() throws -> ObjectRef {
        let className = try string("a class name")
        return ObjectRef(className, try primaryKey())
    }
}
