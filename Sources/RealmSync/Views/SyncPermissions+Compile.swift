import RealmDatabase

extension SyncPermissions {
    /// Compiles the rules against the schema: every class named exists and syncs (has a primary
    /// key, is not embedded), every queryable field exists and can be queried, and every read and
    /// write rule compiles (with `$user`). Throws `SyncError(.badQuery, …)` naming the class and
    /// the rule (`sync.permissions.Dog.read: …`). Classes without rules get no entry.
    public static func compile(_ rules: SyncRules, schema: Schema) throws -> SyncPermissions {
        var queryable: [String: Set<String>] = [:]
        for (className, fields) in rules.queryable.sorted(by: { $0.key < $1.key }) {
            let objectSchema = try syncedClass(className, schema, at: "sync.queryable.\(className)")
            queryable[className] = try queryableFields(fields, of: objectSchema)
        }
        var read: [String: ViewPredicate] = [:]
        var write: [String: ViewPredicate] = [:]
        for (className, classRules) in rules.permissions.sorted(by: { $0.key < $1.key }) {
            let objectSchema = try syncedClass(className, schema, at: "sync.permissions.\(className)")
            let fields = queryable[className] ?? (objectSchema.primaryKey.map { [$0] } ?? [])
            let compile = { (rule: SyncRules.Rule, name: String) throws -> ViewPredicate in
                try compiled(rule, className: className, schema: schema, queryable: fields, at: name)
            }
            read[className] = try compile(classRules.read, "read")
            write[className] = try compile(classRules.write, "write")
        }
        return SyncPermissions(queryable: queryable, read: read, write: write)
    }

    private static func syncedClass(_ name: String, _ schema: Schema, at place: String) throws -> ObjectSchema {
        guard let objectSchema = schema[name] else {
            throw SyncError(.badQuery, "\(place): the schema has no class '\(name)'")
        }
        guard !objectSchema.isEmbedded, objectSchema.primaryKey != nil else {
            throw SyncError(.badQuery, "\(place): class '\(name)' does not sync (it is embedded or has no primary key)")
        }
        return objectSchema
    }

    /// The queryable fields of a class, its primary key included.
    private static func queryableFields(_ fields: [String], of objectSchema: ObjectSchema) throws -> Set<String> {
        let className = objectSchema.className
        var result = Set(objectSchema.primaryKey.map { [$0] } ?? [])
        for name in fields {
            let place = "sync.queryable.\(className)"
            guard let property = objectSchema[name], property.isPersisted else {
                throw SyncError(.badQuery, "\(place): class '\(className)' has no field '\(name)'")
            }
            if let refusal = ViewQueryFieldKind.refusal(of: property) {
                throw SyncError(.badQuery, "\(place): '\(name)' can't be queryable: \(refusal) can't be queried")
            }
            result.insert(name)
        }
        return result
    }

    private static func compiled(
        _ rule: SyncRules.Rule, className: String, schema: Schema, queryable: Set<String>, at name: String
    ) throws -> ViewPredicate {
        switch rule {
        case .always(let value): return .constant(value)
        case .query(let text):
            do {
                return try ViewQueryCompiler.compile(
                    text, className: className, schema: schema, queryable: queryable, allowsUser: true)
            } catch let error as SyncError {
                throw SyncError(.badQuery, "sync.permissions.\(className).\(name): \(error.message)")
            }
        }
    }
}
