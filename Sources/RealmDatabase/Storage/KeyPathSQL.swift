import Foundation

/// SQL expressions for key paths used by sort and distinct: `age` → `t0."age"`, and through
/// to-one links `owner.name` → a scalar subquery on the linked row (nil when a link is nil).
enum KeyPathSQL {
    static func scalar(_ keyPath: String, in info: ClassInfo, realm: Realm, clause: String) throws -> String {
        let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = info
        var alias = "t0"
        var opened = [String]()
        for (i, name) in parts.enumerated() {
            guard let p = current.objectSchema[name], p.isPersisted else {
                throw RealmError(.invalidProperty, "No property '\(name)' found on object type '\(current.className)' specified in '\(clause)' clause")
            }
            guard p.collection == .none else {
                throw RealmError(.invalidProperty, "Cannot \(clause) on key path '\(keyPath)': property '\(current.className).\(name)' is a collection.")
            }
            let column = "\(alias).\(current.quotedStorage(p))"
            if i == parts.count - 1 {
                guard p.type != .object else {
                    throw RealmError(.invalidProperty, "Cannot \(clause) on key path '\(keyPath)': property '\(current.className).\(name)' is a link.")
                }
                var expression = p.type == .decimal128 ? "CAST(\(column) AS REAL)" : column
                for open in opened.reversed() { expression = open.replacingOccurrences(of: "%EXPR%", with: expression) }
                return expression
            }
            guard p.type == .object, let target = p.objectClassName else {
                throw RealmError(.invalidProperty, "Cannot \(clause) on key path '\(keyPath)': property '\(current.className).\(name)' is not a link.")
            }
            let next = try realm.classInfo(target)
            let nextAlias = "k\(i + 1)"
            opened.append("(SELECT %EXPR% FROM \(next.quotedTable) AS \(nextAlias) WHERE \(nextAlias).\"_key\" = \(column))")
            current = next
            alias = nextAlias
        }
        throw RealmError(.invalidProperty, "Empty key path in '\(clause)' clause")
    }
}
