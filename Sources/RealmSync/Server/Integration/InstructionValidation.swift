import RealmDatabase

/// The schema check of an uploaded changeset, before anything of it is decided: every instruction
/// must name a synced class, a field of the right kind and values of the right type. One bad
/// instruction refuses the whole upload (`badChangeset`).
extension SyncSchemaRules {
    func validate(_ changeset: Changeset) throws {
        for (index, instruction) in changeset.instructions.enumerated() {
            do {
                try validate(instruction, in: changeset)
            } catch let error as SyncError {
                throw SyncError(
                    error.code,
                    "\(error.message) (instruction \(index) of client version \(changeset.clientVersion) "
                        + "of client file \(changeset.clientFileID))")
            }
        }
    }

    private func validate(_ instruction: Instruction, in changeset: Changeset) throws {
        let ref = instruction.object
        try checkPrimaryKey(ref)
        let objectSchema = try syncedClass(ref.className)
        switch instruction {
        case .create(_, let fields):
            try validateCreate(fields, of: ref, objectSchema)
        case .erase:
            return
        case .set(_, let path, let value):
            try check(value, for: try property(atPath: path, of: objectSchema))
        case .listInsert(_, let field, let element, _, let value):
            try checkInsertedElement(element, in: changeset)
            try check(value, for: try property(field, of: objectSchema, collection: .list))
        case .listSet(_, let field, _, let value):
            try check(value, for: try property(field, of: objectSchema, collection: .list))
        case .listErase(_, let field, _), .listMove(_, let field, _, _), .listClear(_, let field):
            _ = try property(field, of: objectSchema, collection: .list)
        case .setAdd(_, let field, let value), .setRemove(_, let field, let value):
            try check(value, for: try property(field, of: objectSchema, collection: .set))
        case .mapPut(_, let field, _, let value):
            try check(value, for: try property(field, of: objectSchema, collection: .map))
        case .mapRemove(_, let field, _):
            _ = try property(field, of: objectSchema, collection: .map)
        }
    }

    private func validateCreate(_ fields: [SyncField], of ref: ObjectRef, _ objectSchema: ObjectSchema) throws {
        for field in fields {
            if field.name == objectSchema.primaryKey {
                guard field.value == ref.primaryKey.value else {
                    throw refused("the create of \(ref) gives its primary key another value, \(field.value)")
                }
                continue
            }
            try check(field.value, for: try property(field.name, of: objectSchema, collection: .none))
        }
    }

    /// An element's id carries the clock of the commit that inserted it; one from the future would
    /// let a client outlive clears it never saw, so it may not be later than its changeset's clock.
    private func checkInsertedElement(_ element: ElementID, in changeset: Changeset) throws {
        guard element.clock <= changeset.clock else {
            throw refused("element \(element) is inserted with a clock after its changeset's \(changeset.clock)")
        }
    }
}
