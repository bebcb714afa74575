import Foundation
import RealmDatabase

/// A JSON dump of a realm that loads back exactly (`realm-host export` / `import`).
///
/// ```json
/// { "format": "realm-host-export-1", "schemaVersion": 2, "schema": {…},
///   "objects": { "Dog": [ { "$key": 1, "name": "Rex", "weight": 30, "favoriteToy": { "$ref": 4 } } ] } }
/// ```
/// Strings, booleans, null and integers are plain JSON. Every other type is tagged so nothing is
/// lost: `{"$double": "0.1"}`, `{"$float": "…"}`, `{"$date": "2024-01-01T00:00:00.000000001Z"}`,
/// `{"$decimal": "1.50"}`, `{"$oid": "…"}`, `{"$uuid": "…"}`, `{"$binary": "<base64>"}`; links
/// are `{"$ref": key}` (a mixed link adds `"$class"`); embedded objects are written inline; lists
/// and sets are arrays, maps are objects.
public enum RealmJSON {
    public static let format = "realm-host-export-1"

    public static func export(_ realm: Realm) throws -> Data {
        var objects = [String: Any]()
        for objectSchema in realm.schema.objectSchemas where !objectSchema.isEmbedded {
            var rows = [Any]()
            try realm.objects(objectSchema.className).forEach { rows.append(try encodeObject($0, objectSchema, realm: realm, withKey: true)) }
            objects[objectSchema.className] = rows
        }
        let schemaJSON = try JSONSerialization.jsonObject(with: JSONEncoder().encode(realm.schema))
        let document: [String: Any] = ["format": format, "schemaVersion": Int(realm.schemaVersion), "schema": schemaJSON, "objects": objects]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    }

    private static func encodeObject(_ o: DynamicObject, _ schema: ObjectSchema, realm: Realm, withKey: Bool) throws -> [String: Any] {
        var out = [String: Any]()
        if withKey, let key = o.objectKey { out["$key"] = key }
        for p in schema.properties where p.isPersisted {
            let value = try o.value(forKey: p.name)
            switch (p.collection, value) {
            case (.map, .dictionary(let d)):
                var m = [String: Any]()
                for (k, v) in d { m[k] = try encode(v, p, realm: realm) }
                out[p.name] = m
            case (_, .list(let items)):
                out[p.name] = try items.map { try encode($0, p, realm: realm) }
            default:
                out[p.name] = try encode(value, p, realm: realm)
            }
        }
        return out
    }

    private static func encode(_ value: RealmValue, _ p: Property, realm: Realm) throws -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return i
        case .string(let s): return s
        case .double(let d): return ["$double": "\(d)"]
        case .float(let f): return ["$float": "\(f)"]
        case .date(let t): return ["$date": t.description]
        case .decimal128(let d): return ["$decimal": d.description]
        case .objectId(let o): return ["$oid": o.stringValue]
        case .uuid(let u): return ["$uuid": u.uuidString]
        case .data(let d): return ["$binary": d.base64EncodedString()]
        case .object(let o):
            if let schema = o.objectSchema, schema.isEmbedded { return try encodeObject(o, schema, realm: realm, withKey: false) }
            var ref: [String: Any] = ["$ref": o.objectKey ?? 0]
            if p.type == .mixed { ref["$class"] = o.className }
            return ref
        case .list(let items): return try items.map { try encode($0, p, realm: realm) }
        case .dictionary(let d): return try d.mapValues { try encode($0, p, realm: realm) }
        }
    }

    /// Loads a dump into an empty realm, in one write transaction: all of it or none of it.
    /// Object keys are renumbered; links follow.
    public static func load(_ data: Data, into realm: Realm) throws {
        func bad(_ why: String) -> HostError { HostError.io("Invalid export file: \(why)") }
        guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw bad("not a JSON object") }
        guard document["format"] as? String == format else { throw bad("'format' must be \"\(format)\"") }
        guard let objects = document["objects"] as? [String: Any] else { throw bad("'objects' must be an object of classes") }
        for (className, rows) in objects {
            guard let objectSchema = realm.schema[className] else { throw bad("class '\(className)' is not in the realm's schema") }
            guard rows is [Any] else { throw bad("'objects.\(className)' must be an array") }
            if try realm.objects(objectSchema.className).countObjects() > 0 {
                throw HostError.io("Cannot import into a realm that has data: '\(className)' has objects. Import needs an empty realm.")
            }
        }
        try realm.write {
            // Pass 1: every object with its values but no links; remember its new key.
            var keys = [String: [Int64: DynamicObject]]()
            var pending = [(DynamicObject, ObjectSchema, [String: Any])]()
            for (className, rows) in objects.sorted(by: { $0.key < $1.key }) {
                guard let objectSchema = realm.schema[className], let rows = rows as? [Any] else { continue }
                for (i, row) in rows.enumerated() {
                    guard let fields = row as? [String: Any] else { throw bad("'objects.\(className)[\(i)]' must be an object") }
                    var values = [String: RealmValue]()
                    for (name, json) in fields where name != "$key" {
                        guard let p = objectSchema[name], p.isPersisted else { throw bad("'\(className).\(name)' is not a property") }
                        if !involvesLinks(p) { values[name] = try decode(json, p, keys: [:], realm: realm, at: "\(className)[\(i)].\(name)") }
                    }
                    let object = try realm.create(className, value: .dictionary(values))
                    if let key = fields["$key"] as? Int { keys[className, default: [:]][Int64(key)] = object }
                    pending.append((object, objectSchema, fields))
                }
            }
            // Pass 2: links, now that every object has its new key.
            for (object, objectSchema, fields) in pending {
                for p in objectSchema.properties where p.isPersisted && involvesLinks(p) {
                    guard let json = fields[p.name] else { continue }
                    try object.setValue(try decode(json, p, keys: keys, realm: realm, at: "\(objectSchema.className).\(p.name)"), forKey: p.name)
                }
            }
        }
    }

    /// Whether a property's values can hold links (to be set once every object exists).
    private static func involvesLinks(_ p: Property) -> Bool {
        p.type == .object || p.type == .mixed
    }

    private static func decode(_ json: Any, _ p: Property, keys: [String: [Int64: DynamicObject]], realm: Realm, at place: String) throws -> RealmValue {
        func bad(_ why: String) -> HostError { HostError.io("Invalid export file at '\(place)': \(why)") }
        if p.collection != .none, !(json is NSNull) {
            var element = p
            element.collection = .none
            if p.collection == .map {
                guard let d = json as? [String: Any] else { throw bad("a map must be an object") }
                return .dictionary(try d.mapValues { try decode($0, element, keys: keys, realm: realm, at: place) })
            }
            guard let a = json as? [Any] else { throw bad("a list or set must be an array") }
            return .list(try a.map { try decode($0, element, keys: keys, realm: realm, at: place) })
        }
        if json is NSNull { return .null }
        if let tagged = json as? [String: Any] {
            if let key = tagged["$ref"] as? Int {
                let className = (tagged["$class"] as? String) ?? p.objectClassName ?? ""
                guard let object = keys[className]?[Int64(key)] else { throw bad("no \(className) with $key \(key) in the file") }
                return .object(object)
            }
            if tagged.count == 1, let (tag, raw) = tagged.first, let text = raw as? String {
                switch tag {
                case "$double": if let d = Double(text) { return .double(d) }
                case "$float": if let f = Float(text) { return .float(f) }
                case "$date": if let t = Timestamp(iso8601: text) { return .date(t) }
                case "$decimal": if let d = Decimal128(string: text) { return .decimal128(d) }
                case "$oid": if let o = ObjectId(string: text) { return .objectId(o) }
                case "$uuid": if let u = UUID(uuidString: text) { return .uuid(u) }
                case "$binary": if let d = Data(base64Encoded: text) { return .data(d) }
                default: throw bad("unknown tag '\(tag)'")
                }
                throw bad("invalid \(tag) value '\(text)'")
            }
            guard let target = p.objectClassName, let embedded = realm.schema[target], embedded.isEmbedded else {
                throw bad("an object is only valid for an embedded object")
            }
            var values = [String: RealmValue]()
            for (name, v) in tagged {
                guard let ep = embedded[name] else { throw bad("'\(target).\(name)' is not a property") }
                values[name] = try decode(v, ep, keys: keys, realm: realm, at: place + "." + name)
            }
            return .dictionary(values)
        }
        if let s = json as? String { return .string(s) }
        // JSON booleans arrive as a boolean NSNumber, which also reads as 0 or 1.
        if "\(type(of: json))".contains("Boolean"), let b = json as? Bool { return .bool(b) }
        if p.type == .bool, let b = json as? Bool { return .bool(b) }
        if let i = json as? Int { return p.type == .double ? .double(Double(i)) : .int(Int64(i)) }
        if let d = json as? Double { return .double(d) }
        throw bad("unexpected value \(json)")
    }
}

extension TenantHost {
    /// The JSON dump of a user's realm.
    public func exportJSON(user: String) throws -> Data {
        try withTenant(user) { try RealmJSON.export($0.realm) }
    }

    /// Loads a JSON dump into a user's (empty) realm.
    public func importJSON(user: String, data: Data) throws {
        try withTenant(user) { try RealmJSON.load(data, into: $0.realm) }
    }
}
