/// The binary encoding of a `Changeset` (and of the changesets inside messages). Class and field
/// names are interned per changeset, as realm-core's changesets do: a table of the names, in order of
/// first use, then instructions naming them by index.
public enum ChangesetCodec {
    public static func encode(_ changeset: Changeset) -> [UInt8] {
        var writer = ByteWriter(capacity: 32 + changeset.instructions.count * 24)
        writer.fixed(CodecFormat.changesetMagic)
        writer.byte(CodecFormat.version)
        writer.changeset(changeset)
        return writer.bytes
    }

    /// Throws `SyncError(.badChangeset)` naming what is malformed and where.
    public static func decode(_ bytes: [UInt8]) throws -> Changeset {
        var reader = ByteReader(bytes, code: .badChangeset, subject: "changeset")
        try reader.header(magic: CodecFormat.changesetMagic, version: CodecFormat.version)
        let changeset = try reader.changeset()
        try reader.expectEnd()
        return changeset
    }
}

/// The names of one changeset, each given an index at its first use.
private struct NameTable {
    private(set) var names: [String] = []
    private var indexes: [String: Int] = [:]

    mutating func index(of name: String) -> Int {
        if let i = indexes[name] { return i }
        indexes[name] = names.count
        names.append(name)
        return names.count - 1
    }
}

extension ByteWriter {
    /// A changeset without header: its metadata, its name table, then its instructions.
    mutating func changeset(_ c: Changeset) {
        varint(c.clientVersion)
        varint(c.basedOnServerVersion)
        varint(c.clock.rawValue)
        varint(c.clientFileID)
        var table = NameTable()
        var body = ByteWriter(capacity: c.instructions.count * 24)
        body.count(c.instructions.count)
        for instruction in c.instructions { body.instruction(instruction, names: &table) }
        count(table.names.count)
        for name in table.names { string(name) }
        fixed(body.bytes)
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

    private mutating func instruction(_ instruction: Instruction, names table: inout NameTable) {
        switch instruction {
        case .create(let o, let fields):
            header(.create, o, &table)
            count(fields.count)
            for field in fields {
                name(field.name, &table)
                value(field.value)
            }
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
