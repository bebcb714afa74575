import RealmDatabase
import RealmSync

/// Who uploaded a changeset, as the audit tap recorded it from the session: its user, and per
/// class the union of its subscriptions' queries when the upload arrived (a class absent: not
/// subscribed). The read rule is not folded in: the oracle checks it itself.
struct OracleWriter {
    var user: String
    var subscriptions: [String: ViewPredicate]
}

/// An object whose instructions of one changeset the permissions refused: its writer's file must
/// get a compensating write naming it at that server version.
struct OracleRefusal: Hashable, Comparable {
    var clientFileID: UInt64
    var object: ObjectRef
    var serverVersion: UInt64

    static func < (a: OracleRefusal, b: OracleRefusal) -> Bool {
        (a.serverVersion, a.clientFileID, a.object) < (b.serverVersion, b.clientFileID, b.object)
    }
}

/// The oracle's own permission checks (docs/SYNC.md "Permissions", Atlas's compensating writes),
/// on its own state: a changeset is decided object by object, in the order of each object's first
/// instruction. Before its instructions an existing object must be visible to the writer (its
/// subscriptions AND the read rule) and writable (the write rule); after them, if it exists, still
/// writable, and visible when the changeset created it (a write may move an existing object out of
/// the writer's view, as Atlas allows). A refused object gets back exactly the state it had; the
/// rest stands.
/// Only `ViewPredicate.matches` (proven separately) is shared with the server.
extension Oracle {
    mutating func applyChecked(
        _ c: Changeset, w: WriteTime, v: UInt64, writer: OracleWriter, permissions: SyncPermissions
    ) {
        var order: [ObjectRef] = []
        var groups: [ObjectRef: [Instruction]] = [:]
        for instruction in c.instructions {
            if groups[instruction.object] == nil { order.append(instruction.object) }
            groups[instruction.object, default: []].append(instruction)
        }
        for o in order {
            let saved = (object: objects[o], erasure: erasures[o])
            let allowedBefore = objects[o].map { mayWrite($0, o, writer, permissions) } ?? true
            if allowedBefore {
                for instruction in groups[o] ?? [] { apply(instruction, of: c, w: w, v: v, creator: writer.user) }
                if let after = objects[o],
                    saved.object == nil
                        ? !mayWrite(after, o, writer, permissions) : !mayKeep(after, o, writer, permissions)
                {
                    objects[o] = saved.object
                    erasures[o] = saved.erasure
                } else {
                    continue
                }
            }
            refusals.append(OracleRefusal(clientFileID: c.clientFileID, object: o, serverVersion: v))
        }
    }

    /// The writer sees the object (subscribed and readable) and may write it.
    private func mayWrite(_ object: OracleObject, _ o: ObjectRef, _ writer: OracleWriter, _ p: SyncPermissions)
        -> Bool
    {
        let subject = self.subject(object, o)
        let subscribed = writer.subscriptions[o.className]?.matches(subject, user: writer.user) ?? false
        return subscribed && p.readRule(o.className).matches(subject, user: writer.user)
            && p.writeRule(o.className).matches(subject, user: writer.user)
    }

    /// The object, which existed before the writer's change, may stand after it: the write rule
    /// holds (it may have left the writer's view).
    private func mayKeep(_ object: OracleObject, _ o: ObjectRef, _ writer: OracleWriter, _ p: SyncPermissions)
        -> Bool
    {
        p.writeRule(o.className).matches(subject(object, o), user: writer.user)
    }

    /// Whether `user` may read `o` as the oracle has it now (false when it does not exist).
    func isReadable(_ o: ObjectRef, by user: String) -> Bool {
        guard let permissions, let object = objects[o] else { return false }
        return permissions.readRule(o.className).matches(subject(object, o), user: user)
    }

    /// Whether `o` exists and is in the view of `subscriptions` within `user`'s read rule.
    func isInView(_ o: ObjectRef, subscriptions: [String: ViewPredicate], user: String) -> Bool {
        guard let object = objects[o], let query = subscriptions[o.className] else { return false }
        return query.matches(subject(object, o), user: user) && isReadable(o, by: user)
    }

    /// The object as a predicate reads it: its top-level fields, unwritten ones at their default.
    func subject(_ object: OracleObject, _ o: ObjectRef) -> ViewSubject {
        let objectSchema = schema[o.className]
        return ViewSubject(creator: object.creator) { name in
            if name == objectSchema?.primaryKey { return o.primaryKey.value }
            if let value = object.fields[name] { return value }
            return objectSchema?[name].map { defaultValue($0) } ?? .null
        }
    }
}
