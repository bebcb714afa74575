import Foundation
import RealmValues

extension RowStore {
    /// A value given for an object, as values by property name.
    func valuesByName(_ value: RealmValue, info: ClassInfo) throws -> [String: RealmValue] {
        switch value {
        case .dictionary(let d):
            return d  // `createOrUpdate` checks every name
        case .list(let array):
            let properties = info.objectSchema.properties.filter(\.isPersisted)
            guard array.count <= properties.count else {
                throw RealmError(
                    .invalidValue,
                    "Invalid array input: more values (\(array.count)) than properties (\(properties.count)) "
                        + "for '\(info.className)'."
                )
            }
            var d = [String: RealmValue]()
            for (p, v) in zip(properties, array) { d[p.name] = v }
            return d
        case .object(let o):
            guard o.className == info.className || o.managed == nil else {
                throw RealmError(
                    .invalidValue, "Cannot create a '\(info.className)' from an object of type '\(o.className)'.")
            }
            return try o.dictionaryValue()
        default:
            throw RealmError(
                .invalidValue,
                "Invalid value '\(value)' to initialize an object of type '\(info.className)': "
                    + "expected a dictionary, an array or an object."
            )
        }
    }

    /// The key of the object a link value denotes, adding or creating it as needed.
    func objectKey(for object: DynamicObject, targetClass: String, policy: UpdatePolicy, mode: LinkMode) throws -> Int64
    {
        if let (other, info, key) = object.managed {
            let sameRealm = other === realm || (other.isSameFile(as: realm) && !other.isFrozen && !realm.isFrozen)
            if sameRealm && !info.isReadOnlyView {
                guard info.className == targetClass else {
                    throw RealmError(
                        .invalidValue,
                        "Cannot link an object of type '\(info.className)' where '\(targetClass)' is expected.")
                }
                if object.isInvalidated { throw RealmError.addInvalidated }
                return key
            }
            if mode == .add { throw RealmError.alreadyManaged }
            let node = graphNode(.object(object))
            if let node, let key = graph.keys[node] { return key }
            if object.isInvalidated { throw RealmError.addInvalidated }
            let targetInfo = try classInfo(targetClass)
            return try createOrUpdate(
                targetInfo, values: try object.dictionaryValue(), policy: policy, mode: mode, node: node)
        }
        guard object.className == targetClass else {
            throw RealmError(
                .invalidValue, "Cannot link an object of type '\(object.className)' where '\(targetClass)' is expected."
            )
        }
        let node = ObjectGraph.Node.unmanaged(ObjectIdentifier(object))
        if let key = graph.keys[node] { return key }  // reached again: added once
        let info = try classInfo(targetClass)
        guard case .unmanaged(_, let values) = object.state else { throw RealmError.addInvalidated }
        let key = try createOrUpdate(info, values: values, policy: policy, mode: mode, node: node, object: object)
        if mode == .add || mode == .assign { adopt(object, info: info, key: key) }
        return key
    }

    /// Inserts a new object, or updates the one with the same primary key (per `policy`). Every
    /// name in `values` must be a property of the class: an unknown one fails with an error
    /// naming it, before anything is written. `node` is the object of the graph the values come
    /// from, if any (`object` keeps an unmanaged one alive): its key is recorded as soon as its
    /// row exists, so that a cycle back to it links to it rather than adding it again.
    func createOrUpdate(
        _ info: ClassInfo, values: [String: RealmValue], policy: UpdatePolicy,
        mode: LinkMode, node: ObjectGraph.Node? = nil, object: DynamicObject? = nil
    ) throws -> Int64 {
        if isPlainInsert(info, values: values, policy: policy, node: node) {
            // Nothing to count or forget: the graph is empty at depth 0, and a row that reaches no
            // other object adds nothing to it (see `isPlainInsert`).
            let key = try insertRow(info, values: values, policy: policy, mode: mode, linksWait: false)
            changeTracker.recordInsertion(info.className, key)
            return key
        }
        return try withGraphLevel(info) {
            var values = values
            if let existing = try existingObjectToUpdate(info, values: &values, policy: policy) {
                graphRowWritten(node, key: existing, object: object)
                try update(info, key: existing, values: values, policy: policy, mode: mode)
                return existing
            }
            let linksWait = linksWaitForRow(info, values: values, node: node, mode: mode)
            let key = try insertRow(info, values: values, policy: policy, mode: mode, linksWait: linksWait)
            graphRowWritten(node, key: key, object: object)
            changeTracker.recordInsertion(info.className, key)
            if linksWait { try writeWaitingLinks(info, key: key, values: values, policy: policy, mode: mode) }
            try insertCollections(info, key: key, values: values, policy: policy, mode: mode)
            return key
        }
    }

    /// Whether `createOrUpdate` is the insert of one row and nothing else, outside any graph being
    /// written: no primary key to fill in or look up, no update, and no link, mixed or collection
    /// value that could create (or reach) another object. Such an insert needs no graph level:
    /// with the graph empty and nothing nested, `withGraphLevel` would do nothing but count.
    private func isPlainInsert(
        _ info: ClassInfo, values: [String: RealmValue], policy: UpdatePolicy, node: ObjectGraph.Node?
    ) -> Bool {
        guard policy == .error, node == nil, graphDepth == 0, !info.hasObjectCreatingColumns,
            case .none = info.primaryKeyProperty  // read in place: `== nil` copies the Property
        else { return false }
        return !hasCollectionValues(info, values)
    }

    /// The key of the object an upsert updates: nil when it inserts. Fills in the primary key's
    /// default when the value leaves it out.
    private func existingObjectToUpdate(
        _ info: ClassInfo, values: inout [String: RealmValue],
        policy: UpdatePolicy
    ) throws -> Int64? {
        guard let pk = info.primaryKeyProperty else {
            // Only the object given can be updated: nested objects without a primary key are
            // created (as Realm's create and add with an update policy do).
            if policy != .error && !isMigrating && graphDepth <= 1 {
                throw RealmError(
                    .invalidValue, "'\(info.className)' does not have a primary key and can not be updated")
            }
            return nil
        }
        let pkValue = values[pk.name] ?? defaultValue(pk)
        values[pk.name] = pkValue
        // With `.error` the unique index reports a duplicate (at insert): no lookup per insert.
        // Except for nil, which a unique index lets repeat.
        guard !isMigrating, policy != .error || pkValue.isNull,
            let existing = try existingKey(info, primaryKey: pk, value: pkValue)
        else { return nil }
        if policy == .error { throw ConstraintErrors.primaryKeyExists(info.className, pkValue) }
        return existing
    }

    /// Writes the values given to an existing object (`.modified` skips equal ones).
    private func update(
        _ info: ClassInfo, key: Int64, values: [String: RealmValue], policy: UpdatePolicy, mode: LinkMode
    ) throws {
        for name in values.keys { _ = try info.slot(name) }
        for p in info.objectSchema.properties where p.isPersisted && !p.isPrimaryKey {
            guard let v = values[p.name] else { continue }
            try setProperty(
                info, key: key, property: p, value: v, policy: policy, compare: policy == .modified, mode: mode)
        }
    }

    /// Inserts the object's row: every column bound straight into the prepared INSERT, each value
    /// validated and encoded once, with no row built in between.
    /// 1. Plain values, walking the dictionary (names are found by `slot`, no hashing); a bad name
    ///    or value fails here, before any nested object is created.
    /// 2. The defaults of the plain properties the value leaves out.
    /// 3. Links and mixed values, in property order: encoding one may create objects (a nested
    ///    value), maybe of this very class, which then prepares an INSERT of its own (see
    ///    `insertStatement(for:)`) so the bindings made here stay.
    /// Every parameter is bound each time, so the previous bindings need no clearing.
    /// Never inlined: `createOrUpdate` calls it from two places (its plain-insert fast path and
    /// the general one), and one compiled copy serves both.
    @inline(never)
    private func insertRow(
        _ info: ClassInfo, values: [String: RealmValue], policy: UpdatePolicy,
        mode: LinkMode, linksWait: Bool
    ) throws -> Int64 {
        let statement = try insertStatement(for: info)
        let isShared = statement === info.insertStatement
        if isShared { info.isInsertStatementBusy = true }
        defer { if isShared { info.isInsertStatementBusy = false } }
        try bindPlainValues(info, values: values, to: statement)
        if info.hasObjectCreatingColumns {
            try bindObjectCreatingValues(
                info, values: linksWait ? values.mapValues { mayCreateObjects($0, mode: mode) ? .null : $0 } : values,
                to: statement, policy: policy, mode: mode)
        }
        do {
            while try statement.step() {}
        } catch let error as SQLiteError {
            throw ConstraintErrors.realmError(
                for: error, info: info,
                primaryKeyValue: info.primaryKeyProperty.flatMap { values[$0.name] })
                ?? error
        }
        return connection.lastInsertRowID
    }

    /// The class's cached INSERT, or a fresh one while the cached one is being bound by an insert
    /// of the same class further up the stack (a nested value of its own class).
    private func insertStatement(for info: ClassInfo) throws -> Statement {
        if info.isInsertStatementBusy { return try connection.prepare(info.insertSQL) }
        if let prepared = info.insertStatement {
            prepared.reset(clearingBindings: false)
            return prepared
        }
        let statement = try connection.prepare(info.insertSQL)
        info.insertStatement = statement
        return statement
    }

    /// Steps 1 and 2 of `insertRow`. Parameters are 1-based; row positions 0-based.
    private func bindPlainValues(_ info: ClassInfo, values: [String: RealmValue], to statement: Statement) throws {
        var givenPlainColumns = 0
        for (name, value) in values {
            let slot = try info.slot(name)
            guard let position = slot.position, !slot.encodingMayCreateObjects else { continue }
            givenPlainColumns += 1
            let stored = try encodePlainValue(value, property: slot.property, info: info)
            try statement.bind(stored, at: Int32(position + 1))
        }
        guard givenPlainColumns < info.plainColumnCount else { return }
        for slot in info.rowSlots where !slot.encodingMayCreateObjects && values[slot.property.name] == nil {
            guard let position = slot.position else { continue }
            try statement.bind(
                try encodePlainValue(defaultValue(slot.property), property: slot.property, info: info),
                at: Int32(position + 1))
        }
    }

    /// Step 3 of `insertRow`: links and mixed values (and a mixed value's tag after it). When the
    /// links wait for the row (`linksWaitForRow`), those that may create objects come as nil.
    private func bindObjectCreatingValues(
        _ info: ClassInfo, values: [String: RealmValue], to statement: Statement,
        policy: UpdatePolicy, mode: LinkMode
    ) throws {
        for slot in info.rowSlots where slot.encodingMayCreateObjects {
            guard let position = slot.position else { continue }
            let value = values[slot.property.name] ?? defaultValue(slot.property)
            let (stored, tag) = try encodeForStorage(
                value, property: slot.property, info: info, policy: policy,
                mode: mode)
            try statement.bind(stored, at: Int32(position + 1))
            if slot.type == .mixed { try statement.bind(tag, at: Int32(position + 2)) }
        }
    }

    /// The collections of a new object, after its row.
    private func insertCollections(
        _ info: ClassInfo, key: Int64, values: [String: RealmValue], policy: UpdatePolicy,
        mode: LinkMode
    ) throws {
        for p in info.collectionProperties {
            let v = values[p.name] ?? .null
            if v.isNull { continue }
            var storage = RealmCollectionStorage(realm: realm, ownerInfo: info, ownerKey: key, property: p)
            storage.ownerIsNew = true
            try storage.replaceAll(with: v, policy: policy, mode: mode, recordChange: false)
        }
    }

    /// The value a property takes when none is given: its default, else its type's empty value
    /// (a fresh value for a required objectId or uuid).
    func defaultValue(_ p: Property) -> RealmValue {
        p.isCollection ? .null : p.valueWhenUnset
    }

    /// A value of a non-collection property as stored: the column value and (for mixed) the tag.
    func encodeForStorage(
        _ value: RealmValue, property p: Property, info: ClassInfo, policy: UpdatePolicy, mode: LinkMode
    ) throws -> (SQLiteValue, SQLiteValue) {
        switch p.type {
        case .object:
            guard let target = p.objectClassName else { return (.null, .null) }
            return (try linkKey(value, target: target, policy: policy, mode: mode).map { .integer($0) } ?? .null, .null)
        case .mixed:
            guard
                let (stored, tag) = try ValueCoding.encodeMixed(
                    value,
                    objectKey: { o in
                        (o.className, try objectKey(for: o, targetClass: o.className, policy: policy, mode: mode))
                    })
            else { throw invalidValue(value, for: p, in: info) }
            return (stored, .integer(tag.rawValue))
        default:
            return (try encodePlainValue(value, property: p, info: info), .null)
        }
    }

    /// `encodeForStorage` of a value of a property that is neither a link nor mixed: no object to
    /// create, just the column value. Inlined into the binding loop of every insert.
    @inline(__always)
    func encodePlainValue(_ value: RealmValue, property p: Property, info: ClassInfo) throws -> SQLiteValue {
        if value.isNull && !p.isOptional { throw invalidValue(value, for: p, in: info) }
        guard let stored = ValueCoding.encode(value, as: p.type) else {
            throw invalidValue(value, for: p, in: info)
        }
        return stored
    }

    /// The key for a link value: nil, an object (added, reused or copied), or a nested value to create.
    func linkKey(
        _ value: RealmValue, target: String, policy: UpdatePolicy, mode: LinkMode, holder: EmbeddedHolder = .link
    ) throws -> Int64? {
        let targetInfo = try classInfo(target)
        let embedded = targetInfo.objectSchema.isEmbedded
        switch value {
        case .null:
            return nil
        case .object(let o):
            if embedded { return try embeddedKey(o, info: targetInfo, mode: mode, holder: holder) }
            return try objectKey(for: o, targetClass: target, policy: policy, mode: mode)
        case .dictionary, .list:
            return try createOrUpdate(
                targetInfo, values: try valuesByName(value, info: targetInfo),
                policy: embedded ? .error : policy, mode: mode)
        default:
            throw invalidLink(value, target: target)
        }
    }

    func invalidLink(_ value: RealmValue, target: String) -> RealmError {
        RealmError(.invalidValue, "Invalid value '\(value)' of type '\(value.typeName)' for a link to '\(target)'.")
    }

    /// The key of a new embedded object made from `o`: embedded objects are owned by one parent,
    /// so a managed one of this realm cannot be linked again (Realm's errors); an unmanaged one
    /// given to `add` or an assignment becomes the new object; any other is copied in.
    private func embeddedKey(_ o: DynamicObject, info: ClassInfo, mode: LinkMode, holder: EmbeddedHolder) throws
        -> Int64
    {
        if mode != .copy && isManagedHere(o) { throw holder.existingEmbeddedError }
        let key = try createOrUpdate(info, values: try o.dictionaryValue(), policy: .error, mode: mode)
        if o.managed == nil && mode != .copy { adopt(o, info: info, key: key) }
        return key
    }

    /// `.modified` on an object whose embedded object is replaced by a new value: Realm updates
    /// the embedded object in place (handles to it stay valid). Returns false when `value` is not a
    /// new value (nil, or an object this realm manages).
    private func updateEmbeddedInPlace(
        _ value: RealmValue, previousKey: Int64, targetClass: String, mode: LinkMode
    ) throws -> Bool {
        let info = try classInfo(targetClass)
        let values: [String: RealmValue]
        switch value {
        case .dictionary, .list: values = try valuesByName(value, info: info)
        case .object(let o) where o.managed == nil || graphNode(value) != nil: values = try o.dictionaryValue()
        default: return false
        }
        try updateEmbedded(info, key: previousKey, values: values, from: value, mode: mode)
        return true
    }

    /// Whether `o` is an object of this realm's file that a new link would share (a frozen one is
    /// a copy of the past): an embedded object can have only one parent.
    private func isManagedHere(_ o: DynamicObject) -> Bool {
        guard let (other, _, _) = o.managed else { return false }
        return other === realm || (other.isSameFile(as: realm) && !other.isFrozen)
    }

    /// Writes `values` (read from `value`) into the existing embedded object `key`, under
    /// `.modified`: equal values are not written. An unmanaged object given to `add` or an
    /// assignment becomes that object, as it would have become a new one.
    func updateEmbedded(
        _ info: ClassInfo, key: Int64, values: [String: RealmValue], from value: RealmValue, mode: LinkMode
    ) throws {
        try update(info, key: key, values: values, policy: .modified, mode: mode)
        if case .object(let o) = value, o.managed == nil, mode != .copy { adopt(o, info: info, key: key) }
    }

    /// The values a new element of a list of embedded objects writes into the element it updates
    /// in place (`.modified`). Refused as `embeddedKey` refuses a new element: a value that is no
    /// object, a deleted object, or (except when copying) an object this realm manages. `nil` is
    /// refused by the list itself, which names the property.
    func embeddedElementValues(_ value: RealmValue, info: ClassInfo, mode: LinkMode) throws -> [String: RealmValue] {
        switch value {
        case .dictionary, .list:
            return try valuesByName(value, info: info)
        case .object(let o):
            if mode != .copy && isManagedHere(o) { throw EmbeddedHolder.list.existingEmbeddedError }
            if try o.checkInvalidated() { throw RealmError.addInvalidated }
            return try valuesByName(value, info: info)
        default:
            throw invalidLink(value, target: info.className)
        }
    }

    // MARK: Updating

    /// Writes one property of a stored object. With `compare`, an equal value is not written (nor
    /// reported as a modification): the `.modified` update policy.
    func setProperty(
        _ info: ClassInfo, key: Int64, property p: Property, value: RealmValue, policy: UpdatePolicy, compare: Bool,
        mode: LinkMode = .assign
    ) throws {
        guard p.isPersisted else {
            throw RealmError(
                .invalidProperty, "Property '\(info.className).\(p.name)' is linking objects and cannot be set.")
        }
        if p.isPrimaryKey && !isMigrating {
            let current = try fetchRow(info, key: key).flatMap { row in try? readValue(info, property: p, row: row) }
            if current != value {
                throw RealmError(.primaryKeyChange, "Primary key can't be changed after an object is inserted.")
            }
            return
        }
        if p.isCollection {
            let storage = RealmCollectionStorage(realm: realm, ownerInfo: info, ownerKey: key, property: p)
            if compare, try storage.snapshotValue() == value { return }
            try storage.replaceAll(with: value, policy: policy, mode: mode, recordChange: true)
            return
        }
        let ownsEmbedded =
            p.type == .object && (p.objectClassName.flatMap { classInfos[$0]?.objectSchema.isEmbedded } ?? false)
        let old: RealmValue? =
            (compare || ownsEmbedded)
            ? try fetchRow(info, key: key).flatMap { try readValue(info, property: p, row: $0) } : nil
        if compare, let old, old == value { return }
        if ownsEmbedded, case .object(let previous)? = old, let previousKey = previous.objectKey,
            let targetClass = p.objectClassName
        {
            // Setting the embedded object it already has changes nothing (RealmSwift's
            // `parent.object = child` again).
            if case .object(let o) = value, o.isSameObject(as: previous) { return }
            if policy == .modified,
                try updateEmbeddedInPlace(value, previousKey: previousKey, targetClass: targetClass, mode: mode)
            {
                return
            }
        }
        let (stored, tag) = try encodeForStorage(value, property: p, info: info, policy: policy, mode: mode)
        try writeColumn(info, key: key, property: p, stored: stored, tag: tag)
        recordModification(info, key: key, property: p.name)
        if ownsEmbedded, let targetClass = p.objectClassName, case .object(let previous)? = old,
            let previousKey = previous.objectKey, stored != .integer(previousKey)
        {
            // The embedded object replaced belongs to nobody else: delete it. After the update, so
            // that the owner no longer links to it and its modification is captured once.
            try deleteObject(try classInfo(targetClass), key: previousKey)
        }
    }

    /// Writes one encoded value into its column of a stored row (and a mixed value's type tag),
    /// with the UPDATE prepared once per column.
    func writeColumn(_ info: ClassInfo, key: Int64, property p: Property, stored: SQLiteValue, tag: SQLiteValue)
        throws
    {
        let statement = try updateStatement(info, slot: try info.slotSummary(p.name).index, property: p)
        defer { statement.reset(clearingBindings: false) }
        try statement.bind(stored, at: 1)
        if p.type == .mixed {
            try statement.bind(tag, at: 2)
            try statement.bind(.integer(key), at: 3)
        } else {
            try statement.bind(.integer(key), at: 2)
        }
        while try statement.step() {}
    }

    /// A migration's write of a non-link, non-collection property (`DynamicObject.setValue`'s fast
    /// path): what `setProperty` does for such a property, without loading the row first: the
    /// UPDATE itself tells whether the object exists (no row changed: it was deleted).
    /// Returns false when the property needs the general path.
    func setColumnInMigration(_ info: ClassInfo, key: Int64, name: String, value: RealmValue) throws -> Bool {
        guard isMigrating else { return false }
        let summary = try info.slotSummary(name)
        guard summary.position >= 0, summary.type != .object else { return false }
        let p = info.slot(at: summary.index).property
        guard p.isPersisted else { return false }
        let (stored, tag) = try encodeForStorage(value, property: p, info: info, policy: .all, mode: .assign)
        try writeColumn(info, key: key, property: p, stored: stored, tag: tag)
        if connection.changes == 0 { throw RealmError.invalidated }
        recordModification(info, key: key, property: p.name)
        return true
    }

    private func updateStatement(_ info: ClassInfo, slot: Int, property p: Property) throws -> Statement {
        if let statement = info.updateStatements[slot] { return statement }
        let sets =
            p.type == .mixed
            ? "\(info.quotedStorage(p)) = ?, \(info.quotedTypeTag(p)) = ?" : "\(info.quotedStorage(p)) = ?"
        let statement = try Statement(
            connection: connection, sql: "UPDATE \(info.quotedTable) SET \(sets) WHERE \"_key\" = ?", persistent: true)
        info.updateStatements[slot] = statement
        return statement
    }

    func recordModification(_ info: ClassInfo, key: Int64, property: String) {
        changeTracker.recordModification(info.className, key, property: property)
    }
}

/// Where an embedded object is being linked from: Realm words the refusal of a managed one by it.
enum EmbeddedHolder {
    case link, list, dictionary

    var existingEmbeddedError: RealmError {
        switch self {
        case .link: return RealmError(.invalidValue, "Can't set link to existing managed embedded object")
        case .list: return RealmError(.invalidValue, "Cannot add an existing managed embedded object to a List.")
        case .dictionary:
            return RealmError(.invalidValue, "Cannot add an existing managed embedded object to a Dictionary.")
        }
    }
}
