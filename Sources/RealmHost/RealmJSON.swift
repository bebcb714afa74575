import Foundation
import RealmDatabase

/// A JSON dump of a realm that loads back exactly (`realm-host export` / `import`).
///
/// ```json
/// { "format": "realm-host-export-1", "schemaVersion": 2, "schema": {…},
///   "objects": { "Dog": [ { "$key": 1, "name": "Rex", "weight": 30, "favoriteToy": { "$ref": 4 } } ] } }
/// ```
/// Values are written by `RealmValueJSON` in its exact style (see there for the tagged types);
/// objects list their properties in schema order, classes are sorted by name.
public enum RealmJSON {
    public static let format = "realm-host-export-1"

    public static func export(_ realm: Realm) throws -> Data {
        var classes = [JSONValue.Field]()
        let objectSchemas = realm.schema.objectSchemas.filter { !$0.isEmbedded }.sorted { $0.className < $1.className }
        for objectSchema in objectSchemas {
            var rows = [JSONValue]()
            try realm.objects(objectSchema.className).forEach {
                rows.append(try RealmValueJSON.encode(object: $0, style: .exact, withKey: true))
            }
            classes.append(JSONValue.Field(objectSchema.className, .array(rows)))
        }
        let schema = try JSONValue.parse(JSONEncoder().encode(realm.schema))
        let document = JSONValue.object([
            JSONValue.Field("format", .string(format)),
            JSONValue.Field("objects", .object(classes)),
            JSONValue.Field("schema", schema),
            JSONValue.Field("schemaVersion", .int(Int64(clamping: realm.schemaVersion))),
        ])
        return Data((document.text(.indented) + "\n").utf8)
    }

    /// Loads a dump into an empty realm, in one write transaction: all of it or none of it.
    /// Object keys are renumbered; links follow.
    public static func load(_ data: Data, into realm: Realm) throws {
        do {
            let classes = try checkedClasses(try JSONValue.parse(data), realm: realm)
            try realm.write {
                let (links, created) = try createObjects(classes, in: realm)
                try setLinks(created, links: links, schema: realm.schema)
            }
        } catch let error as RealmJSONError {
            let place = error.path.isEmpty ? ": " : " at '\(error.path)': "
            throw HostError.io("Invalid export file" + place + error.message)
        }
    }

    /// The document's classes and rows, once the format is right, every class is in the
    /// realm's schema and the realm has no objects of them.
    private static func checkedClasses(_ document: JSONValue, realm: Realm) throws -> [(ObjectSchema, [JSONValue])] {
        guard case .object = document else { throw RealmJSONError(path: "", "not a JSON object") }
        guard document[field: "format"] == .string(format) else {
            throw RealmJSONError(path: "format", "'format' must be \"\(format)\"")
        }
        guard case .object(let fields)? = document[field: "objects"] else {
            throw RealmJSONError(path: "objects", "'objects' must be an object of classes")
        }
        var classes = [(ObjectSchema, [JSONValue])]()
        for field in fields {
            guard let objectSchema = realm.schema[field.name] else {
                throw RealmJSONError(path: "objects", "class '\(field.name)' is not in the realm's schema")
            }
            guard case .array(let rows) = field.value else {
                throw RealmJSONError(path: "objects.\(field.name)", "'objects.\(field.name)' must be an array")
            }
            if try realm.objects(objectSchema.className).countObjects() > 0 {
                throw HostError.io(
                    "Cannot import into a realm that has data: '\(field.name)' has objects. "
                        + "Import needs an empty realm.")
            }
            classes.append((objectSchema, rows))
        }
        return classes.sorted { $0.0.className < $1.0.className }
    }

    /// An object made in pass 1, with its fields, for pass 2 to set its links.
    private struct Created {
        let object: DynamicObject
        let schema: ObjectSchema
        let fields: [JSONValue.Field]
        let path: String
    }

    /// Pass 1: every object with its values but no links; remembers each one's new key.
    private static func createObjects(
        _ classes: [(ObjectSchema, [JSONValue])],
        in realm: Realm
    ) throws -> (RealmValueJSON.Links, [Created]) {
        var links = RealmValueJSON.Links()
        var created = [Created]()
        for (objectSchema, rows) in classes {
            let className = objectSchema.className
            for (i, row) in rows.enumerated() {
                let path = "\(className)[\(i)]"
                guard case .object(let fields) = row else {
                    throw RealmJSONError(path: path, "'objects.\(path)' must be an object")
                }
                let values = try plainValues(fields, objectSchema, schema: realm.schema, at: path)
                let object: DynamicObject
                do {
                    object = try realm.create(className, value: .dictionary(values))
                } catch {
                    throw RealmJSONError(path: path, "\(error)")
                }
                if case .int(let key)? = row[field: "$key"] { links.objects[className, default: [:]][key] = object }
                created.append(Created(object: object, schema: objectSchema, fields: fields, path: path))
            }
        }
        return (links, created)
    }

    /// A row's values that hold no links.
    private static func plainValues(
        _ fields: [JSONValue.Field], _ objectSchema: ObjectSchema, schema: Schema,
        at path: String
    ) throws -> [String: RealmValue] {
        var values = [String: RealmValue]()
        for field in fields where field.name != "$key" {
            guard let p = objectSchema[field.name], p.isPersisted else {
                throw RealmJSONError(path: path, "'\(objectSchema.className).\(field.name)' is not a property")
            }
            if !involvesLinks(p) {
                let place = path + "." + field.name
                values[field.name] = try RealmValueJSON.decode(
                    field.value, as: p, schema: schema,
                    links: RealmValueJSON.Links(), at: place)
            }
        }
        return values
    }

    /// Pass 2: links, now that every object has its new key.
    private static func setLinks(_ created: [Created], links: RealmValueJSON.Links, schema: Schema) throws {
        for item in created {
            for field in item.fields {
                guard let p = item.schema[field.name], p.isPersisted, involvesLinks(p) else { continue }
                let path = item.path + "." + field.name
                let value = try RealmValueJSON.decode(field.value, as: p, schema: schema, links: links, at: path)
                do {
                    try item.object.setValue(value, forKey: p.name)
                } catch {
                    throw RealmJSONError(path: path, "\(error)")
                }
            }
        }
    }

    /// Whether a property's values can hold links (to be set once every object exists).
    private static func involvesLinks(_ p: Property) -> Bool {
        p.type == .object || p.type == .mixed
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
