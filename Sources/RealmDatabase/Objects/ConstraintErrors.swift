import Foundation

/// Turns SQLite's constraint failures on an object's row into Realm's errors, each named as what
/// it is: only a UNIQUE failure on the primary-key column is "existing primary key".
///
/// SQLite names the failing columns in its message (`UNIQUE constraint failed: class_Dog.name`),
/// for NOT NULL and UNIQUE; a CHECK failure names the constraint (or its expression).
enum ConstraintErrors {
    /// The Realm error for `error` raised writing a row of `info`, or nil when it is not a
    /// constraint failure. `primaryKeyValue` is the value the write gave the primary key.
    static func realmError(for error: SQLiteError, info: ClassInfo, primaryKeyValue: RealmValue?) -> RealmError? {
        guard error.primaryCode == .constraint else { return nil }
        let columns = failingColumns(error.message, table: info.table)
        let className = info.className
        switch error.resultCode {
        case .constraintPrimaryKey:
            return primaryKeyExists(className, primaryKeyValue)
        case .constraintUnique:
            if let pk = info.primaryKeyProperty, columns == [pk.name] {
                return primaryKeyExists(className, primaryKeyValue)
            }
            return RealmError(
                .uniqueConstraint,
                "Cannot write object of type '\(className)': the value of "
                    + "\(propertyList(className, columns)) must be unique (\(error.message)).")
        case .constraintNotNull:
            return RealmError(
                .notNullConstraint,
                "Cannot write object of type '\(className)': "
                    + "\(propertyList(className, columns)) must not be null (\(error.message)).")
        case .constraintCheck:
            return RealmError(
                .checkConstraint,
                "Cannot write object of type '\(className)': a value breaks a check "
                    + "constraint of its table (\(error.message)).")
        default:
            return RealmError(.constraint, "Cannot write object of type '\(className)': \(error.message).")
        }
    }

    static func primaryKeyExists(_ className: String, _ value: RealmValue?) -> RealmError {
        RealmError(
            .primaryKeyExists,
            "Attempting to create an object of type '\(className)' with an existing "
                + "primary key value '\(value ?? .null)'.")
    }

    /// The columns of `table` a message names: "… failed: t.a, t.b" → ["a", "b"].
    static func failingColumns(_ message: String, table: String) -> [String] {
        guard let colon = message.range(of: "failed: ") else { return [] }
        let prefix = table + "."
        return message[colon.upperBound...].split(separator: ",").map {
            let name = $0.trimmingCharacters(in: .whitespaces)
            return name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : name
        }
    }

    private static func propertyList(_ className: String, _ columns: [String]) -> String {
        if columns.isEmpty { return "a property" }
        return columns.map { "'\(className).\($0)'" }.joined(separator: ", ")
    }
}
