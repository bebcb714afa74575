import Foundation

/// The binary encoding of a `Changeset` (and of the changesets inside messages). Class and field
/// names are interned per changeset, as realm-core's changesets do: a table of the names, in order of
/// first use, then instructions naming them by index.
public enum ChangesetCodec {
    public static func encode(_ changeset: Changeset) -> [UInt8] {
        encode(changeset.metadata, ChangesetBodyWriter(changeset.instructions))
    }

    /// A changeset whose instructions were encoded as they were made: the same bytes as
    /// `encode(_:)` of the `Changeset`, without one ever holding them all as values.
    static func encode(_ metadata: ChangesetMetadata, _ body: ChangesetBodyWriter) -> [UInt8] {
        var writer = ByteWriter(capacity: 64 + body.byteCount)
        writer.header(magic: CodecFormat.changesetMagic)
        writer.changeset(metadata, body)
        return writer.bytes
    }

    /// `encode(metadata, body)` as `Data`, copying the instructions' bytes once (a row's blob).
    static func encodedData(_ metadata: ChangesetMetadata, _ body: ChangesetBodyWriter) -> Data {
        var head = ByteWriter(capacity: 64 + body.names.byteCount)
        head.header(magic: CodecFormat.changesetMagic)
        head.changesetHead(metadata, body)
        var data = Data(capacity: head.bytes.count + body.body.bytes.count)
        data.append(contentsOf: head.bytes)
        data.append(contentsOf: body.body.bytes)
        return data
    }

    /// Throws `SyncError(.badChangeset)` naming what is malformed and where.
    public static func decode(_ bytes: [UInt8]) throws -> Changeset {
        var reader = ByteReader(bytes, code: .badChangeset, subject: "changeset")
        try reader.header(magic: CodecFormat.changesetMagic)
        let changeset = try reader.changeset()
        try reader.expectEnd()
        return changeset
    }
}

/// A changeset's fields other than its instructions.
struct ChangesetMetadata {
    var clientVersion: UInt64
    var basedOnServerVersion: UInt64
    var clock: HLCTimestamp
    var clientFileID: UInt64
}

extension Changeset {
    var metadata: ChangesetMetadata {
        ChangesetMetadata(
            clientVersion: clientVersion, basedOnServerVersion: basedOnServerVersion, clock: clock,
            clientFileID: clientFileID)
    }
}

/// A changeset's instructions, encoded one by one as they come (with the names they use), so a
/// large commit holds its bytes rather than an array of instructions and then their bytes too.
struct ChangesetBodyWriter {
    fileprivate var names = NameTable()
    fileprivate var body: ByteWriter
    private(set) var count = 0

    init(expectedInstructions: Int = 0) { body = ByteWriter(capacity: expectedInstructions * 24) }

    /// The body of `instructions`, all encoded at once.
    init(_ instructions: [Instruction]) {
        self.init(expectedInstructions: instructions.count)
        append(contentsOf: instructions)
    }

    var isEmpty: Bool { count == 0 }
    var byteCount: Int { body.bytes.count + names.byteCount }

    mutating func append(_ instruction: Instruction) {
        body.instruction(instruction, names: &names)
        count += 1
    }

    mutating func append(contentsOf instructions: [Instruction]) {
        for instruction in instructions { append(instruction) }
    }

    /// A `create` written as it is read, without making the instruction: the same bytes as
    /// `append(.create(object, fields:))` once `fieldCount` fields have followed (`appendField`).
    mutating func beginCreate(_ object: ObjectRef, fieldCount: Int) {
        body.createHead(object, fieldCount: fieldCount, names: &names)
        count += 1
    }

    mutating func appendField(_ name: String, _ value: SyncValue) {
        body.field(name, value, names: &names)
    }
}

/// The names of one changeset, each given an index at its first use.
private struct NameTable {
    private(set) var names: [String] = []
    private var indexes: [String: Int] = [:]

    mutating func index(of name: String) -> Int {
        // A changeset names a few classes and fields, over and over: comparing them (the same
        // string objects, mostly, so a comparison of two words) costs less than hashing.
        if names.count <= 16 {
            for (i, known) in names.enumerated() where known == name { return i }
        } else if let i = indexes[name] {
            return i
        }
        indexes[name] = names.count
        names.append(name)
        byteCount += name.utf8.count + 2
        return names.count - 1
    }

    /// About what the names take encoded (a length prefix and the bytes of each).
    private(set) var byteCount = 0
}

extension ByteWriter {
    /// A changeset without header: its metadata, its name table, then its instructions.
    mutating func changeset(_ c: Changeset) { changeset(c.metadata, ChangesetBodyWriter(c.instructions)) }

    mutating func changeset(_ metadata: ChangesetMetadata, _ body: ChangesetBodyWriter) {
        changesetHead(metadata, body)
        fixed(body.body.bytes)
    }

    /// A changeset without header up to its instructions: metadata, name table, instruction count.
    mutating func changesetHead(_ metadata: ChangesetMetadata, _ body: ChangesetBodyWriter) {
        varint(metadata.clientVersion)
        varint(metadata.basedOnServerVersion)
        varint(metadata.clock.rawValue)
        varint(metadata.clientFileID)
        count(body.names.names.count)
        for name in body.names.names { string(name) }
        count(body.count)
    }

    mutating func integratedChangeset(_ c: IntegratedChangeset) {
        varint(c.serverVersion)
        varint(c.recipientClientVersion)
        changeset(c.origin)
    }

    private mutating func name(_ name: String, _ table: inout NameTable) { count(table.index(of: name)) }

    private mutating func header(_ tag: InstructionTag, _ object: ObjectRef, _ table: inout NameTable) {
        byte(tag.rawValue)
        name(object.className, &table)
        primaryKey(object.primaryKey)
    }

    mutating func elementID(_ id: ElementID) {
        varint(id.clock.rawValue)
        varint(id.clientFileID)
        varint(UInt64(id.index))
    }

    mutating func position(_ p: FractionalPosition) { lengthPrefixed(p.bytes) }

    fileprivate mutating func createHead(_ object: ObjectRef, fieldCount: Int, names table: inout NameTable) {
        header(.create, object, &table)
        count(fieldCount)
    }

    fileprivate mutating func field(_ fieldName: String, _ fieldValue: SyncValue, names table: inout NameTable) {
        name(fieldName, &table)
        value(fieldValue)
    }

    fileprivate mutating func instruction(_ instruction: Instruction, names table: inout NameTable) {
        switch instruction {
        case .create(let o, let fields):
            createHead(o, fieldCount: fields.count, names: &table)
            for field in fields { self.field(field.name, field.value, names: &table) }
        case .erase(let o):
            header(.erase, o, &table)
        case .set(let o, let path, let v):
            header(.set, o, &table)
            count(path.count)
            for step in path { name(step, &table) }
            value(v)
        case .listInsert(let o, let field, let element, let p, let v):
            header(.listInsert, o, &table)
            name(field, &table)
            elementID(element)
            position(p)
            value(v)
        case .listErase(let o, let field, let element):
            header(.listErase, o, &table)
            name(field, &table)
            elementID(element)
        case .listMove(let o, let field, let element, let p):
            header(.listMove, o, &table)
            name(field, &table)
            elementID(element)
            position(p)
        case .listSet(let o, let field, let element, let v):
            header(.listSet, o, &table)
            name(field, &table)
            elementID(element)
            value(v)
        case .listClear(let o, let field):
            header(.listClear, o, &table)
            name(field, &table)
        case .setAdd(let o, let field, let v), .setRemove(let o, let field, let v):
            if case .setAdd = instruction { header(.setAdd, o, &table) } else { header(.setRemove, o, &table) }
            name(field, &table)
            value(v)
        case .mapPut(let o, let field, let key, let v):
            header(.mapPut, o, &table)
            name(field, &table)
            string(key)
            value(v)
        case .mapRemove(let o, let field, let key):
            header(.mapRemove, o, &table)
            name(field, &table)
            string(key)
        }
    }
}

extension ByteReader {
    mutating func changeset() throws -> Changeset {
        let clientVersion = try varint("the client version")
        let basedOn = try varint("the based-on server version")
        let clock = HLCTimestamp(rawValue: try varint("the clock"))
        let clientFileID = try varint("the client file id")
        let nameCount = try count("the name count")
        var names: [String] = []
        names.reserveCapacity(nameCount)
        for _ in 0..<nameCount { names.append(try string("a name of the name table")) }
        // An instruction takes at least a tag, a class index and a primary key tag.
        let instructionCount = try count("the instruction count", minimumSize: 3)
        var instructions: [Instruction] = []
        instructions.reserveCapacity(instructionCount)
        for _ in 0..<instructionCount { instructions.append(try instruction(names: names)) }
        return Changeset(
            clientVersion: clientVersion, basedOnServerVersion: basedOn, clock: clock, clientFileID: clientFileID,
            instructions: instructions)
    }

    mutating func integratedChangeset() throws -> IntegratedChangeset {
        let serverVersion = try varint("the server version")
        let recipientClientVersion = try varint("the recipient's client version")
        return IntegratedChangeset(
            serverVersion: serverVersion, origin: try changeset(), recipientClientVersion: recipientClientVersion)
    }

    private mutating func name(_ names: [String], _ what: String) throws -> String {
        let raw = try varint("the name index of \(what)")
        guard let i = Int(exactly: raw), i < names.count else {
            throw error("name index \(raw) of \(what) out of range (the table has \(names.count))")
        }
        return names[i]
    }

    mutating func elementID() throws -> ElementID {
        ElementID(
            clock: HLCTimestamp(rawValue: try varint("the clock of an element id")),
            clientFileID: try varint("the client file id of an element id"),
            index: try uint32("the index of an element id"))
    }

    mutating func position() throws -> FractionalPosition {
        let start = offset
        let raw = try lengthPrefixed("a list position")
        guard let p = FractionalPosition(bytes: Array(raw)) else {
            let why = raw.isEmpty ? "empty" : "ending in 0"
            throw error("invalid list position (\(why))", at: start)
        }
        return p
    }

    private mutating func instruction(names: [String]) throws -> Instruction {
        let raw = try byte("an instruction tag")
        guard let tag = InstructionTag(rawValue: raw) else { throw error("bad instruction tag \(raw)") }
        let o = ObjectRef(try name(names, "a class"), try primaryKey())
        switch tag {
        case .create:
            let n = try count("the field count of a create", minimumSize: 2)
            var fields: [SyncField] = []
            fields.reserveCapacity(n)
            for _ in 0..<n {
                let field = try name(names, "a created field")
                fields.append(SyncField(field, try value(depth: 0)))
            }
            return .create(o, fields: fields)
        case .erase:
            return .erase(o)
        case .set:
            let n = try count("the path length of a set")
            guard n > 0 else { throw error("empty path in a set") }
            var path: [String] = []
            path.reserveCapacity(n)
            for _ in 0..<n { path.append(try name(names, "a path step")) }
            return .set(o, path: path, value: try value(depth: 0))
        case .listInsert:
            let field = try name(names, "a list field")
            let element = try elementID()
            let p = try position()
            return .listInsert(o, field: field, element: element, position: p, value: try value(depth: 0))
        case .listErase:
            return .listErase(o, field: try name(names, "a list field"), element: try elementID())
        case .listMove:
            let field = try name(names, "a list field")
            return .listMove(o, field: field, element: try elementID(), position: try position())
        case .listSet:
            let field = try name(names, "a list field")
            return .listSet(o, field: field, element: try elementID(), value: try value(depth: 0))
        case .listClear:
            return .listClear(o, field: try name(names, "a list field"))
        case .setAdd:
            return .setAdd(o, field: try name(names, "a set field"), value: try value(depth: 0))
        case .setRemove:
            return .setRemove(o, field: try name(names, "a set field"), value: try value(depth: 0))
        case .mapPut:
            let field = try name(names, "a map field")
            let key = try string("a map key")
            return .mapPut(o, field: field, key: key, value: try value(depth: 0))
        case .mapRemove:
            let field = try name(names, "a map field")
            return .mapRemove(o, field: field, key: try string("a map key"))
        }
    }
}
