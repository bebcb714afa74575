/// The store's objects as routing reads them while one call of the server routes every session:
/// the store does not change meanwhile (what replicas hold is recorded after the routing,
/// `SyncServer.recordHeldWrites`), so each object, its holders and its fields are read once, not
/// once per session.
final class ObjectStates {
    private let rules: SyncSchemaRules
    private var objects: [ObjectRef: StoredObject?] = [:]
    private var holders: [ObjectRef: Set<UInt64>] = [:]
    private var subjects: [ObjectRef: ViewSubject] = [:]

    init(rules: SyncSchemaRules) { self.rules = rules }

    func object(_ ref: ObjectRef, _ reader: any SyncStoreReader) throws -> StoredObject? {
        if let known = objects[ref] { return known }
        let stored = try reader.object(ref)
        objects[ref] = stored
        return stored
    }

    /// Tells the store which of `refs` are about to be read (`SyncStoreReader.prefetch`).
    func prefetch(_ refs: [ObjectRef], _ reader: any SyncStoreReader) throws {
        let unknown = refs.filter { objects[$0] == nil }
        if !unknown.isEmpty { try reader.prefetch(unknown) }
    }

    /// Whether the replica of `fileID` holds `ref`.
    func holds(_ fileID: UInt64, _ ref: ObjectRef, _ reader: any SyncStoreReader) throws -> Bool {
        if let known = holders[ref] { return known.contains(fileID) }
        let files = Set(try reader.holders(of: ref))
        holders[ref] = files
        return files.contains(fileID)
    }

    /// Whether `ref` exists and is in `view` for `user`.
    func isInView(_ ref: ObjectRef, _ view: SessionView, user: String, _ reader: any SyncStoreReader) throws -> Bool {
        guard let predicate = view.predicates[ref.className], let stored = try object(ref, reader), stored.exists
        else { return false }
        if case .constant(let value) = predicate { return value }  // No field to read.
        let subject: ViewSubject
        if let known = subjects[ref] {
            subject = known
        } else {
            subject = try SessionView.subject(ref, stored, reader, rules: rules)
            subjects[ref] = subject
        }
        return predicate.matches(subject, user: user)
    }
}
