import Foundation
import RealmQuery
import RealmValues

/// SQL expressions for key paths used by sort and distinct: `age` → `t0."age"`, and through
/// to-one links `owner.name` → a scalar subquery on the linked row (nil when a link is nil).
enum KeyPathSQL {
    /// A to-one link followed: the linked row's table and alias, and the link column that holds its key.
    private struct Hop {
        let table: String
        let alias: String
        let linkColumn: String
    }

    static func scalar(_ keyPath: String, in info: ClassInfo, realm: Realm, clause: String) throws -> String {
        let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= QueryParser.maxKeyPathLength else {
            throw RealmError(
                .invalidProperty,
                "Cannot \(clause) on a key path of \(parts.count) properties: "
                    + "at most \(QueryParser.maxKeyPathLength) are followed")
        }
        // Realm refuses an operator anywhere in the path before looking at the properties.
        if keyPath.contains("@") {
            throw RealmError(
                .invalidProperty,
                "Cannot \(clause) on key path '\(keyPath)': KVC collection operators are not supported.")
        }
        var current = info
        var alias = "t0"
        var hops = [Hop]()
        for (i, name) in parts.enumerated() {
            let p = try property(name, of: current, keyPath: keyPath, clause: clause)
            let described = "Cannot \(clause) on key path '\(keyPath)': property '\(current.className).\(name)'"
            let column = "\(alias).\(current.quotedStorage(p))"
            if i == parts.count - 1 {
                guard p.type != .object else {
                    throw RealmError(
                        .invalidProperty, "\(described) of type 'object' cannot be the final property in the key path.")
                }
                // Decimals are stored as ordered bytes (`Decimal128.storedBytes`): the column sorts as is.
                return nest(column, in: hops)
            }
            guard p.type == .object, let target = p.objectClassName else {
                throw RealmError(
                    .invalidProperty,
                    "\(described) of type '\(p.type.rawValue)' may only be the final property in the key path.")
            }
            let next = try realm.classInfo(target)
            let nextAlias = "k\(i + 1)"
            hops.append(Hop(table: next.quotedTable, alias: nextAlias, linkColumn: column))
            current = next
            alias = nextAlias
        }
        throw RealmError(.invalidProperty, "Cannot \(clause) on an empty key path.")
    }

    /// The property `name` of a key path, refused as realm-core refuses it (its wording, from
    /// `KeyPathMapping`/`populate_keypath_mapping`: RealmSwift's `testSortByUnspportedKeyPath`).
    private static func property(_ name: String, of current: ClassInfo, keyPath: String, clause: String) throws
        -> Property
    {
        let prefix = "Cannot \(clause) on key path '\(keyPath)'"
        guard let p = current.objectSchema[name] else {
            throw RealmError(
                .invalidProperty, "\(prefix): property '\(current.className).\(name)' does not exist.")
        }
        let unsupported: String?
        switch p.collection {
        case .list: unsupported = "array"
        case .set: unsupported = "set"
        case .map: unsupported = "dictionary"
        default: unsupported = p.isPersisted ? nil : "linking objects"
        }
        if let unsupported {
            throw RealmError(
                .invalidProperty,
                "\(prefix): property '\(current.className).\(name)' is of unsupported type '\(unsupported)'.")
        }
        return p
    }

    /// A condition that holds when every to-one link of the key path is set: realm-core's
    /// distinct drops an object whose path ends at a null link (RealmSwift's
    /// `testDistinctResultsUsingKeyPaths`, `childIntCol.intCol` over a null `childIntCol`).
    /// Nil for a key path through no link. Call after `scalar` validated the key path.
    static func linksPresent(_ keyPath: String, in info: ClassInfo, realm: Realm) throws -> String? {
        let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return nil }
        var current = info
        var alias = "t0"
        var hops = [Hop]()
        for (i, name) in parts.dropLast().enumerated() {
            let p = try property(name, of: current, keyPath: keyPath, clause: "distinct")
            guard let target = p.objectClassName else { return nil }
            let next = try realm.classInfo(target)
            let nextAlias = "k\(i + 1)"
            hops.append(
                Hop(table: next.quotedTable, alias: nextAlias, linkColumn: "\(alias).\(current.quotedStorage(p))"))
            current = next
            alias = nextAlias
        }
        return "\(nest("1", in: hops)) IS NOT NULL"
    }

    /// `value` read from the last hop's row, as seen from the first: one scalar subquery per hop,
    /// the last hop innermost.
    private static func nest(_ value: String, in hops: [Hop]) -> String {
        hops.reversed().reduce(value) { inner, hop in
            "(SELECT \(inner) FROM \(hop.table) AS \(hop.alias) WHERE \(hop.alias).\"_key\" = \(hop.linkColumn))"
        }
    }
}
