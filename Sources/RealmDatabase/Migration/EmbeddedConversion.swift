import Foundation
import RealmValues

/// A class made embedded by a migration, handled as realm-core's `Table::set_embedded` does when
/// backlinks are handled automatically (the SDKs' default): an object no parent links to is
/// deleted, and an object several parents link to is copied so that each parent owns its own.
/// Runs after the block, as Realm's conversion does, in the migration's transaction.
struct EmbeddedConversion {
    let realm: Realm
    let info: ClassInfo

    /// One place holding links to the class: a to-one link or mixed column (rows keyed by `_key`)
    /// or a list or map side table (rows keyed by `_row`, owned by `owner`).
    private struct Place {
        let ownerInfo: ClassInfo
        let property: Property

        var table: String { property.isCollection ? ownerInfo.quotedStorage(property) : ownerInfo.quotedTable }
        var rowColumn: String { property.isCollection ? "\"_row\"" : "\"_key\"" }
        var valueColumn: String { property.isCollection ? "value" : ownerInfo.quotedStorage(property) }
        /// A mixed value's type tag beside `valueColumn`.
        var tagColumn: String { property.isCollection ? "value__t" : ownerInfo.quotedTypeTag(property) }

        func selectSQL(_ index: Int) -> String {
            "SELECT \(index) AS place, \(rowColumn) AS row, \(valueColumn) AS target FROM \(table) "
                + "WHERE \(valueColumn) IS NOT NULL"
        }
    }

    func run() throws {
        let links = realm.rows.incomingLinks(to: info.className).map {
            Place(ownerInfo: $0.info, property: $0.property)
        }
        try refuseMixedLinks(links.filter { $0.property.type == .mixed })
        let places = links.filter { $0.property.type == .object }
        // Every link to an object of the class, one row each.
        let allLinks =
            places.isEmpty
            ? "SELECT NULL AS place, NULL AS row, NULL AS target WHERE 0"
            : places.enumerated().map { $0.element.selectSQL($0.offset) }.joined(separator: " UNION ALL ")
        try deleteOrphans(allLinks)
        try copyShared(allLinks, places: places)
    }

    /// Objects no parent links to: deleted (their own embedded objects with them).
    private func deleteOrphans(_ allLinks: String) throws {
        var orphans = [Int64]()
        try realm.connection.forEachRow(
            "SELECT \"_key\" FROM \(info.quotedTable) WHERE \"_key\" NOT IN (SELECT target FROM (\(allLinks)))",
            cache: false
        ) { orphans.append($0.int64(at: 0)) }
        for key in orphans { try realm.rows.deleteObject(info, key: key) }
    }

    /// Objects several parents link to: the first link keeps the object, every other link gets a
    /// deep copy (embedded objects are copied by value, so its own embedded objects are copied too).
    private func copyShared(_ allLinks: String, places: [Place]) throws {
        var shared = [(place: Int, row: Int64, target: Int64)]()
        try realm.connection.forEachRow(
            "SELECT place, row, target FROM (\(allLinks)) WHERE target IN "
                + "(SELECT target FROM (\(allLinks)) GROUP BY target HAVING count(*) > 1) ORDER BY target, place, row",
            cache: false
        ) { shared.append((Int($0.int64(at: 0)), $0.int64(at: 1), $0.int64(at: 2))) }
        var previousTarget: Int64?
        for link in shared {
            defer { previousTarget = link.target }
            guard link.target == previousTarget, places.indices.contains(link.place) else { continue }
            try relink(places[link.place], row: link.row, to: try copy(link.target))
        }
    }

    private func copy(_ key: Int64) throws -> Int64 {
        let original = DynamicObject(realm: realm, info: info, key: key)
        guard
            let copied = try realm.rows.linkKey(
                .object(original), target: info.className, policy: .error, mode: .copy)
        else {
            throw RealmError(
                .migration, "Cannot convert '\(info.className)' to embedded: an object could not be copied.")
        }
        return copied
    }

    /// Points one link at the copy, and records the change on its owner.
    private func relink(_ place: Place, row: Int64, to copied: Int64) throws {
        try realm.connection.run(
            "UPDATE \(place.table) SET \(place.valueColumn) = ? WHERE \(place.rowColumn) = ?",
            [.integer(copied), .integer(row)])
        var owner = row
        if place.property.isCollection {
            owner =
                try realm.connection.scalarInt(
                    "SELECT owner FROM \(place.table) WHERE \"_row\" = ?", [.integer(row)]) ?? row
        }
        realm.rows.recordModification(place.ownerInfo, key: owner, property: place.property.name)
    }

    /// Realm's error: a mixed value cannot link to an embedded object.
    private func refuseMixedLinks(_ links: [Place]) throws {
        let prefix = SQLiteValue.text(info.className + ":")
        for link in links {
            let sql =
                "SELECT count(*) FROM \(link.table) WHERE \(link.tagColumn) = \(MixedTag.object.rawValue) "
                + "AND substr(\(link.valueColumn), 1, length(?1)) = ?1"
            if try realm.connection.scalarInt(sql, [prefix]) ?? 0 > 0 {
                throw RealmError(
                    .migration,
                    "Cannot convert '\(info.className)' to embedded: there is an incoming link from the Mixed "
                        + "property '\(link.ownerInfo.className).\(link.property.name)', which does not support "
                        + "linking to embedded objects.")
            }
        }
    }
}
