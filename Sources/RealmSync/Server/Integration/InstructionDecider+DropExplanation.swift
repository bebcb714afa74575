/// Why the merge rules dropped an instruction, and whose write won when the store records it: for
/// the conflict log. Read from the store right after the drop, which wrote nothing, so the store
/// shows what the instruction lost to.
struct DropExplanation: Hashable {
    var rule: String
    var winner: UInt64?
}

extension InstructionDecider {
    /// Explains the drop of `instruction` (or of one field of a create, as a `set`).
    func explainDrop(_ instruction: Instruction) throws -> DropExplanation {
        let o = instruction.object
        let object = try transaction.object(o)
        if let object, object.erasedAt > 0, isConcurrent(at: object.erasedAt, by: object.erasedBy) {
            return DropExplanation(rule: "a delete beats a concurrent write", winner: object.erasedBy)
        }
        guard let object, object.exists else {
            let eraser = object.flatMap { $0.erasedAt > 0 ? $0.erasedBy : nil }
            return DropExplanation(rule: "the object does not exist", winner: eraser)
        }
        return try explainDropOnExisting(instruction)
    }

    private func explainDropOnExisting(_ instruction: Instruction) throws -> DropExplanation {
        switch instruction {
        case .create, .erase:
            return DropExplanation(rule: "the object does not exist", winner: nil)
        case .set(let o, let path, _):
            return try explainSetDrop(o, path)
        case .listInsert(let o, let field, let e, _, _):
            if try transaction.listElement(o, field: field, id: e) != nil {
                return DropExplanation(rule: "the element was already inserted", winner: nil)
            }
            let cleared = try transaction.listClearedAt(o, field: field)
            return DropExplanation(rule: "a later clear removes the element", winner: cleared.clientFileID)
        case .listErase:
            return DropExplanation(rule: "the element was already erased", winner: nil)
        case .listMove(let o, let field, let e, _):
            guard let element = try liveElement(o, field, e) else { return elementErased }
            return laterWrite(element.positionTime)
        case .listSet(let o, let field, let e, _):
            guard let element = try liveElement(o, field, e) else { return elementErased }
            return laterWrite(element.valueTime)
        case .listClear(let o, let field):
            return laterWrite(try transaction.listClearedAt(o, field: field))
        case .setAdd(let o, let field, let value), .setRemove(let o, let field, let value):
            return laterWrite(try transaction.setEntry(o, field: field, value: value)?.time)
        case .mapPut(let o, let field, let key, _), .mapRemove(let o, let field, let key):
            return laterWrite(try transaction.mapEntry(o, field: field, key: key)?.time)
        }
    }

    private var elementErased: DropExplanation {
        DropExplanation(rule: "an erase of the element beats a concurrent move or set", winner: nil)
    }

    private func laterWrite(_ time: WriteTime?) -> DropExplanation {
        DropExplanation(rule: "a later write wins", winner: time?.clientFileID)
    }

    /// Rule 3's drops: no embedded object on the way, a concurrent replacement of one, or a later write.
    private func explainSetDrop(_ o: ObjectRef, _ path: [String]) throws -> DropExplanation {
        guard let root = try setRoot(o, path) else {
            return ElementStep.element(startingPath: path) == nil
                ? DropExplanation(rule: "the field does not exist", winner: nil) : elementErased
        }
        for length in root.depth..<path.count {
            let prefix = Array(path.prefix(length))
            guard case .embedded? = EmbeddedPath.value(at: prefix.dropFirst(root.depth), in: root.value) else {
                return DropExplanation(rule: "no embedded object holds the path", winner: nil)
            }
            if let stored = try transaction.field(o, path: prefix),
                isConcurrent(at: stored.replacedAt, by: stored.replacedBy)
            {
                return DropExplanation(
                    rule: "a replacement of the embedded object beats a concurrent write inside it",
                    winner: stored.replacedBy)
            }
        }
        return laterWrite(try transaction.field(o, path: path)?.time)
    }
}
