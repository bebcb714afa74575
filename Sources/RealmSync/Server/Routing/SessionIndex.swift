/// Which sessions an integration concerns, found without evaluating every session's view (docs/SYNC.md
/// "Routing"): a session whose view of a class requires `field == value` (`owner == $user`, an
/// equality conjunct, or one in every branch of an OR) is indexed under (class, field, value); a
/// changed object reaches it only when the object's value of that field is the key. A session whose
/// view of a class has no such conjunct is a scan session for that class: it is asked every time.
///
/// Sessions that hold a changed object are found by the store (`holders`), uploaders always get a
/// round, and an object that no longer exists concerns every session subscribed to its class (the
/// replica may have made it itself: `ViewRouter`'s tombstones).
struct SessionIndex {
    struct Key: Hashable {
        let className: String
        let field: String
        let value: SyncValue
    }

    /// The key name standing for the object's creator (no property can be named so).
    static let creatorField = "@creator"

    private var byKey: [Key: Set<SessionKey>] = [:]
    /// Per class, its indexed fields (a session's keys name one field per class, but sessions differ).
    private var fields: [String: Set<String>] = [:]
    /// Per class, the sessions whose view of it needs a scan.
    private var scans: [String: Set<SessionKey>] = [:]
    /// Per class, every session subscribed to it.
    private var subscribers: [String: Set<SessionKey>] = [:]

    init(_ sessions: [SessionKey: ServerSession]) {
        for (key, session) in sessions where session.clientFileID != nil {
            for (className, predicate) in session.view.predicates {
                subscribers[className, default: []].insert(key)
                guard let alternatives = Self.equalities(predicate, user: session.user) else {
                    scans[className, default: []].insert(key)
                    continue
                }
                for (field, value) in alternatives {
                    byKey[Key(className: className, field: field, value: value), default: []].insert(key)
                    fields[className, default: []].insert(field)
                }
            }
        }
    }

    /// How many (session, class) views need a scan: exposed so operators see when rules or
    /// subscriptions defeat the index.
    var scanCount: Int { scans.values.reduce(0) { $0 + $1.count } }

    /// The sessions whose view may contain `ref` now: those indexed under its values, the scan
    /// sessions of its class, and, when it no longer exists (`subject` nil), every subscriber of its
    /// class.
    func candidates(for ref: ObjectRef, _ subject: ViewSubject?) -> Set<SessionKey> {
        guard let subject else { return subscribers[ref.className] ?? [] }
        var result = scans[ref.className] ?? []
        for field in fields[ref.className] ?? [] {
            let value = field == Self.creatorField ? .string(subject.creator) : subject.field(field)
            guard let key = Self.indexKey(value) else { continue }
            result.formUnion(byKey[Key(className: ref.className, field: field, value: key)] ?? [])
        }
        return result
    }

    /// A value as the index keys it, so that two values Realm's `==` finds equal have one key:
    /// numbers compare across types by value (`5 == 5.0`), so an integral float or double is keyed
    /// as the integer; strings (compared by bytes), booleans, object ids and UUIDs as they are. Nil
    /// for what is not indexed (other numbers, dates, decimals, data, null).
    static func indexKey(_ value: SyncValue) -> SyncValue? {
        switch value {
        case .string, .int, .bool, .objectId, .uuid: return value
        case .double(let d): return Int64(exactly: d).map { .int($0) }
        case .float(let f): return Int64(exactly: f).map { .int($0) }
        default: return nil
        }
    }

    /// The equality alternatives every object matching `predicate` satisfies one of, or nil when
    /// there are none to index by (see `indexKey`).
    static func equalities(_ predicate: ViewPredicate, user: String) -> [(String, SyncValue)]? {
        switch predicate {
        case .compare(let field, .equal, let operand, caseInsensitive: false):
            let value: SyncValue
            switch operand {
            case .user: value = .string(user)
            case .value(let v): value = v
            }
            return indexKey(value).map { [(field, $0)] }
        case .and(let parts):
            return parts.lazy.compactMap { equalities($0, user: user) }.first
        case .or(let parts):
            var all: [(String, SyncValue)] = []
            for part in parts {
                guard let alternatives = equalities(part, user: user) else { return nil }
                all += alternatives
            }
            return all
        case .createdByUser:
            return [(Self.creatorField, .string(user))]
        case .constant(false):
            return []
        case .constant(true), .not, .compare:
            return nil
        }
    }
}
