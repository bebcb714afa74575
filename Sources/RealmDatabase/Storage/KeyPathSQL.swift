import Foundation

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
        var current = info
        var alias = "t0"
        var hops = [Hop]()
        for (i, name) in parts.enumerated() {
            guard let p = current.objectSchema[name], p.isPersisted else {
                throw RealmError(
                    .invalidProperty,
                    "No property '\(name)' found on object type '\(current.className)' "
                        + "specified in '\(clause)' clause")
            }
            let described = "Cannot \(clause) on key path '\(keyPath)': property '\(current.className).\(name)'"
            guard p.collection == .none else {
                throw RealmError(.invalidProperty, "\(described) is a collection.")
            }
            let column = "\(alias).\(current.quotedStorage(p))"
            if i == parts.count - 1 {
                guard p.type != .object else {
                    throw RealmError(.invalidProperty, "\(described) is a link.")
                }
                // Decimals are stored as ordered bytes (`Decimal128.storedBytes`): the column sorts as is.
                return nest(column, in: hops)
            }
            guard p.type == .object, let target = p.objectClassName else {
                throw RealmError(.invalidProperty, "\(described) is not a link.")
            }
            let next = try realm.classInfo(target)
            let nextAlias = "k\(i + 1)"
            hops.append(Hop(table: next.quotedTable, alias: nextAlias, linkColumn: column))
            current = next
            alias = nextAlias
        }
        throw RealmError(.invalidProperty, "Empty key path in '\(clause)' clause")
    }

    /// `value` read from the last hop's row, as seen from the first: one scalar subquery per hop,
    /// the last hop innermost.
    private static func nest(_ value: String, in hops: [Hop]) -> String {
        hops.reversed().reduce(value) { inner, hop in
            "(SELECT \(inner) FROM \(hop.table) AS \(hop.alias) WHERE \(hop.alias).\"_key\" = \(hop.linkColumn))"
        }
    }
}
