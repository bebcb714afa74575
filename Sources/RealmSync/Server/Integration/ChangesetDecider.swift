/// What became of one changeset's instructions: those kept (in the changeset's order), the objects
/// the permissions refused, and every drop for the conflict log.
struct ChangesetDecision {
    var kept: [Instruction] = []
    var compensating: [CompensatingWrite] = []
    var conflicts: [ConflictRecord] = []
}

/// Decides one changeset: each instruction by the merge rules (`InstructionDecider`), logging every
/// drop; with permissions, object by object, each object in a savepoint so a refused object's
/// instructions are all undone while the rest of the changeset stands (Atlas semantics).
struct ChangesetDecider {
    let decider: InstructionDecider
    /// The user of the client file that uploaded the changeset (the loser of its drops).
    let user: String
    /// The permission checks; nil when the server has none (every object may be written).
    let permissionGuard: PermissionGuard?

    private var changeset: Changeset { decider.changeset }

    func decide() throws -> ChangesetDecision {
        guard let permissionGuard else {
            var decision = ChangesetDecision()
            for instruction in changeset.instructions {
                if let kept = try decide(instruction, logging: &decision.conflicts) { decision.kept.append(kept) }
            }
            return decision
        }
        return try decideByObject(permissionGuard)
    }

    /// One instruction by the merge rules. Its drop is logged, and so is each field a kept create lost.
    private func decide(_ instruction: Instruction, logging conflicts: inout [ConflictRecord]) throws -> Instruction? {
        guard let kept = try decider.decide(instruction) else {
            conflicts.append(try mergeConflict(instruction))
            return nil
        }
        if case .create(let o, let fields) = instruction, case .create(_, let won) = kept {
            let primaryKey = try decider.rules.syncedClass(o.className).primaryKey
            for field in fields where field.name != primaryKey && !won.contains(field) {
                conflicts.append(try mergeConflict(.set(o, path: [field.name], value: field.value)))
            }
        }
        return kept
    }

    private func decideByObject(_ permissionGuard: PermissionGuard) throws -> ChangesetDecision {
        var decision = ChangesetDecision()
        var kept: [(index: Int, instruction: Instruction)] = []
        for group in ObjectInstructions.grouped(changeset.instructions) {
            var conflicts: [ConflictRecord] = []
            do {
                kept += try decider.transaction.savepoint { try decide(group, permissionGuard, logging: &conflicts) }
                decision.conflicts += conflicts
            } catch let refusal as PermissionRefusal {
                decision.compensating.append(
                    CompensatingWrite(
                        object: group.object, reason: refusal.reason, serverVersion: decider.serverVersion))
                decision.conflicts += group.instructions.map {
                    record($0.instruction, rule: refusal.reason, winner: nil)
                }
            }
        }
        decision.kept = kept.sorted { $0.index < $1.index }.map(\.instruction)
        return decision
    }

    /// One object's instructions between its checks before and after; throws `PermissionRefusal`
    /// (the caller's savepoint then undoes them).
    private func decide(
        _ group: ObjectInstructions, _ permissionGuard: PermissionGuard, logging conflicts: inout [ConflictRecord]
    ) throws -> [(index: Int, instruction: Instruction)] {
        let o = group.object
        let before = try permissionGuard.access(to: o)
        if let reason = permissionGuard.refusalBefore(o, before, group.instructions.map(\.instruction)) {
            throw PermissionRefusal(reason: reason)
        }
        var kept: [(index: Int, instruction: Instruction)] = []
        for (index, instruction) in group.instructions {
            if let decided = try decide(instruction, logging: &conflicts) { kept.append((index, decided)) }
        }
        let after = try permissionGuard.access(to: o)
        if let reason = permissionGuard.refusalAfter(o, existedBefore: before != nil, after) {
            throw PermissionRefusal(reason: reason)
        }
        return kept
    }

    private func mergeConflict(_ instruction: Instruction) throws -> ConflictRecord {
        let explanation = try decider.explainDrop(instruction)
        return record(instruction, rule: explanation.rule, winner: explanation.winner)
    }

    private func record(_ instruction: Instruction, rule: String, winner: UInt64?) -> ConflictRecord {
        ConflictRecord(
            serverVersion: decider.serverVersion, loserClientFileID: changeset.clientFileID, loserUser: user,
            winnerClientFileID: winner, object: instruction.object, field: instruction.fieldName, rule: rule)
    }
}

/// The instructions of one changeset on one object, in their order, each with its index in the
/// changeset (so the kept ones go back in the changeset's order).
struct ObjectInstructions {
    let object: ObjectRef
    var instructions: [(index: Int, instruction: Instruction)]

    /// Groups in the order of each object's first instruction.
    static func grouped(_ instructions: [Instruction]) -> [ObjectInstructions] {
        var groups: [ObjectInstructions] = []
        var groupIndex: [ObjectRef: Int] = [:]
        for (index, instruction) in instructions.enumerated() {
            let o = instruction.object
            if let existing = groupIndex[o] {
                groups[existing].instructions.append((index, instruction))
            } else {
                groupIndex[o] = groups.count
                groups.append(ObjectInstructions(object: o, instructions: [(index, instruction)]))
            }
        }
        return groups
    }
}

extension Instruction {
    /// The field the instruction writes (a path inside embedded objects joined by "."); nil for a
    /// create or an erase.
    var fieldName: String? {
        switch self {
        case .create, .erase: return nil
        case .set(_, let path, _): return path.joined(separator: ".")
        case .listInsert(_, let field, _, _, _), .listErase(_, let field, _), .listMove(_, let field, _, _),
            .listSet(_, let field, _, _), .listClear(_, let field), .setAdd(_, let field, _),
            .setRemove(_, let field, _), .mapPut(_, let field, _, _), .mapRemove(_, let field, _):
            return field
        }
    }
}
