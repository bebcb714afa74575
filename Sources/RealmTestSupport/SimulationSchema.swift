import RealmDatabase

/// The schema every replica of the simulation and its server share: one class with every kind of
/// field that syncs (links alone and in a list, a set and a map; dates, decimals and mixed values,
/// alone and in a list and a map; an embedded object alone and in a list), its embedded class, and `Entry`, the class the
/// atomicity check writes.
public enum SimulationSchema {
    nonisolated(unsafe) public static let schema = Schema([
        ObjectSchema(
            className: "Item",
            properties: [
                Property(name: "_id", type: .int, isPrimaryKey: true),
                Property(name: "name", type: .string, isOptional: true),
                Property(name: "count", type: .int),
                Property(name: "tags", type: .string, collection: .list),
                Property(name: "labels", type: .string, collection: .set),
                Property(name: "attrs", type: .int, isOptional: true, collection: .map),
                Property(name: "spec", type: .object, objectClassName: "Spec"),
                Property(name: "owner", type: .object, objectClassName: "Item"),
                Property(name: "links", type: .object, objectClassName: "Item", collection: .list),
                Property(name: "peers", type: .object, objectClassName: "Item", collection: .set),
                Property(name: "refs", type: .object, objectClassName: "Item", isOptional: true, collection: .map),
                Property(name: "when", type: .date, isOptional: true),
                Property(name: "amount", type: .decimal128),
                Property(name: "parts", type: .object, objectClassName: "Spec", collection: .list),
                Property(name: "any", type: .mixed, isOptional: true),
                Property(name: "mixes", type: .mixed, isOptional: true, collection: .list),
                Property(name: "named", type: .mixed, isOptional: true, collection: .map),
            ]),
        ObjectSchema(
            className: "Spec",
            properties: [
                Property(name: "color", type: .string, isOptional: true),
                Property(name: "size", type: .int),
            ], isEmbedded: true),
        // One commit's entries all carry the same `group` and `of` (how many the commit made): on
        // every replica, at every moment, a group has all its entries or none.
        ObjectSchema(
            className: "Entry",
            properties: [
                Property(name: "_id", type: .string, isPrimaryKey: true),
                Property(name: "group", type: .string),
                Property(name: "of", type: .int),
            ]),
    ])

    /// The view simulation's schema: the same classes, `Item` and `Entry` each with `author`, a
    /// user's name the workloads write, which `$user` rules compare with.
    nonisolated(unsafe) public static let viewSchema = Schema(
        schema.objectSchemas.map { objectSchema in
            guard syncedClasses.contains(objectSchema.className) else { return objectSchema }
            var withAuthor = objectSchema
            withAuthor.properties.append(Property(name: "author", type: .string))
            return withAuthor
        })

    /// The classes that sync (those with a primary key).
    public static let syncedClasses: Set<String> = ["Item", "Entry"]
}
