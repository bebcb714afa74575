/// What a writer may do with one object as the store has it: read it (its read rule), see it (its
/// view), write it (its write rule).
struct ObjectAccess: Hashable {
    var readable: Bool
    var inView: Bool
    var writable: Bool

    /// In the writer's view as Atlas defines it: its subscriptions AND its read rule.
    var isVisible: Bool { readable && inView }
}

/// A refusal of every instruction of one object in one changeset: the object stays as stored and
/// the writer gets a compensating write with `reason`.
struct PermissionRefusal: Error, Hashable {
    var reason: String
}

/// The permission checks of one upload (docs/SYNC.md "Permissions"; Atlas's compensating writes,
/// shared/sync-reference.md §1.6): before its change an object must be visible to and writable by
/// the writer, or not exist; after it, it must still be writable and visible.
struct PermissionGuard {
    let permissions: SyncPermissions
    let writer: UploadWriter
    let rules: SyncSchemaRules
    let transaction: any SyncStoreTransaction

    /// What the writer may do with `o` as the store has it now; nil when it does not exist.
    func access(to o: ObjectRef) throws -> ObjectAccess? {
        guard let object = try transaction.object(o), object.exists else { return nil }
        let subject = try SessionView.subject(o, object, transaction, rules: rules)
        let user = writer.user
        return ObjectAccess(
            readable: permissions.readRule(o.className).matches(subject, user: user),
            inView: writer.view[o.className]?.matches(subject, user: user) ?? false,
            writable: permissions.writeRule(o.className).matches(subject, user: user))
    }

    /// Why the writer may not make `instructions` to `o`, which it finds as `access` (nil: absent, a
    /// create, judged after the change); nil when it may.
    func refusalBefore(_ o: ObjectRef, _ access: ObjectAccess?, _ instructions: [Instruction]) -> String? {
        guard let access else { return nil }
        let creates = instructions.contains { if case .create = $0 { true } else { false } }
        let erases = instructions.contains { if case .erase = $0 { true } else { false } }
        if !access.isVisible {
            if creates { return "create of \(o): the primary key exists outside your view" }
            return "\(erases ? "delete of" : "write to") \(o) outside the subscriptions' view"
        }
        if !access.writable { return "\(erases ? "delete of" : "write to") \(o) not allowed\(writeRuleClause(o))" }
        return nil
    }

    /// Why the object as the change leaves it (`access`, nil: absent) is refused; nil when it may
    /// stand. It must still satisfy the write rule. A write that moves an existing object out of
    /// the writer's view stands, and the object leaves the writer's replica with its next download
    /// (Atlas does this; realm-core's flx "writes work offline" relies on it); a create must land
    /// in the view.
    func refusalAfter(_ o: ObjectRef, existedBefore: Bool, _ access: ObjectAccess?) -> String? {
        guard let access else { return nil }
        let action = existedBefore ? "write to" : "create of"
        if !access.writable {
            let consequence = existedBefore ? ": the object would no longer satisfy it" : ""
            return "\(action) \(o) not allowed\(writeRuleClause(o))\(consequence)"
        }
        if !existedBefore && !access.isVisible { return "create of \(o) outside the subscriptions' view" }
        return nil
    }

    /// The write rule, as the user reads it; a class without rules is private to each object's creator.
    private func writeRuleClause(_ o: ObjectRef) -> String {
        let rule = permissions.writeRule(o.className)
        if rule == .createdByUser {
            return ": \(o.className) has no permission rules, so only the object's creator may write it"
        }
        return " by its write rule \"\(PermissionRuleText.text(of: rule))\""
    }
}
