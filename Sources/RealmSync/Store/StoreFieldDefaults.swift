import RealmDatabase

/// Per synced class, the default of each single-valued field: what a view query reads for a field
/// never written (the integrator writes them all on creation; a field added to the schema later has
/// none). Every store answers `existingObjects(ofClass:matching:…)` with them.
package enum StoreFieldDefaults {
    package static func of(_ schema: Schema) -> [String: [String: SyncValue]] {
        let rules = SyncSchemaRules(schema: schema)
        var result: [String: [String: SyncValue]] = [:]
        for objectSchema in schema.objectSchemas where !objectSchema.isEmbedded {
            for property in objectSchema.persistedProperties where !property.isCollection {
                result[objectSchema.className, default: [:]][property.name] = rules.defaultValue(of: property)
            }
        }
        return result
    }
}
