import Foundation
import RealmDatabase
import RealmHost

/// The app API's `/v1/objects` verbs on one tenant's realm, in relaxed Extended JSON: each runs
/// inside the user's lane (`TenantLanes`) with the tenant held, and each write is one implicit
/// transaction (Realm's `writeImplicitly`), durable when it returns.
struct ObjectVerbs {
    let realm: Realm
    let className: String

    /// The class's schema, once the class exists.
    func objectSchema() throws -> ObjectSchema {
        guard let schema = realm.schema[className], !schema.isEmbedded else {
            throw ServeError.forbidden("class '\(className)' is not in the realm's schema")
        }
        return schema
    }

    /// A query's page of objects and the total count.
    struct Query: Sendable {
        var whereClause: String?
        var arguments: [JSONValue] = []
        var sort: [RealmDatabase.SortDescriptor] = []
        var limit = 100
        var offset = 0
    }

    func results(_ query: Query) throws -> Results {
        var results = try realm.objects(className)
        if let clause = query.whereClause, !clause.isEmpty {
            let arguments = try query.arguments.enumerated().map { i, json in
                try JSONBody.untypedValue(json, at: "args[\(i)]")
            }
            results = try results.filter(clause, arguments: arguments)
        }
        if !query.sort.isEmpty { results = try results.sorted(by: query.sort) }
        return results
    }

    /// `{"objects": [...], "count": N}`.
    func list(_ query: Query) throws -> JSONValue {
        let snapshot = try results(query).snapshot()
        let end = min(snapshot.count, query.offset + query.limit)
        var objects = [JSONValue]()
        if query.offset < end {
            for i in query.offset..<end {
                guard let object = snapshot[i] else { continue }
                objects.append(try Self.json(object))
            }
        }
        return .object([
            JSONValue.Field("objects", .array(objects)), JSONValue.Field("count", .int(Int64(snapshot.count))),
        ])
    }

    /// Creates an object from a JSON body; its JSON as stored.
    func create(_ body: JSONValue) throws -> JSONValue {
        let schema = try objectSchema()
        let values = try decode(body, schema: schema, requirePrimaryKey: true)
        let object = try realm.writeImplicitly { try realm.create(className, value: values) }
        return try Self.json(object)
    }

    /// Sets the fields of a body on the object with `primaryKey`; its JSON after.
    func update(primaryKey text: String, _ body: JSONValue) throws -> JSONValue {
        let schema = try objectSchema()
        let object = try find(text, schema: schema)
        guard case .dictionary(let values) = try decode(body, schema: schema, requirePrimaryKey: false) else {
            throw ServeError.badRequest("the request body must be a JSON object")
        }
        if let key = schema.primaryKey, let given = values[key], given != (try object.value(forKey: key)) {
            throw ServeError.badRequest(
                "'\(className).\(key)' is the primary key: it cannot be changed", code: "ModifyPrimaryKey")
        }
        try realm.writeImplicitly {
            for name in values.keys.sorted() where name != schema.primaryKey {
                try object.setValue(values[name] ?? .null, forKey: name, mode: .implicit)
            }
        }
        return try Self.json(object)
    }

    /// Deletes the object with `primaryKey`.
    func delete(primaryKey text: String) throws {
        let schema = try objectSchema()
        let object = try find(text, schema: schema)
        try realm.writeImplicitly { try realm.delete(object) }
    }

    /// An object in relaxed Extended JSON (links as primary keys, embedded objects inline).
    static func json(_ object: DynamicObject) throws -> JSONValue {
        try RealmValueJSON.encode(object: object, style: .relaxed)
    }

    // MARK: Steps

    /// The object whose primary key reads as `text` in the URL, or 404.
    private func find(_ text: String, schema: ObjectSchema) throws -> DynamicObject {
        guard let key = schema.primaryKeyProperty else {
            throw ServeError.forbidden("class '\(className)' has no primary key")
        }
        let value = try Self.primaryKey(text, as: key)
        guard let object = try realm.object(ofType: className, forPrimaryKey: value) else {
            throw ServeError.notFound("ObjectNotFound", "no \(className) with primary key '\(text)'")
        }
        return object
    }

    /// A primary key written in a URL path: an int, a string, an ObjectId or a UUID by its text.
    static func primaryKey(_ text: String, as property: Property) throws -> RealmValue {
        let invalid = ServeError.badRequest(
            "'\(text)' is not a valid \(property.type.rawValue) primary key for '\(property.name)'",
            code: "InvalidValue")
        switch property.type {
        case .int: return try Int64(text).map(RealmValue.int) ?? { throw invalid }()
        case .string: return .string(text)
        case .objectId: return try ObjectId(string: text).map(RealmValue.objectId) ?? { throw invalid }()
        case .uuid: return try UUID(uuidString: text).map(RealmValue.uuid) ?? { throw invalid }()
        default: throw invalid
        }
    }

    /// A body's fields as the class's values: every name a property, every value of its type,
    /// links by primary key.
    private func decode(_ body: JSONValue, schema: ObjectSchema, requirePrimaryKey: Bool) throws -> RealmValue {
        guard case .object(let fields) = body else {
            throw ServeError.badRequest("the request body must be a JSON object, found \(body.kindName)")
        }
        var links = RealmValueJSON.Links()
        let realm = self.realm
        links.byPrimaryKey = { target, key in try realm.object(ofType: target, forPrimaryKey: key) }
        var values = [String: RealmValue]()
        for field in fields {
            guard let property = schema[field.name], property.isPersisted else {
                throw ServeError.badRequest(
                    "'\(className).\(field.name)' is not a property of \(className)", code: "InvalidProperty")
            }
            values[field.name] = try RealmValueJSON.decode(
                field.value, as: property, schema: realm.schema, links: links, at: field.name)
        }
        if requirePrimaryKey, let key = schema.primaryKeyProperty, values[key.name] == nil {
            // ObjectIds and UUIDs are made for the client when it gives none, as Realm's `_id` defaults do.
            switch key.type {
            case .objectId: values[key.name] = .objectId(ObjectId.generate())
            case .uuid: values[key.name] = .uuid(UUID())
            default: throw ServeError.badRequest("the body has no '\(key.name)' (the primary key of \(className))")
            }
        }
        return .dictionary(values)
    }
}
