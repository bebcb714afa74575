import Foundation

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
            for p in objectSchema.persistedProperties where (p.type == .object && p.objectClassName == className) || p.type == .mixed {
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
        // Embedded objects die with their owner.
        for p in info.objectSchema.persistedProperties where p.type == .object {
            guard let target = p.objectClassName, let targetInfo = classInfos[target], targetInfo.objectSchema.isEmbedded else { continue }
            if p.isCollection {
                for case .object(let child) in try RealmCollectionStorage(realm: realm, ownerInfo: info, ownerKey: key, property: p).allValues() {
                    if let childKey = child.objectKey { try deleteObject(targetInfo, key: childKey) }
                }
            } else if let i = rowIndex(info, p), case .integer(let childKey) = row[i] {
                try deleteObject(targetInfo, key: childKey)
            }
        }
        for p in info.objectSchema.persistedProperties where p.isCollection {
            try connection.run("DELETE FROM \(info.quotedStorage(p)) WHERE owner = ?", [keyValue])
        }
        // Links to it become nil; collections drop it.
        let reference = SQLiteValue.text("\(info.className):\(key)")
        for link in incomingLinks(to: info.className) {
            let place = link.info.quotedStorage(link.property)
            let p = link.property
            let (match, bind): (String, SQLiteValue) = p.type == .mixed
                ? ("\(p.isCollection ? "value__t" : link.info.quotedTypeTag(p)) = \(MixedTag.object.rawValue) AND \(p.isCollection ? "value" : place) = ?", reference)
                : ("\(p.isCollection ? "value" : place) = ?", keyValue)
            if p.isCollection {
                var owners = [Int64]()
                try connection.forEachRow("SELECT DISTINCT owner FROM \(place) WHERE \(match)", [bind], cache: false) { owners.append($0.int64(at: 0)) }
                guard !owners.isEmpty else { continue }
                if p.collection == .map {
                    try connection.run("UPDATE \(place) SET value = NULL\(p.type == .mixed ? ", value__t = 0" : "") WHERE \(match)", [bind])
                } else {
                    try connection.run("DELETE FROM \(place) WHERE \(match)", [bind])
                }
                for owner in owners { recordModification(link.info, key: owner, property: p.name, oldValue: nil) }
            } else {
                var owners = [Int64]()
                try connection.forEachRow("SELECT \"_key\" FROM \(link.info.quotedTable) WHERE \(match)", [bind], cache: false) { owners.append($0.int64(at: 0)) }
                guard !owners.isEmpty else { continue }
                let tagReset = p.type == .mixed ? ", \(link.info.quotedTypeTag(p)) = 0" : ""
                try connection.run("UPDATE \(link.info.quotedTable) SET \(place) = NULL\(tagReset) WHERE \(match)", [bind])
                for owner in owners { recordModification(link.info, key: owner, property: p.name, oldValue: nil) }
            }
        }
        try connection.run("DELETE FROM \(info.quotedTable) WHERE \"_key\" = ?", [keyValue])
        changeTracker.recordDeletion(info.className, key)
    }

    /// Deletes every object of a class and its collections: no cascades, every class goes.
    func deleteAllRows(_ info: ClassInfo) throws {
        try connection.forEachRow("SELECT \"_key\" FROM \(info.quotedTable)", cache: false) {
            changeTracker.recordDeletion(info.className, $0.int64(at: 0))
        }
        try connection.execute("DELETE FROM \(info.quotedTable)")
        for p in info.objectSchema.persistedProperties where p.isCollection {
            try connection.execute("DELETE FROM \(info.quotedStorage(p))")
        }
    }
}
