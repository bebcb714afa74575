import CSQLite
import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua
import RealmTestSupport

/// What one input did: accepted, refused with a clean error, or failed in a way that is a bug
/// (an error of the wrong kind, a broken invariant). Crashes and hangs are caught by the driver.
enum Outcome {
    case accepted
    case rejected
    case failure(String)
}

/// One thing to fuzz: its seeds, a dictionary for the mutator, optionally a generator of
/// structured inputs, and the run of one input.
protocol FuzzTarget: AnyObject {
    var name: String { get }
    var dictionary: [String] { get }
    var seeds: [String] { get }
    /// A structured input made from scratch (nil: only mutated seeds are used).
    func generate(_ rng: inout FuzzRandom) -> [UInt8]?
    func run(_ input: [UInt8]) -> Outcome
    /// Called every 1 000 inputs (garbage collection, resets).
    func maintain(after inputs: Int)
    /// Percent of inputs taken from `generate` rather than mutated from the corpus.
    var generatedPercent: Int { get }
    /// Lines printed after the run's summary (coverage), if any.
    func report() -> String
}

extension FuzzTarget {
    func generate(_ rng: inout FuzzRandom) -> [UInt8]? { nil }
    func maintain(after inputs: Int) {}
    var generatedPercent: Int { 35 }
    func report() -> String { "" }
}

/// Errors that are a clean refusal of bad input.
func isCleanError(_ error: Error) -> Bool {
    if let e = error as? RealmError { return e.code != .internalError && e.code != .sqlite }
    return error is LuaError || error is HostError
}

func describe(_ error: Error) -> String {
    if let e = error as? RealmError { return "RealmError(.\(e.code)): \(e.message)" }
    return "\(type(of: error)): \(error)"
}

func text(_ input: [UInt8]) -> String { String(decoding: input, as: UTF8.self) }

// MARK: - A realm for checks

/// Opens an in-memory realm with `schema`, creates one object per top-level class and reads it
/// back: a schema the loader accepted must be storable. SQLite or internal errors are failures.
func storageCheck(_ schema: Schema, id: Int) -> Outcome {
    do {
        let realm = try Realm(
            configuration: Realm.Configuration(inMemoryIdentifier: "fuzz-storage-\(id)", schema: schema))
        for objectSchema in schema.objectSchemas where !objectSchema.isEmbedded {
            do {
                try realm.write { _ = try realm.create(objectSchema.className, value: [:]) }
            } catch let e as RealmError where e.code != .sqlite && e.code != .internalError {
                continue  // a required link or primary key without a value: a clean refusal
            }
            let results = try realm.objects(objectSchema.className)
            _ = try results.countObjects()
            try results.forEach { _ = try $0.dictionaryValue() }
        }
        _ = try RealmJSON.export(realm)
        return .accepted
    } catch {
        return isCleanError(error) ? .accepted : .failure("storage of an accepted schema: \(describe(error))")
    }
}

// MARK: - Query language

final class QueryTarget: FuzzTarget {
    let name = "query"
    let realm: Realm
    let arguments: [RealmValue] = [
        .int(3), .string("a"), .null, .list([1, "x", nil]), .double(2.5), .bool(true), .list([]),
    ]

    init() throws {
        let schema = QueryFuzzer.schema
        realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "fuzz-query", schema: schema))
        try realm.write {
            let rex = try realm.create("Dog", value: ["name": "Rex", "age": 3, "mood": 1.5])
            let ann = try realm.create(
                "Person",
                value: [
                    "name": "Ann", "age": 30, "score": 7, "active": true, "any": "x",
                    "tags": ["a", "b"], "nums": [1, nil], "tagSet": ["s"], "attrs": ["k": "v"], "dogs": [.object(rex)],
                ])
            _ = try realm.create("Person", value: ["name": "Bob", "age": 4, "friend": .object(ann), "any": 3])
        }
    }

    let dictionary = [
        "==", "!=", "<", "<=", ">", ">=", "=", "<>", " BEGINSWITH ", " ENDSWITH ", " CONTAINS ", " LIKE ", "[c]", "[d]",
        "[cd]",
        " AND ", " OR ", "NOT ", "&&", "||", "!", "ANY ", "ALL ", "NONE ", "SOME ", " IN ", " BETWEEN ", "{", "}", "(",
        ")",
        ".@count", ".@size", ".@sum", ".@avg", ".@min", ".@max", ".@keys", ".@values", ".@type", "SUBQUERY(", "$x",
        "TRUEPREDICATE",
        "FALSEPREDICATE", " SORT(", " DISTINCT(", " LIMIT(", " ASC", " DESC", "nil", "NULL", "true", "false", "T0:0",
        "T2020-01-01@00:00:00",
        "oid(000000000000000000000001)", "uuid(3B241101-E2BB-4255-8CAF-4136C566A962)", "B64\"AAAA\"", "name", "age",
        "score", "height",
        "ratio", "balance", "active", "born", "oid", "uid", "blob", "any", "tags", "nums", "tagSet", "attrs", "friend.",
        "dogs.", "friendOf",
        "@links.Person.friend", "@links.@count", ".", "'", "\"", "$0", "$1", "$2", "$3", "$6", "$7", ",", "[FIRST]",
        "[LAST]", "[SIZE]",
        "[ALL]", "['k']", "[0]", "1.5", "-3", "0x10", "1e5", "'a'", "\"Ann\"", "'\\u00e9'", "TEXT ", "@type == 'int'",
    ]

    let seeds = [
        "name == 'Ann'", "age > 3 AND age < 40", "name BEGINSWITH[c] 'a' OR name ENDSWITH 'b'",
        "ANY dogs.name == 'Rex'",
        "dogs.@count > 0", "tags CONTAINS 'a'", "friend.name == $1", "age IN {1, 2, 3}", "age BETWEEN {1, 10}",
        "SUBQUERY(dogs, $d, $d.age > 2).@count == 1", "NOT (score == nil)", "any == 3 || any == 'x'",
        "attrs['k'] == 'v'",
        "attrs.@keys == 'k'", "tagSet.@count == 1", "nums.@sum > 0", "height == nil", "born > T0:0", "name LIKE '*n?'",
        "TRUEPREDICATE SORT(age DESC) LIMIT(1)", "TRUEPREDICATE DISTINCT(name)", "@links.Person.friend.@count > 0",
        "friendOf.@count == 0", "age == $0", "name == $1 AND $0 > 1", "ALL tags != 'z'", "NONE dogs.age > 10",
        "any.@type == 'string'",
        "blob == nil", "oid == oid(000000000000000000000001)", "uid != nil", "balance < 10.5", "ratio >= 0",
        "active == true",
    ]

    func run(_ input: [UInt8]) -> Outcome {
        let query = text(input)
        let className = input.first.map { $0 % 4 == 0 } == true ? "Dog" : "Person"
        do {
            let results = try realm.objects(className).filter(query, arguments: arguments)
            _ = try results.countObjects()
            return .accepted
        } catch {
            return isCleanError(error) ? .rejected : .failure("query \(query.debugDescription): \(describe(error))")
        }
    }
}

// MARK: - Schemas in Lua

/// Lua source of random schema tables and plugin tables (many valid, many slightly wrong).
enum LuaGenerator {
    static let types = [
        "int", "int?", "string", "string?", "bool", "double", "float", "date", "data", "decimal128", "objectId", "uuid",
        "mixed", "string[]", "int<>", "mixed{}", "double?[]", "C0", "C1?", "C1[]", "C2{}", "C0<>", "E0", "E0[]",
        "", "?", "[]", "int[][]", "Nope", "linkingObjects", "object", "list", "set", "dictionary", "int?{}", "mixed?",
    ]
    /// Includes names that collide with storage: the row key, a mixed value's type column, the
    /// table of one class's list colliding with another's (`C0` + `x_tags` vs `C0_x` + `tags`).
    static let names = [
        "_id", "name", "age", "n", "x", "value", "tags", "link", "__hidden", "1bad", "with space", "é", "id", "owner",
        "_key", "_row", "value__t", "x__t", "x_tags", "pos", "Ω",
        "a_very_long_property_name_that_goes_on_and_on_and_on_to_be_too_long_for_storage",
    ]
    static let classNames = [
        "C0", "C1", "C2", "E0", "C0_x", "x", "Ω", "_realm_meta", "class_C0", "sqlite_master", "1C",
    ]

    static func value(_ rng: inout FuzzRandom, depth: Int = 0) -> String {
        switch rng.below(depth > 2 ? 7 : 9) {
        case 0: return "nil"
        case 1: return rng.chance(50) ? "true" : "false"
        case 2: return String(Int64(bitPattern: rng.next()) >> Int64(rng.below(64)))
        case 3: return "\(Double(rng.below(1000)) / 7)"
        case 4: return "'" + rng.pick(names + types) + "'"
        case 5: return "function() end"
        case 6: return "{}"
        case 7:
            return "{ " + (0..<rng.below(4)).map { _ in value(&rng, depth: depth + 1) }.joined(separator: ", ") + " }"
        default:
            return "{ "
                + (0..<rng.below(4)).map { _ in rng.pick(names) + " = " + value(&rng, depth: depth + 1) }.joined(
                    separator: ", ") + " }"
        }
    }

    static func key(_ name: String) -> String {
        name.allSatisfy { $0.isLetter || $0 == "_" || $0.isNumber } && !(name.first?.isNumber ?? true)
            ? name : "['" + name + "']"
    }

    static func property(_ rng: inout FuzzRandom, classes: Int) -> (String, String) {
        let name =
            rng.chance(80)
            ? rng.pick(["_id", "name", "age", "n", "x", "value", "tags", "link", "owner"])
                + (rng.chance(30) ? String(rng.below(5)) : "") : rng.pick(names)
        var type = rng.pick(types)
        if rng.chance(30) { type = type.replacingOccurrences(of: "C0", with: "C\(rng.below(classes + 1))") }
        switch rng.below(6) {
        case 0:
            var fields = ["type = '\(type)'"]
            if rng.chance(30) { fields.append("optional = \(rng.chance(50))") }
            if rng.chance(30) { fields.append("indexed = \(rng.chance(70))") }
            if rng.chance(30) { fields.append("default = " + value(&rng, depth: 2)) }
            if rng.chance(30) { fields.append("objectType = 'C\(rng.below(classes + 1))'") }
            return (name, "{ " + fields.joined(separator: ", ") + " }")
        case 1:
            return (
                name,
                "{ type = 'linkingObjects', objectType = 'C\(rng.below(classes + 1))', property = "
                    + "'\(rng.pick(["link", "links", "x"]))' }"
            )
        case 2:
            return (
                name,
                "{ type = '\(rng.pick(["list", "set", "dictionary", "object"]))', objectType = "
                    + "'\(rng.chance(80) ? "C\(rng.below(classes + 1))" : rng.pick(types))' }"
            )
        default:
            return (name, "'\(type)'")
        }
    }

    /// `{ { name = "C0", primaryKey = …, embedded = …, properties = {…} }, … }`
    static func schema(_ rng: inout FuzzRandom) -> String {
        let classes = 1 + rng.below(4)
        var out = [String]()
        for c in 0..<classes {
            let className =
                rng.chance(85) ? (c == classes - 1 && rng.chance(40) ? "E0" : "C\(c)") : rng.pick(classNames + names)
            var fields = ["name = '\(className)'"]
            let props = (0..<rng.below(7)).map { _ in property(&rng, classes: classes) }
            if rng.chance(50) {
                fields.append("properties = { " + props.map { "\(key($0.0)) = \($0.1)" }.joined(separator: ", ") + " }")
            } else {
                fields.append(
                    "properties = { "
                        + props.map { "{ name = '\($0.0)', type = \($0.1.hasPrefix("{") ? "'int'" : $0.1) }" }.joined(
                            separator: ", ") + " }")
            }
            if rng.chance(30) {
                fields.append("primaryKey = '\(rng.chance(70) ? props.first?.0 ?? "_id" : rng.pick(names))'")
            }
            if rng.chance(20) { fields.append("embedded = \(rng.chance(70))") }
            if rng.chance(5) { fields.append(rng.pick(names) + " = " + value(&rng)) }
            out.append("{ " + fields.joined(separator: ", ") + " }")
        }
        return "{ " + out.joined(separator: ", ") + " }"
    }

    static let functionBodies = [
        "function() end", "function(realm) return #realm:objects('C0') end",
        "function(m, v) m:enumerateObjects('C0', function(o, n) end) end",
        "function(s) s:append(QuerySubscription('C0')) end",
        "function(s) s:append(QuerySubscription('C0', { name = 'x', where = 'n > 1' })) end",
        "function(realm, a) realm:objects('C0'):append{} end", "function() error('boom') end",
        "function() while true do end end",
        "function() return string.rep('x', 1 << 30) end", "function(...) return ... end",
    ]

    /// A plugin.lua: `return { name = …, version = …, schemaVersion = …, schema = …, … }`
    static func plugin(_ rng: inout FuzzRandom) -> String {
        var fields = [String]()
        if rng.chance(95) { fields.append("name = " + (rng.chance(85) ? "'p\(rng.below(3))'" : value(&rng))) }
        if rng.chance(70) { fields.append("version = " + (rng.chance(80) ? "'1.\(rng.below(9)).0'" : value(&rng))) }
        if rng.chance(70) { fields.append("schemaVersion = " + (rng.chance(80) ? String(rng.below(4)) : value(&rng))) }
        if rng.chance(80) { fields.append("schema = " + (rng.chance(90) ? schema(&rng) : value(&rng))) }
        for f in ["migration", "initialSubscriptions", "onOpen"] where rng.chance(25) {
            fields.append("\(f) = " + (rng.chance(85) ? rng.pick(functionBodies) : value(&rng)))
        }
        if rng.chance(40) {
            let commands = (0..<rng.below(4)).map { _ in
                "\(rng.pick(["count", "add", "x_y", "bad name", "é"]).replacingOccurrences(of: " ", with: "_")) = "
                    + "\(rng.chance(85) ? rng.pick(functionBodies) : value(&rng))"
            }
            fields.append("commands = { " + commands.joined(separator: ", ") + " }")
        }
        if rng.chance(20) { fields.append("description = " + value(&rng)) }
        if rng.chance(10) {
            fields.append(
                rng.pick(names).replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "é", with: "e")
                    + " = " + value(&rng))
        }
        let prelude =
            rng.chance(10)
            ? rng.pick([
                "local lib = require('lib.x')\n", "x = 1\n", "local t = {}\n", "while false do end\n", "print('hi')\n",
            ]) : ""
        return prelude + "return { " + fields.shuffled(using: &rng).joined(separator: ",\n  ") + " }\n"
    }

    static let luaDictionary = [
        "{", "}", "{ ", " }", "=", ",", ";", "'", "\"", "[[", "]]", "[", "]", "(", ")", "--", "..", "...", "#", "nil",
        "true", "false",
        "function", "end", "return", "local", "do", "while", "then", "if", "else", "for", "in", "repeat", "until",
        "goto", "::",
        "name", "type", "properties", "primaryKey", "embedded", "optional", "indexed", "default", "objectType",
        "property",
        "linkingObjects", "schema", "schemaVersion", "version", "commands", "migration", "onOpen",
        "initialSubscriptions",
        "int", "string", "bool", "double", "float", "date", "data", "decimal128", "objectId", "uuid", "mixed", "?",
        "[]", "<>", "{}",
        "C0", "C1", "E0", "_id", "1e400", "0x", "\\", "\\0", "\\z", "\\u{110000}", "string.rep('x', 1e8)", "error()",
        "setmetatable({}, {})",
    ]
}

final class SchemaLuaTarget: FuzzTarget {
    let name = "schema-lua"
    var runtime: RealmLuaRuntime
    var checks = 0
    let dictionary = LuaGenerator.luaDictionary

    static func makeRuntime() throws -> RealmLuaRuntime {
        try RealmLuaRuntime(
            userName: "fuzz", folder: FileManager.default.temporaryDirectory,
            defaultConfiguration: Realm.Configuration(inMemoryIdentifier: "fuzz-lua"),
            limits: LuaLimits(memory: 32 << 20, instructions: 2_000_000, time: .milliseconds(500)))
    }

    init() throws { runtime = try Self.makeRuntime() }

    let seeds = [
        "{ { name = 'Dog', primaryKey = '_id', properties = { _id = 'uuid', name = 'string', breed = 'string?', age "
            + "= 'int', tags = 'string[]', attributes = 'mixed{}', owners = { type = 'linkingObjects', objectType = "
            + "'Person', property = 'dogs' } } }, { name = 'Person', properties = { name = 'string', dogs = 'Dog[]', "
            + "address = 'Address?' } }, { name = 'Address', embedded = true, properties = { street = 'string' } } }",
        "{ { name = 'T', properties = { { name = 'b', type = 'int' }, { name = 'a', type = 'string', indexed = "
            + "true, default = 'x' } } } }",
        "{ { name = 'Item', primaryKey = 'id', properties = { id = 'int', value = { type = 'double', default = 0, "
            + "indexed = true }, link = { type = 'object', objectType = 'Item' }, many = { type = 'list', objectType "
            + "= 'Item' } } } }",
        "{}",
    ]

    func generate(_ rng: inout FuzzRandom) -> [UInt8]? { Array(LuaGenerator.schema(&rng).utf8) }

    func run(_ input: [UInt8]) -> Outcome {
        let value: LuaValue
        do {
            value = try runtime.state.execute("return " + text(input), chunkName: "=schema").first ?? .nil
        } catch {
            return isCleanError(error) ? .rejected : .failure("evaluating: \(describe(error))")
        }
        let schema: Schema
        do {
            schema = try runtime.schema(from: value, where: "schema")
        } catch {
            return isCleanError(error)
                ? .rejected : .failure("schema(from:) \(text(input).debugDescription): \(describe(error))")
        }
        checks += 1
        if case .failure(let why) = storageCheck(schema, id: checks % 8) {
            return .failure("\(why)\ninput: \(text(input).debugDescription)")
        }
        return .accepted
    }

    func maintain(after inputs: Int) {
        runtime.state.collectGarbage()
        if inputs % 100_000 == 0, let fresh = try? Self.makeRuntime() { runtime = fresh }
    }
}

// MARK: - Schemas as JSON (as stored in a realm file)

final class SchemaJSONTarget: FuzzTarget {
    let name = "schema-json"
    var checks = 0
    var opened = 0
    let dictionary = [
        "{", "}", "[", "]", ":", ",", "\"", "null", "true", "false", "\"name\"", "\"properties\"", "\"embedded\"",
        "\"type\"",
        "\"objectType\"", "\"property\"", "\"optional\"", "\"collection\"", "\"primaryKey\"", "\"indexed\"",
        "\"objectSchemas\"",
        "\"int\"", "\"string\"", "\"bool\"", "\"double\"", "\"float\"", "\"date\"", "\"data\"", "\"decimal128\"",
        "\"objectId\"",
        "\"uuid\"", "\"mixed\"", "\"object\"", "\"linkingObjects\"", "\"none\"", "\"list\"", "\"set\"", "\"map\"",
        "\"A\"", "\"B\"",
        "\"_id\"", "1e999", "-0", "\"\\u0000\"", "\"\\ud800\"",
    ]
    let seeds: [String]

    init() throws {
        let schemas = [
            Schema([
                ObjectSchema(
                    className: "A",
                    properties: [
                        Property(name: "_id", type: .int, isPrimaryKey: true),
                        Property(name: "s", type: .string, isOptional: true),
                        Property(name: "b", type: .object, objectClassName: "B"),
                        Property(name: "bs", type: .object, objectClassName: "B", collection: .list),
                        Property(name: "m", type: .mixed, collection: .map),
                        Property(name: "e", type: .object, objectClassName: "E"),
                    ]),
                ObjectSchema(
                    className: "B",
                    properties: [
                        Property(name: "n", type: .double, isIndexed: true),
                        Property(name: "tags", type: .string, collection: .set),
                        Property(name: "as", type: .linkingObjects, objectClassName: "A", linkOriginPropertyName: "b"),
                    ]),
                ObjectSchema(className: "E", properties: [Property(name: "x", type: .decimal128)], isEmbedded: true),
            ]),
            Schema([
                ObjectSchema(
                    className: "T",
                    properties: [
                        Property(name: "d", type: .date), Property(name: "u", type: .uuid, isOptional: true),
                        Property(name: "o", type: .objectId),
                    ])
            ]),
            Schema([]),
        ]
        seeds = try schemas.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }

    func run(_ input: [UInt8]) -> Outcome {
        // 1 input in 8 also goes through a realm file's stored schema: the path of opening a file.
        if input.count % 8 == 0, case .failure(let why) = openStored(input) { return .failure(why) }
        let schema: Schema
        do {
            schema = try JSONDecoder().decode(Schema.self, from: Data(input))
            try schema.validate()
        } catch {
            return error is DecodingError || isCleanError(error) ? .rejected : .failure("decode: \(describe(error))")
        }
        checks += 1
        if case .failure(let why) = storageCheck(schema, id: checks % 8) {
            return .failure("\(why)\ninput: \(text(input).debugDescription)")
        }
        return .accepted
    }

    /// Writes the input as the stored schema of an in-memory realm and opens it without a schema.
    private func openStored(_ input: [UInt8]) -> Outcome {
        opened += 1
        let id = "fuzzstored\(opened % 4)"  // letters and digits: the memdb name is the identifier itself
        var db: OpaquePointer?
        guard
            sqlite3_open_v2(
                "file:/realmhost-memory-\(id)?vfs=memdb", &db,
                SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, nil) == SQLITE_OK, let db
        else {
            sqlite3_close(db)
            return .failure("cannot open memdb")
        }
        defer { sqlite3_close(db) }
        sqlite3_exec(
            db,
            "DROP TABLE IF EXISTS _realm_meta; CREATE TABLE _realm_meta (key TEXT PRIMARY KEY, value); INSERT INTO "
                + "_realm_meta VALUES ('format', 'RealmHost-1'), ('schemaVersion', 0), ('version', 0)",
            nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO _realm_meta VALUES ('schema', ?)", -1, &statement, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        _ = input.withUnsafeBufferPointer {
            sqlite3_bind_text(
                statement, 1, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), Int32($0.count),
                transient)
        }
        sqlite3_step(statement)
        sqlite3_finalize(statement)
        do {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: id))
            for objectSchema in realm.schema.objectSchemas {
                // No tables were made: errors are expected.
                _ = try? realm.objects(objectSchema.className).countObjects()
            }
            return .accepted
        } catch {
            return isCleanError(error)
                ? .rejected : .failure("open with stored schema \(text(input).debugDescription): \(describe(error))")
        }
    }
}

// MARK: - Plugins

final class PluginTarget: FuzzTarget {
    let name = "plugin"
    let root: URL
    let pluginsFolder: URL
    let file: URL
    var accepted = 0
    let dictionary = LuaGenerator.luaDictionary
    let limits = LuaLimits(memory: 32 << 20, instructions: 5_000_000, time: .milliseconds(500))
    let seeds: [String]

    init(extraSeeds: [String]) throws {
        let base =
            FileManager.default.fileExists(atPath: "/dev/shm")
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        root = base.appendingPathComponent("realm-fuzz-\(getpid())", isDirectory: true)
        pluginsFolder = root.appendingPathComponent("plugins", isDirectory: true)
        try FileManager.default.createDirectory(
            at: pluginsFolder.appendingPathComponent("p"), withIntermediateDirectories: true)
        file = pluginsFolder.appendingPathComponent("p/plugin.lua")
        seeds =
            [
                "return { name = 'notes', version = '1.0.0', schemaVersion = 1, schema = { { name = 'Note', "
                    + "properties = { text = 'string', n = 'int' } } }, commands = { count = function(realm) return "
                    + "#realm:objects('Note') end } }",
                "return { name = 'm', schemaVersion = 2, schema = { { name = 'T', properties = { x = 'int', y = "
                    + "'int' } } }, migration = function(m, v) m:enumerateObjects('T', function(o, n) n.y = 1 end) "
                    + "end, initialSubscriptions = function(s) s:append(QuerySubscription('T', { name = 'all' })) "
                    + "end, onOpen = function(realm) end }",
                "return { name = 'empty' }",
            ] + extraSeeds
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func generate(_ rng: inout FuzzRandom) -> [UInt8]? { Array(LuaGenerator.plugin(&rng).utf8) }

    func run(_ input: [UInt8]) -> Outcome {
        do {
            try Data(input).write(to: file)
            let registry = try PluginRegistry(folders: [pluginsFolder], limits: limits)
            accepted += 1
            // Every 16th accepted plugin is also hosted: a tenant opens with it (schema, subscriptions, onOpen).
            if accepted % 16 == 0 {
                let data = root.appendingPathComponent("data-\(accepted)", isDirectory: true)
                defer { try? FileManager.default.removeItem(at: data) }
                do {
                    let host = try TenantHost(
                        options: HostOptions(dataFolder: data, pluginFolders: [pluginsFolder], limits: limits))
                    try host.withTenant("fuzz") { tenant in
                        for command in tenant.commandNames { _ = try? tenant.runCommand(command, arguments: ["1"]) }
                    }
                } catch {
                    if !isCleanError(error) {
                        return .failure(
                            "hosting an accepted plugin: \(describe(error))\ninput: \(text(input).debugDescription)")
                    }
                }
            }
            _ = registry
            return .accepted
        } catch {
            return isCleanError(error)
                ? .rejected : .failure("plugin \(text(input).debugDescription): \(describe(error))")
        }
    }
}

// MARK: - JSON import

final class JSONImportTarget: FuzzTarget {
    let name = "json"
    let realm: Realm
    let classes: [String]
    var seeds: [String] = []
    let dictionary = [
        "{", "}", "[", "]", ":", ",", "\"", "null", "true", "false", "\"$key\"", "\"$ref\"", "\"$class\"",
        "\"$double\"", "\"$float\"",
        "\"$date\"", "\"$decimal\"", "\"$oid\"", "\"$uuid\"", "\"$binary\"", "\"format\"", "\"realm-host-export-1\"",
        "\"objects\"",
        "\"Dog\"", "\"Person\"", "\"Address\"", "\"Toy\"", "\"name\"", "\"tags\"", "\"dogs\"", "\"attrs\"",
        "\"address\"", "\"friend\"",
        "\"any\"", "\"NaN\"", "\"inf\"", "\"-0\"", "\"1e400\"", "\"2024-13-01T00:00:00Z\"", "\"zz\"", "1e999", "-0",
        "0.1",
        "9223372036854775807", "18446744073709551615", "\"\\u0000\"", "\"\\ud800\"",
    ]

    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "_id", type: .objectId, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "age", type: .int, isOptional: true),
                    Property(name: "height", type: .double),
                    Property(name: "ratio", type: .float),
                    Property(name: "born", type: .date, isOptional: true),
                    Property(name: "balance", type: .decimal128),
                    Property(name: "uid", type: .uuid, isOptional: true),
                    Property(name: "photo", type: .data, isOptional: true),
                    Property(name: "active", type: .bool),
                    Property(name: "any", type: .mixed),
                    Property(name: "friend", type: .object, objectClassName: "Person"),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                    Property(name: "address", type: .object, objectClassName: "Address"),
                    Property(name: "tags", type: .string, collection: .set),
                    Property(name: "attrs", type: .mixed, collection: .map),
                    Property(name: "scores", type: .int, isOptional: true, collection: .list),
                ]),
            ObjectSchema(
                className: "Dog",
                properties: [
                    Property(name: "name", type: .string, isIndexed: true),
                    Property(name: "toys", type: .object, objectClassName: "Toy", collection: .map),
                    Property(
                        name: "owners", type: .linkingObjects, objectClassName: "Person", linkOriginPropertyName: "dogs"
                    ),
                ]),
            ObjectSchema(className: "Toy", properties: [Property(name: "name", type: .string, isPrimaryKey: true)]),
            ObjectSchema(
                className: "Address",
                properties: [
                    Property(name: "street", type: .string), Property(name: "geo", type: .double, collection: .list),
                ], isEmbedded: true),
        ])
    }

    init() throws {
        realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "fuzz-json", schema: Self.schema))
        classes = Self.schema.objectSchemas.filter { !$0.isEmbedded }.map(\.className)
        // Seeds: exports of realms holding every kind of value.
        let source = try Realm(
            configuration: Realm.Configuration(inMemoryIdentifier: "fuzz-json-source", schema: Self.schema))
        try source.write {
            let toy = try source.create("Toy", value: ["name": "ball"])
            let rex = try source.create("Dog", value: ["name": "Rex", "toys": ["fav": .object(toy), "none": nil]])
            let ann = try source.create(
                "Person",
                value: [
                    "_id": .objectId(ObjectId(string: "000000000000000000000001")!), "name": "Ann", "age": 30,
                    "height": 1.75, "ratio": 0.5,
                    "born": .date(Timestamp(seconds: 86_400, nanoseconds: 1)!),
                    "balance": .decimal128(Decimal128(string: "12.50")!),
                    "uid": .uuid(UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962")!),
                    "photo": .data(Data([0, 1, 2, 255])), "active": true,
                    "any": .object(rex), "dogs": [.object(rex)], "address": ["street": "1 Main", "geo": [1.5, -2]],
                    "tags": ["a", "b"],
                    "attrs": ["n": 1, "s": "x", "d": .object(rex), "nil": nil], "scores": [1, nil, 3],
                ])
            _ = try source.create(
                "Person",
                value: [
                    "_id": .objectId(ObjectId(string: "000000000000000000000002")!), "name": "Bob",
                    "friend": .object(ann), "any": 2.5,
                    "balance": .decimal128(Decimal128(string: "-0.001")!),
                ])
        }
        seeds.append(String(decoding: try RealmJSON.export(source), as: UTF8.self))
        try source.write {
            try source.delete(source.objects("Person"))
        }
        seeds.append(String(decoding: try RealmJSON.export(source), as: UTF8.self))
        seeds.append(#"{"format": "realm-host-export-1", "objects": {}}"#)
    }

    /// Structure-aware: parse a seed, change one node of the tree, serialize.
    func generate(_ rng: inout FuzzRandom) -> [UInt8]? {
        guard let seed = seeds.randomElement(using: &rng),
            let tree = try? JSONSerialization.jsonObject(with: Data(seed.utf8), options: [.fragmentsAllowed])
        else { return nil }
        var out = tree
        for _ in 0..<(1 + rng.below(3)) { out = mutateTree(out, &rng, depth: 0) }
        return (try? JSONSerialization.data(withJSONObject: out, options: [.fragmentsAllowed])).map { [UInt8]($0) }
    }

    private func randomJSON(_ rng: inout FuzzRandom, depth: Int) -> Any {
        switch rng.below(depth > 3 ? 8 : 11) {
        case 0: return NSNull()
        case 1: return rng.chance(50)
        case 2: return Int(truncatingIfNeeded: Int64(bitPattern: rng.next()) >> Int64(rng.below(64)))
        case 3: return Double(rng.below(100_000)) / 3 - 1000
        case 4:
            return rng.pick([
                "", "x", "Rex", "ball", "$ref", "2024-01-01T00:00:00Z", "000000000000000000000001",
                "3B241101-E2BB-4255-8CAF-4136C566A962", "AAEC/w==", "1.5", "NaN", "\u{0}",
            ])
        case 5:
            return ["$ref": rng.below(5) - 1, "$class": rng.pick(["Dog", "Person", "Toy", "Address", "Nope"])]
                as [String: Any]
        case 6:
            return [
                rng.pick(["$double", "$float", "$date", "$decimal", "$oid", "$uuid", "$binary", "$nope"]): rng.pick([
                    "1.5", "-0", "1e400", "NaN", "x", "2024-01-01T00:00:00Z", "000000000000000000000001", "AAAA", "",
                ])
            ]
        case 7: return ["$key": rng.below(4)]
        case 8: return (0..<rng.below(4)).map { _ in randomJSON(&rng, depth: depth + 1) }
        default:
            var d = [String: Any]()
            for _ in 0..<rng.below(4) {
                d[
                    rng.pick(["name", "$key", "dogs", "friend", "any", "street", "tags", "attrs", "x", "Dog", "Person"])
                ] = randomJSON(&rng, depth: depth + 1)
            }
            return d
        }
    }

    private func mutateTree(_ node: Any, _ rng: inout FuzzRandom, depth: Int) -> Any {
        if depth > 0 && rng.chance(25) { return randomJSON(&rng, depth: depth) }
        if var d = node as? [String: Any], !d.isEmpty {
            let key = d.keys.sorted()[rng.below(d.count)]
            switch rng.below(6) {
            case 0: d[key] = nil
            case 1: d[key + (rng.chance(50) ? "x" : "")] = randomJSON(&rng, depth: depth + 1)
            default: d[key] = mutateTree(d[key]!, &rng, depth: depth + 1)
            }
            return d
        }
        if var a = node as? [Any], !a.isEmpty {
            let i = rng.below(a.count)
            switch rng.below(5) {
            case 0: a.remove(at: i)
            case 1: a.append(a[i])
            default: a[i] = mutateTree(a[i], &rng, depth: depth + 1)
            }
            return a
        }
        return randomJSON(&rng, depth: depth)
    }

    func run(_ input: [UInt8]) -> Outcome {
        var outcome = Outcome.rejected
        do {
            try RealmJSON.load(Data(input), into: realm)
            outcome = .accepted
        } catch {
            if !isCleanError(error) {
                return .failure("import: \(describe(error))\ninput: \(text(input).debugDescription)")
            }
        }
        do {
            if case .accepted = outcome {
                try realm.write { try realm.deleteAll() }
            } else {
                // All or nothing: a refused import leaves the realm empty.
                for className in classes where try realm.objects(className).countObjects() > 0 {
                    let leftover = try realm.objects(className).countObjects()
                    try realm.write { try realm.deleteAll() }
                    return .failure(
                        "a refused import left \(leftover) \(className) objects\ninput: \(text(input).debugDescription)"
                    )
                }
            }
        } catch {
            return .failure("resetting the realm: \(describe(error))")
        }
        return outcome
    }
}
