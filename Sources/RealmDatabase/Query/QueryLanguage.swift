import Foundation

/// The Realm Query Language compiler. (Interim: TRUEPREDICATE, FALSEPREDICATE and
/// `prop == $N` / `prop == literal` joined by AND; the full grammar replaces this file.)
enum QueryLanguage {
    static func compile(_ query: String, arguments: [RealmValue], objectSchema: ObjectSchema, schema: Schema,
                        keyOf: (DynamicObject) throws -> Int64) throws -> CompiledQuery {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        if trimmed.uppercased() == "TRUEPREDICATE" { return CompiledQuery(predicateSQL: "1", bindings: [], descriptors: []) }
        if trimmed.uppercased() == "FALSEPREDICATE" { return CompiledQuery(predicateSQL: "0", bindings: [], descriptors: []) }
        var parts = [String]()
        var bindings = [SQLiteValue]()
        for clause in trimmed.components(separatedBy: " AND ") {
            let sides = clause.components(separatedBy: "==").map { $0.trimmingCharacters(in: .whitespaces) }
            guard sides.count == 2, let property = objectSchema[sides[0]], !property.isCollection else {
                throw RealmError(.query, "Unsupported query '\(query)'")
            }
            var value: RealmValue
            if sides[1].hasPrefix("$"), let i = Int(sides[1].dropFirst()), i < arguments.count { value = arguments[i] }
            else if sides[1].hasPrefix("'") || sides[1].hasPrefix("\"") { value = .string(String(sides[1].dropFirst().dropLast())) }
            else if let i = Int64(sides[1]) { value = .int(i) }
            else { throw RealmError(.query, "Unsupported query '\(query)'") }
            if case .object(let o) = value { value = .int(try keyOf(o)) }
            let type: PropertyType = property.type == .object ? .int : property.type
            guard let encoded = ValueCoding.encode(value, as: type) else { throw RealmError(.query, "Unsupported query '\(query)'") }
            parts.append("t0.\(StorageLayout.quote(property.name)) IS ?")
            bindings.append(encoded)
        }
        return CompiledQuery(predicateSQL: parts.joined(separator: " AND "), bindings: bindings, descriptors: [])
    }
}

/// SQL functions the query translation relies on, registered on every connection a realm opens.
enum QueryFunctions {
    static func register(on connection: SQLiteConnection) {
        guard let db = connection.handle else { return }
        QueryLanguage.registerFunctions(on: db)
    }
}

extension QueryLanguage {
    /// Registers the SQL functions the compiled queries call (Unicode case folding and the like).
    static func registerFunctions(on db: OpaquePointer) {}
}
