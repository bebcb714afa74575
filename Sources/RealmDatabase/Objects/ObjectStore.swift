import Foundation

/// What `add` and `create` do when an object with the same primary key exists.
public enum UpdatePolicy: String, Sendable {
    /// Fail with Realm's "existing primary key" error.
    case error
    /// Update the existing object, writing only the values that differ.
    case modified
    /// Update the existing object, writing every value given.
    case all
}

/// How a nested object value is turned into a link.
enum LinkMode {
    /// `add`: unmanaged objects are added (and become managed); objects of another realm are an error.
    case add
    /// Setting a property: unmanaged objects are added (and become managed); objects of another
    /// realm are copied in.
    case assign
    /// `create`: unmanaged objects and objects of another realm are copied in; the objects given
    /// are left as they were (as RealmSwift's `create`).
    case copy
}

extension Realm {
    // MARK: Reading

    func fetchRow(_ info: ClassInfo, key: Int64) throws -> [SQLiteValue]? {
        let statement = try connection.cached("SELECT \(info.selectRowSQL) FROM \(info.quotedTable) AS t0 WHERE t0.\"_key\" = ?")
        try statement.bind([.integer(key)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return (1..<statement.columnCount).map { statement.value(at: $0) }
    }

    /// The position of a property's value (and of a mixed tag after it) in a row from `fetchRow`.
    func rowIndex(_ info: ClassInfo, _ property: Property) -> Int? { (try? info.slot(property.name))?.position }

    func readValue(_ info: ClassInfo, property: Property, row: [SQLiteValue]) throws -> RealmValue {
        guard let i = rowIndex(info, property), i < row.count else {
            throw RealmError(.invalidProperty, "Property '\(property.name)' does not exist on object type '\(info.className)'.")
        }
        return try decodeStored(row[i], tag: property.type == .mixed ? row[i + 1] : nil, property: property)
    }

    /// A stored value as a `RealmValue`, with links resolved to objects.
    func decodeStored(_ stored: SQLiteValue, tag: SQLiteValue?, property: Property) throws -> RealmValue {
        try decodeStored(stored, tag: tag, type: property.type, objectClassName: property.objectClassName)
    }

    func decodeStored(_ stored: SQLiteValue, tag: SQLiteValue?, type: PropertyType, objectClassName: String?) throws -> RealmValue {
        switch type {
        case .object:
            guard case .integer(let key) = stored, let target = objectClassName else { return .null }
            return .object(DynamicObject(realm: self, info: try classInfo(target), key: key))
        case .mixed:
            guard case .integer(let t)? = tag else { return .null }
            let value = ValueCoding.decodeMixed(stored, tag: t)
            if t == MixedTag.object.rawValue, case .string(let ref) = value { return try objectFromMixedReference(ref) }
            return value
        default:
            return ValueCoding.decode(stored, as: type)
        }
    }

    func objectFromMixedReference(_ ref: String) throws -> RealmValue {
        guard let colon = ref.lastIndex(of: ":"), let key = Int64(ref[ref.index(after: colon)...]),
              let info = classInfos[String(ref[..<colon])] else { return .null }
        let object = DynamicObject(realm: self, info: info, key: key)
        return object.isInvalidated ? .null : .object(object)
    }

    /// Every object of a class, as live Results.
    public func objects(_ className: String) throws -> Results {
        let info = try classInfo(className)
        if info.objectSchema.isEmbedded {
            throw RealmError(.invalidClass, "Embedded objects cannot be queried directly: '\(className)' is embedded.")
        }
        return Results(realm: self, info: info, source: .table)
    }

    /// The object of a class with a primary key value; nil when there is none.
    public func object(ofType className: String, forPrimaryKey key: RealmValue) throws -> DynamicObject? {
        let info = try classInfo(className)
        guard let pk = info.objectSchema.primaryKeyProperty else {
            throw RealmError(.invalidClass, "'\(className)' does not have a primary key")
        }
        guard let objectKey = try existingKey(info, primaryKey: pk, value: key) else { return nil }
        return DynamicObject(realm: self, info: info, key: objectKey)
    }

    func existingKey(_ info: ClassInfo, primaryKey pk: Property, value: RealmValue) throws -> Int64? {
        guard let encoded = ValueCoding.encode(value, as: pk.type) else {
            throw invalidValue(value, for: pk, in: info)
        }
        return try connection.scalarInt("SELECT \"_key\" FROM \(info.quotedTable) WHERE \(info.quotedStorage(pk)) IS ?", [encoded])
    }

    func invalidValue(_ value: RealmValue, for property: Property, in info: ClassInfo) -> RealmError {
        RealmError(.invalidValue, "Invalid value '\(value)' of type '\(value.typeName)' for '\(property.typeString)' property '\(info.className).\(property.name)'.")
    }

    // MARK: Adding and creating

    /// Makes an unmanaged object managed by this realm (and the unmanaged objects it links to).
    public func add(_ object: DynamicObject, update: UpdatePolicy = .error) throws {
        try checkWritable()
        _ = try objectKey(for: object, targetClass: object.className, policy: update, mode: .add)
    }

    /// Adds every object of a sequence.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws where S.Element == DynamicObject {
        for object in objects { try add(object, update: update) }
    }

    /// Creates a managed object from a value: a dictionary by property name, an array in property
    /// order, or another object (copied, even from another realm). With `.modified` or `.all` an
    /// object with the same primary key is updated instead; properties missing from the value keep
    /// their values then, and take their defaults on a new object.
    @discardableResult
    public func create(_ className: String, value: RealmValue = [:], update: UpdatePolicy = .error) throws -> DynamicObject {
        try checkWritable()
        let info = try classInfo(className)
        if info.objectSchema.isEmbedded {
            throw RealmError(.invalidClass, "Embedded objects cannot be created directly: '\(className)' is embedded; assign it to a property of its parent.")
        }
        let key = try createOrUpdate(info, values: try valuesByName(value, info: info), policy: update, mode: .copy)
        return DynamicObject(realm: self, info: info, key: key)
    }

    /// A value given for an object, as values by property name.
    func valuesByName(_ value: RealmValue, info: ClassInfo) throws -> [String: RealmValue] {
        switch value {
        case .dictionary(let d):
            return d // `createOrUpdate` checks every name
        case .list(let array):
            let properties = info.objectSchema.properties.filter(\.isPersisted)
            guard array.count <= properties.count else {
                throw RealmError(.invalidValue, "Invalid array input: more values (\(array.count)) than properties (\(properties.count)) for '\(info.className)'.")
            }
            var d = [String: RealmValue]()
            for (p, v) in zip(properties, array) { d[p.name] = v }
            return d
        case .object(let o):
            guard o.className == info.className || o.managed == nil else {
                throw RealmError(.invalidValue, "Cannot create a '\(info.className)' from an object of type '\(o.className)'.")
            }
            return try o.dictionaryValue()
        default:
            throw RealmError(.invalidValue, "Invalid value '\(value)' to initialize an object of type '\(info.className)': expected a dictionary, an array or an object.")
        }
    }

    /// The key of the object a link value denotes, adding or creating it as needed.
    func objectKey(for object: DynamicObject, targetClass: String, policy: UpdatePolicy, mode: LinkMode) throws -> Int64 {
        if let (realm, info, key) = object.managed {
            let sameRealm = realm === self || (realm.isSameFile(as: self) && !realm.isFrozen && !isFrozen)
            if sameRealm && !info.isReadOnlyView {
                guard info.className == targetClass else {
                    throw RealmError(.invalidValue, "Cannot link an object of type '\(info.className)' where '\(targetClass)' is expected.")
                }
                if object.isInvalidated { throw RealmError.addInvalidated }
                return key
            }
            if mode == .add { throw RealmError.alreadyManaged }
            if object.isInvalidated { throw RealmError.addInvalidated }
            let targetInfo = try classInfo(targetClass)
            return try createOrUpdate(targetInfo, values: try object.dictionaryValue(), policy: policy, mode: mode)
        }
        guard object.className == targetClass else {
            throw RealmError(.invalidValue, "Cannot link an object of type '\(object.className)' where '\(targetClass)' is expected.")
        }
        let info = try classInfo(targetClass)
        guard case .unmanaged(_, let values) = object.state else { throw RealmError.addInvalidated }
        let key = try createOrUpdate(info, values: values, policy: policy, mode: mode)
        if mode == .add || (mode == .assign && !info.objectSchema.isEmbedded) {
            object.state = .managed(realm: self, info: info, key: key)
        }
        return key
    }

    /// Inserts a new object, or updates the one with the same primary key (per `policy`). Every
    /// name in `values` must be a property of the class: an unknown one fails with an error
    /// naming it, before anything is written.
    func createOrUpdate(_ info: ClassInfo, values: [String: RealmValue], policy: UpdatePolicy,
                        mode: LinkMode) throws -> Int64 {
        var values = values
        if let existing = try existingObjectToUpdate(info, values: &values, policy: policy) {
            try update(info, key: existing, values: values, policy: policy)
            return existing
        }
        let key = try insertRow(info, values: values, policy: policy, mode: mode)
        changeTracker.recordInsertion(info.className, key)
        try insertCollections(info, key: key, values: values, policy: policy, mode: mode)
        return key
    }

    /// The key of the object an upsert updates: nil when it inserts. Fills in the primary key's
    /// default when the value leaves it out.
    private func existingObjectToUpdate(_ info: ClassInfo, values: inout [String: RealmValue],
                                        policy: UpdatePolicy) throws -> Int64? {
        guard let pk = info.primaryKeyProperty else {
            if policy != .error && !isMigrating {
                throw RealmError(.invalidValue, "'\(info.className)' does not have a primary key and can not be updated")
            }
            return nil
        }
        let pkValue = values[pk.name] ?? defaultValue(pk)
        values[pk.name] = pkValue
        // With `.error` the unique index reports a duplicate (at insert): no lookup per insert.
        // Except for nil, which a unique index lets repeat.
        guard !isMigrating, policy != .error || pkValue.isNull,
              let existing = try existingKey(info, primaryKey: pk, value: pkValue) else { return nil }
        if policy == .error { throw ConstraintErrors.primaryKeyExists(info.className, pkValue) }
        return existing
    }

    /// Writes the values given to an existing object (`.modified` skips equal ones).
    private func update(_ info: ClassInfo, key: Int64, values: [String: RealmValue], policy: UpdatePolicy) throws {
        for name in values.keys { _ = try info.slot(name) }
        for p in info.objectSchema.properties where p.isPersisted && !p.isPrimaryKey {
            guard let v = values[p.name] else { continue }
            try setProperty(info, key: key, property: p, value: v, policy: policy, compare: policy == .modified)
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
    private func insertRow(_ info: ClassInfo, values: [String: RealmValue], policy: UpdatePolicy,
                           mode: LinkMode) throws -> Int64 {
        let statement = try insertStatement(for: info)
        let isShared = statement === info.insertStatement
        if isShared { info.isInsertStatementBusy = true }
        defer { if isShared { info.isInsertStatementBusy = false } }
        try bindPlainValues(info, values: values, to: statement, policy: policy, mode: mode)
        if info.hasObjectCreatingColumns {
            try bindObjectCreatingValues(info, values: values, to: statement, policy: policy, mode: mode)
        }
        do {
            while try statement.step() {}
        } catch let error as SQLiteError {
            throw ConstraintErrors.realmError(for: error, info: info,
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
    private func bindPlainValues(_ info: ClassInfo, values: [String: RealmValue], to statement: Statement,
                                 policy: UpdatePolicy, mode: LinkMode) throws {
        var givenPlainColumns = 0
        for (name, value) in values {
            let slot = try info.slot(name)
            guard let position = slot.position, !slot.encodingMayCreateObjects else { continue }
            givenPlainColumns += 1
            let (stored, _) = try encodeForStorage(value, property: slot.property, info: info, policy: policy, mode: mode)
            try statement.bind(stored, at: Int32(position + 1))
        }
        guard givenPlainColumns < info.plainColumnCount else { return }
        for slot in info.rowSlots where !slot.encodingMayCreateObjects && values[slot.property.name] == nil {
            guard let position = slot.position else { continue }
            let (stored, _) = try encodeForStorage(defaultValue(slot.property), property: slot.property, info: info,
                                                   policy: policy, mode: mode)
            try statement.bind(stored, at: Int32(position + 1))
        }
    }

    /// Step 3 of `insertRow`: links and mixed values (and a mixed value's tag after it).
    private func bindObjectCreatingValues(_ info: ClassInfo, values: [String: RealmValue], to statement: Statement,
                                          policy: UpdatePolicy, mode: LinkMode) throws {
        for slot in info.rowSlots where slot.encodingMayCreateObjects {
            guard let position = slot.position else { continue }
            let value = values[slot.property.name] ?? defaultValue(slot.property)
            let (stored, tag) = try encodeForStorage(value, property: slot.property, info: info, policy: policy,
                                                     mode: mode)
            try statement.bind(stored, at: Int32(position + 1))
            if slot.type == .mixed { try statement.bind(tag, at: Int32(position + 2)) }
        }
    }

    /// The collections of a new object, after its row.
    private func insertCollections(_ info: ClassInfo, key: Int64, values: [String: RealmValue], policy: UpdatePolicy,
                                   mode: LinkMode) throws {
        for p in info.collectionProperties {
            let v = values[p.name] ?? .null
            if v.isNull { continue }
            try RealmCollectionStorage(realm: self, ownerInfo: info, ownerKey: key, property: p)
                .replaceAll(with: v, policy: policy, mode: mode, recordChange: false)
        }
    }

    /// The value a property takes when none is given: its default, else its type's empty value
    /// (a fresh value for a required objectId or uuid).
    func defaultValue(_ p: Property) -> RealmValue {
        if let d = p.defaultValue { return d }
        if p.isOptional || p.isCollection || p.type == .object || p.type == .mixed { return .null }
        switch p.type {
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .data: return .data(Data())
        case .date: return .date(.epoch)
        case .decimal128: return .decimal128(Decimal128(Decimal(0)))
        case .objectId: return .objectId(.generate())
        case .uuid: return .uuid(UUID())
        case .mixed, .object, .linkingObjects: return .null
        }
    }

    /// A value of a non-collection property as stored: the column value and (for mixed) the tag.
    func encodeForStorage(_ value: RealmValue, property p: Property, info: ClassInfo, policy: UpdatePolicy, mode: LinkMode) throws -> (SQLiteValue, SQLiteValue) {
        switch p.type {
        case .object:
            guard let target = p.objectClassName else { return (.null, .null) }
            return (try linkKey(value, target: target, policy: policy, mode: mode).map { .integer($0) } ?? .null, .null)
        case .mixed:
            guard let (stored, tag) = try ValueCoding.encodeMixed(value, objectKey: { o in
                (o.className, try objectKey(for: o, targetClass: o.className, policy: policy, mode: mode))
            }) else { throw invalidValue(value, for: p, in: info) }
            return (stored, .integer(tag.rawValue))
        default:
            if value.isNull && !p.isOptional { throw invalidValue(value, for: p, in: info) }
            guard let stored = ValueCoding.encode(value, as: p.type) else { throw invalidValue(value, for: p, in: info) }
            return (stored, .null)
        }
    }

    /// The key for a link value: nil, an object (added, reused or copied), or a nested value to create.
    func linkKey(_ value: RealmValue, target: String, policy: UpdatePolicy, mode: LinkMode) throws -> Int64? {
        let targetInfo = try classInfo(target)
        let embedded = targetInfo.objectSchema.isEmbedded
        switch value {
        case .null:
            return nil
        case .object(let o):
            if embedded {
                // Embedded objects are owned by one parent: assigning one copies it in.
                let values = try o.dictionaryValue()
                return try createOrUpdate(targetInfo, values: values, policy: .error, mode: mode)
            }
            return try objectKey(for: o, targetClass: target, policy: policy, mode: mode)
        case .dictionary, .list:
            return try createOrUpdate(targetInfo, values: try valuesByName(value, info: targetInfo),
                                      policy: embedded ? .error : policy, mode: mode)
        default:
            throw RealmError(.invalidValue, "Invalid value '\(value)' of type '\(value.typeName)' for a link to '\(target)'.")
        }
    }

    // MARK: Updating

    /// Writes one property of a stored object. With `compare`, an equal value is not written (nor
    /// reported as a modification): the `.modified` update policy.
    func setProperty(_ info: ClassInfo, key: Int64, property p: Property, value: RealmValue, policy: UpdatePolicy, compare: Bool) throws {
        guard p.isPersisted else {
            throw RealmError(.invalidProperty, "Property '\(info.className).\(p.name)' is linking objects and cannot be set.")
        }
        if p.isPrimaryKey && !isMigrating {
            let current = try fetchRow(info, key: key).flatMap { row in try? readValue(info, property: p, row: row) }
            if current != value { throw RealmError(.primaryKeyChange, "Primary key can't be changed after an object is inserted.") }
            return
        }
        if p.isCollection {
            let storage = RealmCollectionStorage(realm: self, ownerInfo: info, ownerKey: key, property: p)
            if compare, try storage.snapshotValue() == value { return }
            try storage.replaceAll(with: value, policy: policy, mode: .assign, recordChange: true)
            return
        }
        let ownsEmbedded = p.type == .object && (p.objectClassName.flatMap { classInfos[$0]?.objectSchema.isEmbedded } ?? false)
        let old: RealmValue? = (compare || ownsEmbedded || notifiers.wantsOldValues(info.className))
            ? try fetchRow(info, key: key).flatMap { try readValue(info, property: p, row: $0) } : nil
        if compare, let old, old == value { return }
        let (stored, tag) = try encodeForStorage(value, property: p, info: info, policy: policy, mode: .assign)
        if p.type == .mixed {
            try connection.run("UPDATE \(info.quotedTable) SET \(info.quotedStorage(p)) = ?, \(info.quotedTypeTag(p)) = ? "
                               + "WHERE \"_key\" = ?", [stored, tag, .integer(key)])
        } else {
            try connection.run("UPDATE \(info.quotedTable) SET \(info.quotedStorage(p)) = ? WHERE \"_key\" = ?",
                               [stored, .integer(key)])
        }
        recordModification(info, key: key, property: p.name, oldValue: old)
        if ownsEmbedded, let targetClass = p.objectClassName, case .object(let previous)? = old,
           let previousKey = previous.objectKey, stored != .integer(previousKey) {
            // The embedded object replaced belongs to nobody else: delete it. After the update, so
            // that the owner no longer links to it and its modification is captured once.
            try deleteObject(try classInfo(targetClass), key: previousKey)
        }
    }

    func recordModification(_ info: ClassInfo, key: Int64, property: String, oldValue: RealmValue?) {
        if let oldValue { notifiers.rememberOldValue(info.className, key, property, oldValue) }
        changeTracker.recordModification(info.className, key, property: property)
    }
}
