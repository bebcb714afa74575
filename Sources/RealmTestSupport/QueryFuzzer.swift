import Foundation
import RealmDatabase

/// A fuzzer for the query language: random token soups, grammar-generated queries and byte-level
/// mutations of both, fed to the parser (and optionally the translator and SQLite's parser).
///
/// The property checked: every input either compiles or fails with a `RealmError(.query, …)`;
/// nothing else is thrown, nothing crashes, and every compiled query's SQL is accepted by SQLite.
public enum QueryFuzzer {
    public struct Report: CustomStringConvertible, Sendable {
        public var iterations = 0
        /// Inputs the parser accepted.
        public var parsed = 0
        /// Inputs the translator compiled (when compiling).
        public var compiled = 0
        /// Compiled queries whose SQL SQLite prepared and ran (when executing).
        public var executed = 0
        /// Inputs that failed in a way other than a query error, with the failure.
        public var failures: [String] = []
        public var seconds = 0.0

        public var description: String {
            "\(iterations) runs in \(String(format: "%.1f", seconds)) s: \(parsed) parsed, \(compiled) compiled, "
                + "\(executed) executed, \(failures.count) failures"
                + (failures.isEmpty ? "" : "\n" + failures.prefix(20).joined(separator: "\n"))
        }
    }

    public enum Mode: Sendable {
        /// Tokenize and parse only.
        case parse
        /// Parse and translate to SQL.
        case compile
        /// Parse, translate, and prepare and run the SQL on an empty in-memory database.
        case execute
    }

    /// Runs `iterations` inputs generated from `seed` (the same seed gives the same inputs).
    public static func run(iterations: Int, seed: UInt64, mode: Mode = .parse) -> Report {
        var rng = SplitMix64(seed: seed)
        var report = Report()
        let start = Date()
        var harness: Harness?
        if mode != .parse {
            do {
                harness = try Harness(execute: mode == .execute)
            } catch {
                report.failures.append("harness: \(error)")
                return report
            }
        }
        for _ in 0..<iterations {
            let query = generate(&rng)
            report.iterations += 1
            check(query, harness: harness, report: &report)
        }
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    /// Checks one input (exposed for regression tests of inputs found by fuzzing).
    static func check(_ query: String, harness: Harness?, report: inout Report) {
        do {
            try QuerySyntax.check(query)
            report.parsed += 1
        } catch let e as RealmError where e.code == .query {
            return
        } catch {
            report.failures.append("parse \(query.debugDescription): \(error)")
            return
        }
        guard let harness else { return }
        do {
            let compiled = try harness.compile(query)
            report.compiled += 1
            if harness.execute {
                if let problem = harness.run(compiled) {
                    report.failures.append("sql \(query.debugDescription): \(problem)")
                } else {
                    report.executed += 1
                }
            }
        } catch let e as RealmError where e.code == .query {
            return
        } catch {
            report.failures.append("compile \(query.debugDescription): \(error)")
        }
    }

    // MARK: - The schema queries are compiled against

    /// Every kind of property and path the grammar can reach (also used by realm-fuzz).
    public static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "name", type: .string, isIndexed: true),
                    Property(name: "age", type: .int),
                    Property(name: "score", type: .int, isOptional: true),
                    Property(name: "height", type: .double, isOptional: true),
                    Property(name: "ratio", type: .float),
                    Property(name: "balance", type: .decimal128, isOptional: true),
                    Property(name: "active", type: .bool),
                    Property(name: "born", type: .date, isOptional: true),
                    Property(name: "oid", type: .objectId, isOptional: true),
                    Property(name: "uid", type: .uuid, isOptional: true),
                    Property(name: "blob", type: .data, isOptional: true),
                    Property(name: "any", type: .mixed),
                    Property(name: "tags", type: .string, collection: .list),
                    Property(name: "nums", type: .int, isOptional: true, collection: .list),
                    Property(name: "decs", type: .decimal128, collection: .list),
                    Property(name: "mixes", type: .mixed, collection: .list),
                    Property(name: "tagSet", type: .string, collection: .set),
                    Property(name: "attrs", type: .string, collection: .map),
                    Property(name: "friend", type: .object, objectClassName: "Person"),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                    Property(name: "petMap", type: .object, objectClassName: "Dog", collection: .map),
                    Property(
                        name: "friendOf", type: .linkingObjects, objectClassName: "Person",
                        linkOriginPropertyName: "friend"),
                ]),
            ObjectSchema(
                className: "Dog",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "age", type: .int),
                    Property(name: "mood", type: .mixed),
                    Property(name: "toys", type: .object, objectClassName: "Toy", collection: .set),
                    Property(
                        name: "walkers", type: .linkingObjects, objectClassName: "Person",
                        linkOriginPropertyName: "dogs"),
                ], primaryKey: nil),
            ObjectSchema(
                className: "Toy",
                properties: [
                    Property(name: "name", type: .string, isPrimaryKey: true),
                    Property(name: "price", type: .double),
                ]),
        ])
    }

    /// An in-memory realm of `schema` holding a few objects, on which queries are compiled (and
    /// run) through the public API, as an application would.
    final class Harness {
        let realm: Realm
        let execute: Bool
        /// The values of `$0`, `$1`, …: one of each kind the grammar can compare with.
        let arguments: [RealmValue]

        init(execute: Bool) throws {
            self.execute = execute
            var configuration = Realm.Configuration(inMemoryIdentifier: "query-fuzzer-\(UUID().uuidString)")
            configuration.schema = QueryFuzzer.schema
            realm = try Realm(configuration: configuration)
            let dog = try Harness.seed(realm)
            let date = Timestamp(seconds: 100, nanoseconds: 0).map(RealmValue.date) ?? .null
            let decimal = Decimal128(string: "1.5").map(RealmValue.decimal128) ?? .null
            arguments = [
                .int(3), .string("a"), .null, .list([1, "x", nil]), .double(2.5),
                date, .bool(true), .list([]), decimal, .object(dog),
            ]
        }

        /// Two people and a dog, so that executed queries visit rows, links and lists.
        private static func seed(_ realm: Realm) throws -> DynamicObject {
            try realm.write {
                let dog = try realm.create("Dog", value: .dictionary(["name": "d", "age": 2, "mood": .double(1.5)]))
                _ = try realm.create(
                    "Person",
                    value: .dictionary([
                        "name": "a", "age": 3, "ratio": .float(1.5), "active": true, "any": "x",
                        "dogs": .list([.object(dog)]), "tags": .list(["x"]),
                    ]))
                _ = try realm.create("Person", value: .dictionary(["name": "b", "age": 4, "active": false]))
                return dog
            }
        }

        /// Compiles on `Person`, or on `Dog` when the query names a Dog property.
        func compile(_ query: String) throws -> Results {
            do {
                return try realm.objects("Person").filter(query, arguments: arguments)
            } catch let e as RealmError where e.message.contains("on object type 'Person'") {
                return try realm.objects("Dog").filter(query, arguments: arguments)
            }
        }

        /// Runs the compiled query on SQLite; returns a description of any failure.
        func run(_ results: Results) -> String? {
            do {
                _ = try results.countObjects()
                return nil
            } catch {
                // SQLite's checked arithmetic refusing an overflow is a valid outcome.
                if "\(error)".contains("integer overflow") { return nil }
                return "\(error)"
            }
        }
    }

    // MARK: - Generation

    static let vocabulary: [String] = [
        "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "&&", "||", "!", "AND", "and", "OR", "or", "NOT",
        "not",
        "(", ")", "{", "}", "[", "]", ",", ".", "+", "-", "*", "/", "[c]", "[d]", "[cd]",
        "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "IN", "in", "BETWEEN", "ANY", "SOME", "ALL", "NONE", "any", "all",
        "none",
        "TRUEPREDICATE", "FALSEPREDICATE", "truepredicate", "SUBQUERY", "SORT", "DISTINCT", "LIMIT", "ASC", "DESC",
        "ascending",
        "@count", "@size", "@sum", "@avg", "@min", "@max", "@links", "@type", "@keys", "@values", "@foo", "[FIRST]",
        "[LAST]", "[0]", "[*]",
        "true", "false", "TRUE", "null", "nil", "NULL", "inf", "-infinity", "NaN", "0", "1", "-1", "42", "3.5", ".5",
        "10.", "1e3", "0x1F", "2.5f",
        "'a'", "\"b\"", "'it\\'s'", "'\\u00e9'", "''", "'*'", "'?'", "'['", "B64\"YWJj\"",
        "oid(600000000000000000000001)",
        "uuid(00000000-0000-0000-0000-000000000001)", "2020-01-01@00:00:00", "2020-1-1T1:2:3:4", "T0:0", "T-1:-5", "O1",
        "$0", "$1", "$3", "$5", "$9", "$99", "$x", "$d", "name", "age", "score", "height", "ratio", "balance", "active",
        "born",
        "oid", "uid", "blob", "any", "tags", "nums", "decs", "mixes", "tagSet", "attrs", "friend", "dogs", "petMap",
        "friendOf",
        "walkers", "toys", "price", "mood", "Person", "Dog", "Toy", "missing", "x", "obj('Toy', 'ball')", "bin('x')",
        "é",
    ]

    static let seeds: [String] = [
        "age > 3", "name BEGINSWITH[c] 'a' AND age < 30", "ANY dogs.age > 3", "ALL tags == 'x'", "NONE nums > 2",
        "SUBQUERY(dogs, $d, $d.age > 1).@count > 0", "friend.friend.name == $1", "dogs.@sum.age == 3", "nums.@avg > 2",
        "age IN {1, 2, 3}", "name LIKE '*a?'", "any.@type == 'string'", "attrs['k'] == 'v'", "tags[FIRST] == 'x'",
        "born > 2020-01-01@00:00:00 SORT(age DESC) LIMIT(3)", "TRUEPREDICATE DISTINCT(name)",
        "@links.Person.dogs.@count > 1",
        "age BETWEEN {1, 5}", "2 * (age - 1) > score", "balance > 1.5 OR height == nil", "NOT (active == true)",
        "walkers.@count > 1", "$0 IN dogs", "mood > 1", "friendOf.@count == 0", "oid == oid(600000000000000000000001)",
        "ANY petMap.@values.age > 1", "decs.@max > 1", "mixes == nil", "blob CONTAINS 'x'", "uid == $2",
    ]

    static func generate(_ rng: inout SplitMix64) -> String {
        switch rng.next() % 10 {
        case 0, 1: return tokenSoup(&rng)
        case 2, 3, 4: return grammar(&rng, depth: 0)
        case 5, 6: return mutate(pick(seeds, &rng), &rng)
        case 7, 8: return mutate(grammar(&rng, depth: 0), &rng)
        default: return randomText(&rng)
        }
    }

    static func pick(_ items: [String], _ rng: inout SplitMix64) -> String {
        items[Int(rng.next() % UInt64(items.count))]
    }

    static func tokenSoup(_ rng: inout SplitMix64) -> String {
        let n = Int(rng.next() % 24) + 1
        var parts = [String]()
        for _ in 0..<n { parts.append(pick(vocabulary, &rng)) }
        return parts.joined(separator: rng.next() % 4 == 0 ? "" : " ")
    }

    static func randomText(_ rng: inout SplitMix64) -> String {
        let n = Int(rng.next() % 40)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<n {
            let r = rng.next() % 100
            let v: UInt32
            if r < 70 {
                v = UInt32(0x20 + rng.next() % 95)
            } else if r < 80 {
                v = UInt32(rng.next() % 0x20)
            } else if r < 95 {
                v = UInt32(0xA0 + rng.next() % 0x2000)
            } else {
                v = UInt32(0x1F600 + rng.next() % 0x50)
            }
            if let s = Unicode.Scalar(v) { scalars.append(s) }
        }
        return String(scalars)
    }

    static func keyPath(_ rng: inout SplitMix64) -> String {
        let paths = [
            "name", "age", "score", "height", "ratio", "balance", "active", "born", "oid", "uid", "blob", "any",
            "tags", "nums", "decs", "mixes", "tagSet", "attrs", "attrs['k']", "attrs.k", "attrs.@keys", "attrs.@values",
            "friend", "friend.name", "friend.friend.age", "dogs", "dogs.name", "dogs.age", "dogs.toys.price",
            "petMap.k.age",
            "friendOf.name", "@links.Person.friend.age", "tags[FIRST]", "dogs[LAST].age", "nums[1]", "any.@type",
            "tags.@count", "dogs.@size", "nums.@sum", "nums.@avg", "decs.@max", "dogs.@min.age", "dogs.@sum.age",
            "name.@size", "@links.@count", "mixes.@type", "walkers.age", "mood", "missing", "friend.missing",
        ]
        var p = pick(paths, &rng)
        if rng.next() % 8 == 0 { p = pick(["ANY ", "ALL ", "NONE ", "SOME "], &rng) + p }
        return p
    }

    static func value(_ rng: inout SplitMix64, depth: Int) -> String {
        switch rng.next() % 9 {
        case 0, 1: return keyPath(&rng)
        case 2: return pick(["1", "-2", "3.5", "0x10", "inf", "nan", "1e2", "7f"], &rng)
        case 3: return pick(["'x'", "\"y\"", "'\\n'", "''", "'*'", "B64\"eA==\""], &rng)
        case 4: return pick(["true", "false", "nil", "NULL"], &rng)
        case 5: return pick(["$0", "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$9", "$10"], &rng)
        case 6: return pick(["{1, 2}", "{}", "{'a', nil}", "ANY {1, 3}", "ALL {2}", "{$0, $1}"], &rng)
        case 7:
            if depth > 3 { return "1" }
            return "(" + value(&rng, depth: depth + 1) + " " + pick(["+", "-", "*", "/"], &rng) + " "
                + value(&rng, depth: depth + 1) + ")"
        default:
            return pick(
                [
                    "2020-01-01@00:00:00", "T5:0", "oid(600000000000000000000002)",
                    "uuid(00000000-0000-0000-0000-000000000002)", "O1", "obj('Toy', 'ball')",
                ], &rng)
        }
    }

    static func grammar(_ rng: inout SplitMix64, depth: Int) -> String {
        var s = predicate(&rng, depth: depth)
        while rng.next() % 4 == 0 {
            switch rng.next() % 3 {
            case 0:
                s +=
                    " SORT("
                    + pick(["age ASC", "name DESC", "friend.name ASC, age DESC", "missing ASC", "dogs ASC"], &rng) + ")"
            case 1: s += " DISTINCT(" + pick(["age", "name, active", "friend.age", "tags"], &rng) + ")"
            default: s += " LIMIT(" + pick(["0", "1", "10", "-1", "x"], &rng) + ")"
            }
        }
        return s
    }

    /// A comparison whose sides usually have compatible types, so that translation gets exercised.
    static func typedComparison(_ rng: inout SplitMix64) -> String {
        let numeric = [
            "age", "score", "friend.age", "dogs.age", "ANY dogs.age", "ALL dogs.age", "NONE nums", "nums", "nums.@sum",
            "dogs.@count", "tags.@size", "name.@size", "friendOf.@count", "SUBQUERY(dogs, $d, $d.age > 1).@count",
            "nums[0]", "attrs.@count", "dogs.@max.age", "height", "friend.height", "balance", "decs", "decs.@avg",
            "nums.@avg", "ratio", "age * 2", "score / 0", "balance + 1", "age - height", "any", "mixes",
            "dogs.@avg.age",
            "@links.Person.friend.@count", "petMap.@count", "ALL decs", "friend.friend.score", "mixes.@max",
            "dogs.mood",
        ]
        let numericValues = [
            "1", "-2", "3.5", "0", "0x10", "1e2", "nil", "$0", "$4", "$8", "{1, 2}", "ANY {1, nil}", "ALL {2}",
            "NONE {3}", "{}", "$3", "inf", "nan", "2.5f", "age", "score", "height", "balance", "dogs.age", "any",
        ]
        let strings = [
            "name", "friend.name", "tags", "dogs.name", "attrs['k']", "attrs.@values", "attrs.@keys", "tagSet",
            "any", "mixes", "ALL tags", "NONE dogs.name", "tags[FIRST]", "friend.friend.name", "blob", "dogs.mood",
            "petMap.k.name",
        ]
        let stringValues = [
            "'x'", "\"a*\"", "''", "nil", "$1", "B64\"YQ==\"", "{'a', 'b'}", "ANY {'x', nil}", "name", "tags", "any",
        ]
        let stringOps = [
            "==", "!=", "<", ">=", "==[c]", "!=[cd]", "BEGINSWITH", "ENDSWITH[c]", "CONTAINS[d]", "LIKE", "LIKE[c]",
            "IN", "IN[c]",
        ]
        let ordering = ["==", "!=", "<", "<=", ">", ">=", "IN", "BETWEEN"]
        switch rng.next() % 6 {
        case 0, 1:
            let op = pick(ordering, &rng)
            let rhs =
                op == "BETWEEN"
                ? pick(["{1, 5}", "{$0, $4}", "{nil, 2}"], &rng)
                : op == "IN" ? pick(["{1, 2}", "$3", "$7", "nums", "{}"], &rng) : pick(numericValues, &rng)
            return pick(numeric, &rng) + " " + op + " " + rhs
        case 2, 3:
            let op = pick(stringOps, &rng)
            let rhs =
                op.hasPrefix("IN") ? pick(["{'a', 'b'}", "$3", "tags", "tagSet"], &rng) : pick(stringValues, &rng)
            return pick(strings, &rng) + " " + op + " " + rhs
        case 4:
            return pick(
                [
                    "active == true", "active != $6", "born > 2020-01-01@00:00:00", "born == nil",
                    "born BETWEEN {T0:0, $5}",
                    "oid == oid(600000000000000000000001)", "uid != uuid(00000000-0000-0000-0000-000000000001)",
                    "oid > nil",
                    "friend == nil", "ANY dogs == $9", "$9 IN dogs", "friend != O1", "any.@type == 'int'",
                    "mixes.@type IN {'string', 'null'}",
                    "ANY petMap.@values == nil", "@links.Person.dogs.@count > 0", "walkers.@count == 1", "mood == $9",
                    "any == $5",
                    "blob == 'ab'", "blob CONTAINS nil", "friend.born < $5", "dogs.toys.price > 2",
                    "ANY dogs.toys.@count == 1",
                ], &rng)
        default:
            return "SUBQUERY(" + pick(["dogs", "friendOf", "petMap", "@links.Person.friend"], &rng) + ", $s, "
                + typedComparison(&rng).replacingOccurrences(of: "name", with: "$s.name").replacingOccurrences(
                    of: "age", with: "$s.age") + ").@count " + pick(["> 0", "== 1", "< $0", ">= age"], &rng)
        }
    }

    static func predicate(_ rng: inout SplitMix64, depth: Int) -> String {
        if rng.next() % 2 == 0 { return typedComparison(&rng) }
        let r = rng.next() % (depth > 4 ? 3 : 8)
        switch r {
        case 0, 1, 2:
            let op = pick(
                [
                    "==", "!=", "<", "<=", ">", ">=", "==[c]", "!=[d]", "BEGINSWITH", "ENDSWITH[c]", "CONTAINS", "LIKE",
                    "IN", "IN[c]", "BETWEEN",
                ], &rng)
            let rhs =
                op == "BETWEEN" ? pick(["{1, 5}", "{$0, $1}", "{'a', 'b'}", "{1}"], &rng) : value(&rng, depth: depth)
            return value(&rng, depth: depth) + " " + op + " " + rhs
        case 3:
            return predicate(&rng, depth: depth + 1) + pick([" AND ", " OR ", " && ", " || "], &rng)
                + predicate(&rng, depth: depth + 1)
        case 4: return pick(["NOT ", "!", "not "], &rng) + "(" + predicate(&rng, depth: depth + 1) + ")"
        case 5: return "(" + predicate(&rng, depth: depth + 1) + ")"
        case 6:
            let v = pick(["$d", "$e", "$x"], &rng)
            return "SUBQUERY(" + pick(["dogs", "friendOf", "petMap", "tags", "friend", "walkers"], &rng)
                + ", \(v), \(v)." + pick(["age > 1", "name == 'x'", "toys.@count > 0", "missing == 1"], &rng) + " AND "
                + predicate(&rng, depth: depth + 2) + ").@count " + pick(["> 0", "== 1", "< $0"], &rng)
        default: return pick(["TRUEPREDICATE", "FALSEPREDICATE"], &rng)
        }
    }

    static func mutate(_ s: String, _ rng: inout SplitMix64) -> String {
        var scalars = Array(s.unicodeScalars)
        let n = Int(rng.next() % 4) + 1
        for _ in 0..<n {
            let pos = scalars.isEmpty ? 0 : Int(rng.next() % UInt64(scalars.count + 1))
            switch rng.next() % 7 {
            case 0: if !scalars.isEmpty { scalars.remove(at: min(pos, scalars.count - 1)) }
            case 1: scalars.insert(Unicode.Scalar(UInt8(0x20 + rng.next() % 95)), at: pos)
            case 2: scalars.insert(contentsOf: pick(vocabulary, &rng).unicodeScalars, at: pos)
            case 3: if pos < scalars.count { scalars[pos] = Unicode.Scalar(UInt8(0x20 + rng.next() % 95)) }
            case 4: scalars = Array(scalars.prefix(pos))
            case 5:
                let len = min(Int(rng.next() % 12), scalars.count - min(pos, scalars.count))
                let piece = Array(scalars[min(pos, scalars.count)..<(min(pos, scalars.count) + len)])
                scalars.insert(contentsOf: piece, at: pos)
            default:
                let other = pick(seeds, &rng)
                scalars.insert(contentsOf: (" " + other + " ").unicodeScalars, at: pos)
            }
        }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }
}
