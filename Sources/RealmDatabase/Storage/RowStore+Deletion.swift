import Foundation
import RealmValues

/// A place that can hold a link to objects of some class: a to-one column or a collection table.
struct IncomingLink {
    let info: ClassInfo
    let property: Property
}

extension RowStore {
    /// The places linking to objects of a class (computed once per schema).
    func incomingLinks(to className: String) -> [IncomingLink] {
        if let cached = incomingLinksCache[className] { return cached }
        var links = [IncomingLink]()
        for objectSchema in realm.schema.objectSchemas {
            guard let info = classInfos[objectSchema.className] else { continue }
            for p in objectSchema.persistedProperties
            where (p.type == .object && p.objectClassName == className) || p.type == .mixed {
                links.append(IncomingLink(info: info, property: p))
            }
        }
        incomingLinksCache[className] = links
        return links
    }

    /// Deletes one stored object and everything its deletion implies. Callers check the write.
    func deleteObject(_ info: ClassInfo, key: Int64) throws {
        guard let row = try fetchRow(info, key: key) else { return }
        let keyValue = SQLiteValue.integer(key)
        try deleteEmbeddedChildren(info, key: key, row: row)
        for p in info.objectSchema.persistedProperties where p.isCollection {
            try connection.run("DELETE FROM \(info.quotedStorage(p)) WHERE owner = ?", [keyValue])
        }
        // Links to it become nil; collections drop it.
        for link in incomingLinks(to: info.className) {
            try unlink(link, match: linkMatch(link, toObject: key, of: info.className))
        }
        try connection.run("DELETE FROM \(info.quotedTable) WHERE \"_key\" = ?", [keyValue])
        changeTracker.recordDeletion(
            info.className, key, primaryKey: feedsCommitRecorder ? storedPrimaryKey(info, row: row) : nil)
    }

    /// Embedded objects die with their owner.
    private func deleteEmbeddedChildren(_ info: ClassInfo, key: Int64, row: [SQLiteValue]) throws {
        for p in info.objectSchema.persistedProperties where p.type == .object {
            guard let target = p.objectClassName, let targetInfo = classInfos[target],
                targetInfo.objectSchema.isEmbedded
            else { continue }
            if p.isCollection {
                let children = try RealmCollectionStorage(realm: realm, ownerInfo: info, ownerKey: key, property: p)
                    .allValues()
                for case .object(let child) in children {
                    if let childKey = child.objectKey { try deleteObject(targetInfo, key: childKey) }
                }
            } else if let i = rowIndex(info, p), case .integer(let childKey) = row[i] {
                try deleteObject(targetInfo, key: childKey)
            }
        }
    }

    /// The condition (with its one binding) on `link`'s place that holds a link to the object `key`
    /// of `className`: its key in a link column, `Class:key` under the object tag in a mixed one.
    func linkMatch(_ link: IncomingLink, toObject key: Int64, of className: String) -> (
        sql: String, binding: SQLiteValue
    ) {
        let p = link.property
        let valueColumn = p.isCollection ? "value" : link.info.quotedStorage(p)
        guard p.type == .mixed else { return ("\(valueColumn) = ?", .integer(key)) }
        let tagColumn = p.isCollection ? "value__t" : link.info.quotedTypeTag(p)
        return ("\(tagColumn) = \(MixedTag.object.rawValue) AND \(valueColumn) = ?", .text("\(className):\(key)"))
    }

    /// Removes the links of one place to a deleted object (those `match` finds): a to-one link or
    /// a map value becomes nil, a list or set drops it. Each owner that held one is modified once.
    private func unlink(_ link: IncomingLink, match condition: (sql: String, binding: SQLiteValue)) throws {
        let place = link.info.quotedStorage(link.property)
        let p = link.property
        let (match, bind) = condition
        var owners = [Int64]()
        let ownersSQL =
            p.isCollection
            ? "SELECT DISTINCT owner FROM \(place) WHERE \(match)"
            : "SELECT \"_key\" FROM \(link.info.quotedTable) WHERE \(match)"
        try connection.forEachRow(ownersSQL, [bind], cache: false) { owners.append($0.int64(at: 0)) }
        guard !owners.isEmpty else { return }
        if feedsCommitRecorder && (p.collection == .set || p.collection == .map) {
            try captureUnlinking(link, match: condition)
        }
        if !p.isCollection {
            let tagReset = p.type == .mixed ? ", \(link.info.quotedTypeTag(p)) = 0" : ""
            try connection.run("UPDATE \(link.info.quotedTable) SET \(place) = NULL\(tagReset) WHERE \(match)", [bind])
        } else if p.collection == .map {
            let tagReset = p.type == .mixed ? ", value__t = 0" : ""
            try connection.run("UPDATE \(place) SET value = NULL\(tagReset) WHERE \(match)", [bind])
        } else {
            try connection.run("DELETE FROM \(place) WHERE \(match)", [bind])
        }
        for owner in owners { recordModification(link.info, key: owner, property: p.name) }
    }

    /// For a commit recorder: each set element or map value a deleted object's unlinking removes
    /// or nulls (`CollectionEdits`), as stored before.
    private func captureUnlinking(_ link: IncomingLink, match condition: (sql: String, binding: SQLiteValue)) throws {
        let p = link.property
        let isMap = p.collection == .map
        let valueColumns = p.type == .mixed ? "value, value__t" : "value"
        let sql =
            "SELECT owner\(isMap ? ", key" : ""), \(valueColumns) FROM \(link.info.quotedStorage(p)) "
            + "WHERE \(condition.sql)"
        for row in try connection.rows(sql, [condition.binding]) {
            guard case .integer(let owner)? = row.first else { continue }
            let touch: CollectionEdit.Touch
            if isMap {
                guard row.count > 1, case .text(let key) = row[1] else { continue }
                touch = .mapKey(key, before: StoredElement(Array(row.dropFirst(2))))
            } else {
                touch = .setElement(StoredElement(Array(row.dropFirst())), wasPresent: true)
            }
            changeTracker.recordEdit(
                CollectionEdit(className: link.info.className, key: owner, property: p.name, touch: touch))
        }
    }

    /// The stored primary key of a row about to go, for a commit recorder to name the deleted object.
    private func storedPrimaryKey(_ info: ClassInfo, row: [SQLiteValue]) -> SQLiteValue? {
        guard let pk = info.primaryKeyProperty, let i = rowIndex(info, pk), i < row.count else { return nil }
        return row[i]
    }

    /// Deletes every object of a class and its collections: no cascades, every class goes.
    func deleteAllRows(_ info: ClassInfo) throws {
        if feedsCommitRecorder, let pk = info.primaryKeyProperty {
            let sql = "SELECT \"_key\", \(info.quotedStorage(pk)) FROM \(info.quotedTable)"
            try connection.forEachRow(sql, cache: false) {
                changeTracker.recordDeletion(info.className, $0.int64(at: 0), primaryKey: $0.value(at: 1))
            }
        } else {
            try connection.forEachRow("SELECT \"_key\" FROM \(info.quotedTable)", cache: false) {
                changeTracker.recordDeletion(info.className, $0.int64(at: 0))
            }
        }
        try connection.execute("DELETE FROM \(info.quotedTable)")
        for p in info.objectSchema.persistedProperties where p.isCollection {
            try connection.execute("DELETE FROM \(info.quotedStorage(p))")
        }
    }
}
