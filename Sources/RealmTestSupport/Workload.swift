import RealmDatabase

/// What a view simulation's workload may write: the classes its replica subscribes to (a write to
/// another is refused locally), and `author` values: its user's name, or one of `users`.
public struct WorkloadScope: Sendable {
    public var user: String
    public var users: [String]
    public var writesItems: Bool
    public var writesEntries: Bool

    public init(user: String, users: [String], writesItems: Bool, writesEntries: Bool) {
        self.user = user
        self.users = users
        self.writesItems = writesItems
        self.writesEntries = writesEntries
    }
}

/// Random transactions over a small key space, so that replicas conflict often: creates with
/// colliding primary keys, updates, deletes, every list, set and map operation, embedded objects
/// (alone and in a list) replaced and written inside, links alone and in lists, sets and maps (to
/// objects deleted and created again, as the key space is small), dates, decimals and mixed values
/// of every scalar kind and holding links. Each transaction is one local commit.
public struct Workload: Sendable {
    /// Primary keys 1…keySpace: small, so concurrent writes meet.
    public var keySpace: Int64 = 6
    public var random: SplitMix64

    private static let words = ["a", "b", "c", "d", "e"]

    public init(seed: UInt64) { random = SplitMix64(seed: seed) }

    public mutating func number(_ bound: Int) -> Int { Int(random.next() % UInt64(max(bound, 1))) }
    public mutating func chance(_ percent: Int) -> Bool { number(100) < percent }
    public mutating func word() -> String { Self.words[number(Self.words.count)] }
    public mutating func key() -> Int64 { Int64(number(Int(keySpace))) + 1 }

    /// One commit on `realm`: 1–4 operations, and sometimes a group of entries (the atomicity probe)
    /// named after `commitName`. `scope` (the view simulation's): the classes it may write and the
    /// authors it writes; nil (part 1): every class, no author, and exactly part 1's random draws.
    public mutating func commit(on realm: Realm, named commitName: String, scope: WorkloadScope? = nil) throws {
        try realm.write {
            let operations = 1 + number(4)
            if scope?.writesItems ?? true {
                for _ in 0..<operations { try operation(on: realm, scope: scope) }
            }
            if chance(40), scope?.writesEntries ?? true {
                let size = 2 + number(3)
                var fields: [String: RealmValue] = ["group": .string(commitName), "of": .int(Int64(size))]
                if let scope { fields["author"] = .string(author(scope)) }
                for index in 0..<size {
                    fields["_id"] = .string("\(commitName)-\(index)")
                    _ = try realm.create("Entry", value: .dictionary(fields))
                }
            }
        }
    }

    /// Mostly the writer itself, sometimes another user: a write its rules may refuse.
    private mutating func author(_ scope: WorkloadScope) -> String {
        chance(80) ? scope.user : scope.users[number(scope.users.count)]
    }

    private mutating func operation(on realm: Realm, scope: WorkloadScope?) throws {
        let pk = key()
        guard let item = try realm.object(ofType: "Item", forPrimaryKey: .int(pk)) else {
            // Absent here (never created, deleted, or outside the view): create it, maybe colliding
            // with another replica's.
            var fields: [String: RealmValue] = [
                "_id": .int(pk), "name": .string(word()), "count": .int(Int64(number(9))),
            ]
            if let scope { fields["author"] = .string(author(scope)) }
            _ = try realm.create("Item", value: .dictionary(fields), update: .modified)
            return
        }
        if let scope, chance(8) {
            try item.setValue(.string(author(scope)), forKey: "author")
            return
        }
        switch number(26) {
        case 0: try realm.delete(item)
        case 1: try item.setValue(.string(word()), forKey: "name")
        case 2: try item.setValue(.int(Int64(number(100))), forKey: "count")
        case 3: try item.dynamicList("tags").append(.string(word()))
        case 4:
            let tags = try item.dynamicList("tags")
            try tags.insert(.string(word()), at: number(try tags.fetchCount() + 1))
        case 5:
            let tags = try item.dynamicList("tags")
            let count = try tags.fetchCount()
            if count > 0 { try tags.remove(at: number(count)) }
        case 6:
            let tags = try item.dynamicList("tags")
            let count = try tags.fetchCount()
            if count > 1 { try tags.move(from: number(count), to: number(count)) }
        case 7:
            let tags = try item.dynamicList("tags")
            let count = try tags.fetchCount()
            if count > 0 { try tags.set(.string(word()), at: number(count)) }
        case 8: if chance(40) { try item.dynamicList("tags").removeAll() }
        case 9: try item.dynamicMutableSet("labels").insert(.string(word()))
        case 10: try item.dynamicMutableSet("labels").remove(.string(word()))
        case 11: try item.dynamicMap("attrs").setValue(chance(20) ? .null : .int(Int64(number(9))), forKey: word())
        case 12: try item.dynamicMap("attrs").removeValue(forKey: word())
        case 13: try item.setValue(chance(20) ? .null : spec(), forKey: "spec")
        case 14:
            if case .object(let spec) = try item.value(forKey: "spec") {
                try spec.setValue(.string(word()), forKey: "color")
            }
        case 15:
            let target = try realm.object(ofType: "Item", forPrimaryKey: .int(key()))
            try item.setValue(target.map { .object($0) } ?? .null, forKey: "owner")
        case 16, 17:
            try linkListOperation(on: item, in: realm)
        case 18:
            guard let target = try realm.object(ofType: "Item", forPrimaryKey: .int(key())) else { return }
            let peers = try item.dynamicMutableSet("peers")
            if chance(60) { try peers.insert(.object(target)) } else { try peers.remove(.object(target)) }
        case 19: try item.setValue(chance(20) ? .null : date(), forKey: "when")
        case 20: try item.setValue(.decimal128(decimal()), forKey: "amount")
        case 21, 22: try embeddedListOperation(on: item)
        case 23:
            // A mixed value holding a link, sometimes: to an object deleted and created again, as links.
            if chance(30), let target = try realm.object(ofType: "Item", forPrimaryKey: .int(key())) {
                try item.setValue(.object(target), forKey: "any")
            } else {
                try item.setValue(mixed(), forKey: "any")
            }
        case 24: try mixedCollectionOperation(on: item, in: realm)
        default:
            let refs = try item.dynamicMap("refs")
            if chance(25) { return try refs.removeValue(forKey: word()) }
            let target = try realm.object(ofType: "Item", forPrimaryKey: .int(key()))
            try refs.setValue(target.map { .object($0) } ?? .null, forKey: word())
        }
    }

    /// An insert (most often), a remove, a move, a write inside an element (one of its two fields,
    /// so that replicas write different fields of one element), or a replacement of an element of
    /// `parts`, a list of embedded objects.
    private mutating func embeddedListOperation(on item: DynamicObject) throws {
        let parts = try item.dynamicList("parts")
        let count = try parts.fetchCount()
        switch number(7) {
        case 0 where count > 0: try parts.remove(at: number(count))
        case 1 where count > 1: try parts.move(from: number(count), to: number(count))
        case 2...4 where count > 0:
            guard case .object(let part) = try parts[number(count)] else { return }
            if chance(60) {
                try part.setValue(.string(word()), forKey: "color")
            } else {
                try part.setValue(.int(Int64(number(5))), forKey: "size")
            }
        case 5 where count > 0: try parts.set(spec(), at: number(count))
        default: try parts.insert(spec(), at: number(count + 1))
        }
    }

    private mutating func spec() -> RealmValue {
        .dictionary(["color": .string(word()), "size": .int(Int64(number(5)))])
    }

    /// A day of 1970–1972 with a fraction of a second.
    private mutating func date() -> RealmValue {
        Timestamp(seconds: Int64(number(1000)) * 86_400, nanoseconds: Int32(number(1000)) * 1000).map { .date($0) }
            ?? .null
    }

    /// A decimal with two places, positive or negative (`-12.34`).
    private mutating func decimal() -> Decimal128 {
        let text = "\(chance(30) ? "-" : "")\(number(100)).\(number(100))"
        return Decimal128(string: text) ?? Decimal128(Int64(0))
    }

    /// A mixed value of any scalar kind: null, an int, a string, a date, a decimal.
    private mutating func mixed() -> RealmValue {
        switch number(5) {
        case 0: return .null
        case 1: return .int(Int64(number(100)))
        case 2: return .string(word())
        case 3: return date()
        default: return .decimal128(decimal())
        }
    }

    /// A value, or a link (to an object deleted and created again, as links are), inserted into,
    /// set in or removed from `mixes`, a list of mixed values, or put at or removed from a key of
    /// `named`, a map of them.
    private mutating func mixedCollectionOperation(on item: DynamicObject, in realm: Realm) throws {
        let target = try realm.object(ofType: "Item", forPrimaryKey: .int(key()))
        let value = chance(40) ? target.map { .object($0) } ?? .null : mixed()
        guard chance(50) else {
            let named = try item.dynamicMap("named")
            return chance(20) ? try named.removeValue(forKey: word()) : try named.setValue(value, forKey: word())
        }
        let mixes = try item.dynamicList("mixes")
        let count = try mixes.fetchCount()
        switch number(4) {
        case 0 where count > 0: try mixes.remove(at: number(count))
        case 1 where count > 0: try mixes.set(value, at: number(count))
        default: try mixes.insert(value, at: number(count + 1))
        }
    }

    /// An insert (most often), a remove, a move or a set of an element of `links`.
    private mutating func linkListOperation(on item: DynamicObject, in realm: Realm) throws {
        let links = try item.dynamicList("links")
        let count = try links.fetchCount()
        let target = try realm.object(ofType: "Item", forPrimaryKey: .int(key()))
        switch number(5) {
        case 0 where count > 0: try links.remove(at: number(count))
        case 1 where count > 1: try links.move(from: number(count), to: number(count))
        case 2 where count > 0:
            if let target { try links.set(.object(target), at: number(count)) }
        default:
            guard let target else { return }
            try links.insert(.object(target), at: number(count + 1))
        }
    }
}
