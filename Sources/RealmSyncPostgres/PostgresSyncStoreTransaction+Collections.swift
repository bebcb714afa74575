import RealmSync

/// Lists (every element ever inserted, tombstones kept), their last clear, sets and maps.
extension PostgresSyncStoreTransaction {
    func listElement(_ ref: ObjectRef, field: String, id: ElementID) throws -> StoredListElement? {
        guard let object = try objectID(ref),
            let row = try select(
                StoreStatements.listElement.postgres,
                [.int(object), .text(field), .u64(id.clock.rawValue), .u64(id.clientFileID), .int(Int64(id.index))],
                "reading element \(id) of \(ref).\(field)"
            ).first
        else { return nil }
        return try row.listElement(of: ref, field)
    }

    func listElements(_ ref: ObjectRef, field: String) throws -> [StoredListElement] {
        guard let object = try objectID(ref) else { return [] }
        return try select(
            StoreStatements.listElements.postgres,
            [.int(object), .text(field)], "reading the list \(ref).\(field)"
        ).map { try $0.listElement(of: ref, field) }
    }

    func listClearedAt(_ ref: ObjectRef, field: String) throws -> WriteTime {
        guard let object = try objectID(ref),
            let row = try select(
                StoreStatements.listClear.postgres,
                [.int(object), .text(field)], "reading the last clear of \(ref).\(field)"
            ).first
        else { return .zero }
        return try row.time(0)
    }

    func setEntry(_ ref: ObjectRef, field: String, value: SyncValue) throws -> StoredSetEntry? {
        guard let object = try objectID(ref),
            let row = try select(
                StoreStatements.setEntry.postgres,
                [.int(object), .text(field), .bytes(StoreEncoding.encode(value))],
                "reading a set entry of \(ref).\(field)"
            ).first
        else { return nil }
        return try row.setEntry(value)
    }

    func setEntries(_ ref: ObjectRef, field: String) throws -> [StoredSetEntry] {
        guard let object = try objectID(ref) else { return [] }
        return try select(
            StoreStatements.setEntries.postgres,
            [.int(object), .text(field)], "reading the set \(ref).\(field)"
        ).map { try $0.setEntryWithValue(of: ref, field) }
    }

    func mapEntry(_ ref: ObjectRef, field: String, key: String) throws -> StoredMapEntry? {
        guard let object = try objectID(ref),
            let row = try select(
                StoreStatements.mapEntry.postgres,
                [.int(object), .text(field), .bytes(Array(key.utf8))], "reading \(ref).\(field)[\(key)]"
            ).first
        else { return nil }
        return try row.mapEntry(of: ref, field)
    }

    func mapEntries(_ ref: ObjectRef, field: String) throws -> [StoredMapEntry] {
        guard let object = try objectID(ref) else { return [] }
        return try select(
            StoreStatements.mapEntries.postgres,
            [.int(object), .text(field)], "reading the map \(ref).\(field)"
        ).map { try $0.mapEntry(of: ref, field) }
    }

    func writeListElement(_ ref: ObjectRef, field: String, _ element: StoredListElement) throws {
        let id = element.id
        try execute(
            """
            INSERT INTO list_elements(object, field, \(StoredColumns.element))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
            ON CONFLICT(object, field, clock, client, idx) DO UPDATE SET position = excluded.position,
                position_clock = excluded.position_clock, position_client = excluded.position_client,
                value = excluded.value, value_clock = excluded.value_clock, value_client = excluded.value_client,
                erased = excluded.erased
            """,
            [
                .int(try requireObjectID(ref)), .text(field), .u64(id.clock.rawValue), .u64(id.clientFileID),
                .int(Int64(id.index)), .bytes(element.position.bytes),
            ] + PostgresValue.time(element.positionTime) + [.bytes(StoreEncoding.encode(element.value))]
                + PostgresValue.time(element.valueTime) + [.bool(element.isErased)],
            "writing element \(id) of \(ref).\(field)")
    }

    func writeListClearedAt(_ ref: ObjectRef, field: String, _ time: WriteTime) throws {
        try execute(
            """
            INSERT INTO list_clears(object, field, clock, client) VALUES ($1, $2, $3, $4)
            ON CONFLICT(object, field) DO UPDATE SET clock = excluded.clock, client = excluded.client
            """,
            [.int(try requireObjectID(ref)), .text(field)] + PostgresValue.time(time),
            "writing the last clear of \(ref).\(field)")
    }

    func writeSetEntry(_ ref: ObjectRef, field: String, _ entry: StoredSetEntry) throws {
        try execute(
            """
            INSERT INTO set_entries(object, field, value, present, clock, client) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT(object, field, value) DO UPDATE SET present = excluded.present, clock = excluded.clock,
                client = excluded.client
            """,
            [
                .int(try requireObjectID(ref)), .text(field), .bytes(StoreEncoding.encode(entry.value)),
                .bool(entry.isPresent),
            ] + PostgresValue.time(entry.time), "writing a set entry of \(ref).\(field)")
    }

    func writeMapEntry(_ ref: ObjectRef, field: String, _ entry: StoredMapEntry) throws {
        try execute(
            """
            INSERT INTO map_entries(object, field, key, value, clock, client) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT(object, field, key) DO UPDATE SET value = excluded.value, clock = excluded.clock,
                client = excluded.client
            """,
            [
                .int(try requireObjectID(ref)), .text(field), .bytes(Array(entry.key.utf8)),
                entry.value.map { .bytes(StoreEncoding.encode($0)) } ?? .null,
            ] + PostgresValue.time(entry.time), "writing \(ref).\(field)[\(entry.key)]")
    }
}
