/// Decides the instructions of one changeset, keep or drop, by docs/SYNC.md rules 1–5, writing what
/// is kept to the store. `decide` returns the instruction as kept (a create keeps only the fields that
/// won), or nil when it is dropped.
struct InstructionDecider {
    let transaction: any SyncStoreTransaction
    let rules: SyncSchemaRules
    let changeset: Changeset
    /// The server version the changeset is integrated at.
    let serverVersion: UInt64
    /// The time of every write of the changeset.
    let time: WriteTime
    /// The user whose client uploaded the changeset: the creator of the objects it creates.
    let user: String

    init(
        transaction: any SyncStoreTransaction, rules: SyncSchemaRules, changeset: Changeset, serverVersion: UInt64,
        user: String
    ) {
        self.transaction = transaction
        self.rules = rules
        self.changeset = changeset
        self.serverVersion = serverVersion
        self.user = user
        self.time = WriteTime(of: changeset)
    }

    func decide(_ instruction: Instruction) throws -> Instruction? {
        switch instruction {
        case .create(let o, let fields):
            return try create(o, fields)
        case .erase(let o):
            return try erase(o) ? instruction : nil
        default:
            guard try isWritable(instruction.object) else { return nil }
            return try decideOnExisting(instruction) ? instruction : nil
        }
    }

    private func decideOnExisting(_ instruction: Instruction) throws -> Bool {
        switch instruction {
        case .create, .erase: return false
        case .set(let o, let path, let value): return try set(o, path, value)
        case .listInsert(let o, let field, let e, let position, let value):
            return try listInsert(o, field, e, position, value)
        case .listErase(let o, let field, let e): return try listErase(o, field, e)
        case .listMove(let o, let field, let e, let position): return try listMove(o, field, e, position)
        case .listSet(let o, let field, let e, let value): return try listSet(o, field, e, value)
        case .listClear(let o, let field): return try listClear(o, field)
        case .setAdd(let o, let field, let value): return try setWrite(o, field, value, present: true)
        case .setRemove(let o, let field, let value): return try setWrite(o, field, value, present: false)
        case .mapPut(let o, let field, let key, let value): return try mapWrite(o, field, key, value)
        case .mapRemove(let o, let field, let key): return try mapWrite(o, field, key, nil)
        }
    }

    // MARK: Rule 1: concurrency with an erase or a replacement

    /// Whether an event (an erase or a replacement at server version `at` by client file `by`) is
    /// concurrent with this changeset: its client had not seen it, and did not make it.
    func isConcurrent(at: UInt64, by: UInt64) -> Bool {
        at > changeset.basedOnServerVersion && by != changeset.clientFileID
    }

    /// Rule 2: a write other than create/erase needs the object to exist and not to have been erased
    /// concurrently.
    private func isWritable(_ o: ObjectRef) throws -> Bool {
        guard let object = try transaction.object(o), object.exists else { return false }
        return !isConcurrent(at: object.erasedAt, by: object.erasedBy)
    }

    // MARK: Rule 2: objects

    private func create(_ o: ObjectRef, _ fields: [SyncField]) throws -> Instruction? {
        let existing = try transaction.object(o)
        if let existing, isConcurrent(at: existing.erasedAt, by: existing.erasedBy) { return nil }
        if existing?.exists != true {
            try transaction.writeObject(
                o,
                StoredObject(
                    exists: true, erasedAt: existing?.erasedAt ?? 0, erasedBy: existing?.erasedBy ?? 0,
                    creator: user, createdAt: serverVersion))
            try writeDefaultFields(of: o)
        }
        let objectSchema = try rules.syncedClass(o.className)
        var won: [SyncField] = []
        for field in fields where field.name != objectSchema.primaryKey {
            if try set(o, [field.name], field.value) { won.append(field) }
        }
        return .create(o, fields: won)
    }

    /// Every single-valued field of a new object at its default, timed zero (so any write wins).
    private func writeDefaultFields(of o: ObjectRef) throws {
        let objectSchema = try rules.syncedClass(o.className)
        for property in objectSchema.persistedProperties where !property.isCollection {
            let value =
                property.isPrimaryKey ? o.primaryKey.value : rules.defaultValue(of: property)
            try transaction.writeField(o, path: [property.name], StoredField(value: value, time: .zero))
        }
    }

    private func erase(_ o: ObjectRef) throws -> Bool {
        guard var object = try transaction.object(o), object.exists else { return false }
        object.exists = false
        object.erasedAt = serverVersion
        object.erasedBy = changeset.clientFileID
        try transaction.writeObject(o, object)
        try transaction.forgetContents(of: o)
        return true
    }

    // MARK: Rule 3: fields

    private func set(_ o: ObjectRef, _ path: [String], _ value: SyncValue) throws -> Bool {
        guard let root = try setRoot(o, path) else { return false }
        // Every proper prefix from the root on must hold an embedded object not replaced concurrently.
        for length in root.depth..<path.count {
            let prefix = Array(path.prefix(length))
            guard case .embedded? = EmbeddedPath.value(at: prefix.dropFirst(root.depth), in: root.value) else {
                return false
            }
            if let stored = try transaction.field(o, path: prefix),
                isConcurrent(at: stored.replacedAt, by: stored.replacedBy)
            {
                return false
            }
        }
        let current = try transaction.field(o, path: path)
        guard time >= (current?.time ?? .zero) else { return false }
        let property = try rules.property(atPath: path, of: try rules.syncedClass(o.className))
        let value = rules.normalized(value, for: property)
        let isReplacement = rules.embeddedClass(of: property) != nil
        if isReplacement { try transaction.forgetFields(of: o, below: path) }
        var written = StoredField(
            value: path.count == 1 ? value : nil, time: time, replacedAt: current?.replacedAt ?? 0,
            replacedBy: current?.replacedBy ?? 0)
        if isReplacement {
            written.replacedAt = serverVersion
            written.replacedBy = changeset.clientFileID
        }
        try transaction.writeField(o, path: path, written)
        guard path.count > root.depth else { return true }
        let updated = EmbeddedPath.replacing(at: path.dropFirst(root.depth), with: value, in: root.value ?? .null)
        switch root.holder {
        case .field(var top):
            top.value = updated
            try transaction.writeField(o, path: [path[0]], top)
        case .element(var element):
            element.value = updated
            try transaction.writeListElement(o, field: path[0], element)
        }
        return true
    }

    /// Where a `set` path starts: a field of the object (depth 1), or a live element of a list of
    /// embedded objects (`[field, ElementStep]`, depth 2). Nil when there is none.
    struct SetRoot {
        enum Holder {
            case field(StoredField)
            case element(StoredListElement)
        }
        var holder: Holder
        var depth: Int
        var value: SyncValue? {
            switch holder {
            case .field(let field): field.value
            case .element(let element): element.value
            }
        }
    }

    func setRoot(_ o: ObjectRef, _ path: [String]) throws -> SetRoot? {
        if let (field, id) = ElementStep.element(startingPath: path) {
            guard let element = try liveElement(o, field, id) else { return nil }
            return SetRoot(holder: .element(element), depth: 2)
        }
        guard let first = path.first, let top = try transaction.field(o, path: [first]) else { return nil }
        return SetRoot(holder: .field(top), depth: 1)
    }

    // MARK: Rule 4: lists

    private func listInsert(
        _ o: ObjectRef, _ field: String, _ e: ElementID, _ position: FractionalPosition, _ value: SyncValue
    ) throws -> Bool {
        guard try transaction.listElement(o, field: field, id: e) == nil else { return false }
        guard WriteTime(insertionOf: e) >= (try transaction.listClearedAt(o, field: field)) else { return false }
        let element = StoredListElement(
            id: e, position: position, positionTime: time, value: value, valueTime: time, isErased: false)
        try transaction.writeListElement(o, field: field, element)
        return true
    }

    func liveElement(_ o: ObjectRef, _ field: String, _ e: ElementID) throws -> StoredListElement? {
        guard let element = try transaction.listElement(o, field: field, id: e), !element.isErased else { return nil }
        return element
    }

    private func listErase(_ o: ObjectRef, _ field: String, _ e: ElementID) throws -> Bool {
        guard var element = try liveElement(o, field, e) else { return false }
        element.isErased = true
        try transaction.writeListElement(o, field: field, element)
        return true
    }

    private func listMove(_ o: ObjectRef, _ field: String, _ e: ElementID, _ position: FractionalPosition) throws
        -> Bool
    {
        guard var element = try liveElement(o, field, e), time >= element.positionTime else { return false }
        element.position = position
        element.positionTime = time
        try transaction.writeListElement(o, field: field, element)
        return true
    }

    private func listSet(_ o: ObjectRef, _ field: String, _ e: ElementID, _ value: SyncValue) throws -> Bool {
        guard var element = try liveElement(o, field, e), time >= element.valueTime else { return false }
        element.value = value
        element.valueTime = time
        try transaction.writeListElement(o, field: field, element)
        let property = try rules.property(field, of: try rules.syncedClass(o.className), collection: .list)
        if rules.embeddedClass(of: property) != nil {
            // A new embedded object in the element: a replacement, as of a to-one embedded field
            // (rule 3), which beats the concurrent writes inside the element (`set` by path).
            let path = [field, ElementStep.name(e)]
            try transaction.forgetFields(of: o, below: path)
            try transaction.writeField(
                o, path: path,
                StoredField(value: nil, time: time, replacedAt: serverVersion, replacedBy: changeset.clientFileID))
        }
        return true
    }

    private func listClear(_ o: ObjectRef, _ field: String) throws -> Bool {
        guard time > (try transaction.listClearedAt(o, field: field)) else { return false }
        try transaction.writeListClearedAt(o, field: field, time)
        for var element in try transaction.listElements(o, field: field)
        where !element.isErased && WriteTime(insertionOf: element.id) < time {
            element.isErased = true
            try transaction.writeListElement(o, field: field, element)
        }
        return true
    }

    // MARK: Rule 5: sets and maps

    private func setWrite(_ o: ObjectRef, _ field: String, _ value: SyncValue, present: Bool) throws -> Bool {
        let current = try transaction.setEntry(o, field: field, value: value)
        guard time >= (current?.time ?? .zero) else { return false }
        try transaction.writeSetEntry(o, field: field, StoredSetEntry(value: value, isPresent: present, time: time))
        return true
    }

    private func mapWrite(_ o: ObjectRef, _ field: String, _ key: String, _ value: SyncValue?) throws -> Bool {
        let current = try transaction.mapEntry(o, field: field, key: key)
        guard time >= (current?.time ?? .zero) else { return false }
        try transaction.writeMapEntry(o, field: field, StoredMapEntry(key: key, value: value, time: time))
        return true
    }
}
