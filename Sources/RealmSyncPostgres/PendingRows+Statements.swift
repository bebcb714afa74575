import RealmSync

/// The statements that send one level's `PendingRows`: a statement per table and kind, each row an
/// element of the arrays bound to it (`unnest`), sent without waiting (`BlockingPostgresConnection.send`).
/// Deletes go before upserts (`PendingRows`' invariant); a statement never names one row twice,
/// since the rows are keyed by their primary keys, which PostgreSQL's `ON CONFLICT` requires.
extension PostgresSyncStoreTransaction {
    func send(_ rows: PendingRows) throws {
        rowsSent += rows.rowCount
        try sendFieldDeletes(rows.fieldDeletes)
        try sendObjects(rows.objects)
        try sendFields(rows.fields)
        try sendHeld(rows.held)
        try sendHeldLogForgets(rows.heldLogForgets)
        try sendHeldLog(rows.heldLog)
        try sendHistory(rows.history)
        try sendClients(rows.clients)
    }

    private func sendFieldDeletes(_ ranges: [PendingRows.FieldRange]) throws {
        guard !ranges.isEmpty else { return }
        try db.send(
            """
            DELETE FROM fields AS f USING unnest($1::bigint[], $2::bytea[], $3::bytea[]) AS d(object, low, high)
            WHERE f.object = d.object AND f.path >= d.low AND f.path < d.high
            """, [.ints(ranges.map(\.object)), .byteArrays(ranges.map(\.from)), .byteArrays(ranges.map(\.to))],
            "forgetting the fields below \(ranges.count) paths")
    }

    private func sendObjects(_ objects: [Int64: PendingRows.PendingObject]) throws {
        let created = objects.filter(\.value.isNew)
        let changed = objects.filter { !$0.value.isNew }
        // A new object's id was taken from the sequence (`ObjectIDPool`): a plain INSERT, so a row
        // already there (the database restored under a running server) fails the transaction
        // rather than being overwritten.
        if !created.isEmpty {
            try db.send(
                """
                INSERT INTO objects(id, class, pk, live, erased_at, erased_by, creator, created_at)
                OVERRIDING SYSTEM VALUE
                SELECT * FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::boolean[], $5::bigint[], $6::bigint[],
                    $7::text[], $8::bigint[])
                """, objectColumns(created), "creating \(created.count) objects")
        }
        if !changed.isEmpty {
            try db.send(
                """
                UPDATE objects AS o SET live = r.live, erased_at = r.erased_at, erased_by = r.erased_by,
                    creator = r.creator, created_at = r.created_at
                FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::boolean[], $5::bigint[], $6::bigint[],
                    $7::text[], $8::bigint[]) AS r(id, class, pk, live, erased_at, erased_by, creator, created_at)
                WHERE o.id = r.id
                """, objectColumns(changed), "writing \(changed.count) objects")
        }
    }

    private func objectColumns(_ objects: [Int64: PendingRows.PendingObject]) -> [PostgresValue] {
        let rows = Array(objects)
        return [
            .ints(rows.map(\.key)), .texts(rows.map(\.value.ref.className)),
            .byteArrays(rows.map { StoreEncoding.encode($0.value.ref.primaryKey) }),
            .bools(rows.map(\.value.record.exists)), .u64s(rows.map(\.value.record.erasedAt)),
            .u64s(rows.map(\.value.record.erasedBy)), .texts(rows.map(\.value.record.creator)),
            .u64s(rows.map(\.value.record.createdAt)),
        ]
    }

    private func sendFields(_ fields: [Int64: [[UInt8]: StoredField]]) throws {
        guard !fields.isEmpty else { return }
        let rows = fields.flatMap { object, paths in paths.map { (object, $0.key, $0.value) } }
        // A NULL value (an embedded object's marker) cannot be an element of a bound array here:
        // `present` says which values stand.
        try db.send(
            """
            INSERT INTO fields(object, path, value, clock, client, replaced_at, replaced_by)
            SELECT object, path, CASE WHEN present THEN value END, clock, client, replaced_at, replaced_by
            FROM unnest($1::bigint[], $2::bytea[], $3::boolean[], $4::bytea[], $5::bigint[], $6::bigint[],
                $7::bigint[], $8::bigint[]) AS r(object, path, present, value, clock, client, replaced_at, replaced_by)
            ON CONFLICT(object, path) DO UPDATE SET value = excluded.value, clock = excluded.clock,
                client = excluded.client, replaced_at = excluded.replaced_at, replaced_by = excluded.replaced_by
            """,
            [
                .ints(rows.map(\.0)), .byteArrays(rows.map(\.1)), .bools(rows.map { $0.2.value != nil }),
                .byteArrays(rows.map { $0.2.value.map(StoreEncoding.encode) ?? [] }),
                .u64s(rows.map(\.2.time.clock.rawValue)), .u64s(rows.map(\.2.time.clientFileID)),
                .u64s(rows.map(\.2.replacedAt)), .u64s(rows.map(\.2.replacedBy)),
            ], "writing \(rows.count) fields")
    }

    private func sendHeld(_ held: [PendingRows.HeldKey: Bool]) throws {
        let gone = held.filter { !$0.value }.map(\.key)
        let kept = held.filter(\.value).map(\.key)
        try sendDeletes(from: "held", gone, "recording \(gone.count) objects no longer held")
        if !kept.isEmpty {
            try db.send(
                "INSERT INTO held(file_id, object) SELECT * FROM unnest($1::bigint[], $2::bigint[]) ON CONFLICT DO NOTHING",
                [.u64s(kept.map(\.fileID)), .ints(kept.map(\.object))], "recording \(kept.count) objects held")
        }
    }

    /// Deletes the rows of `table` (held or held_log) of each (file, object) of `keys`.
    private func sendDeletes(from table: String, _ keys: [PendingRows.HeldKey], _ operation: String) throws {
        guard !keys.isEmpty else { return }
        try db.send(
            """
            DELETE FROM \(table) AS t USING unnest($1::bigint[], $2::bigint[]) AS d(file_id, object)
            WHERE t.file_id = d.file_id AND t.object = d.object
            """, [.u64s(keys.map(\.fileID)), .ints(keys.map(\.object))], operation)
    }

    private func sendHeldLogForgets(_ forgets: [PendingRows.HeldLogForget]) throws {
        var objects: [PendingRows.HeldKey] = []
        var before: [(fileID: UInt64, serverVersion: UInt64)] = []
        for forget in forgets {
            switch forget {
            case .object(let key): objects.append(key)
            case .before(let fileID, let version): before.append((fileID, version))
            }
        }
        try sendDeletes(from: "held_log", objects, "forgetting the held log of \(objects.count) objects")
        if !before.isEmpty {
            try db.send(
                """
                DELETE FROM held_log AS l USING unnest($1::bigint[], $2::bigint[]) AS d(file_id, server_version)
                WHERE l.file_id = d.file_id AND l.server_version < d.server_version
                """, [.u64s(before.map(\.fileID)), .u64s(before.map(\.serverVersion))],
                "forgetting the held log of \(before.count) files")
        }
    }

    private func sendHeldLog(_ entries: [PendingRows.HeldLogEntry]) throws {
        guard !entries.isEmpty else { return }
        // In the order given: the log's sequence numbers are its order.
        try db.send(
            """
            INSERT INTO held_log(file_id, object, server_version, query_version, held)
            SELECT file_id, object, server_version, query_version, held
            FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::boolean[])
                WITH ORDINALITY AS e(file_id, object, server_version, query_version, held, n)
            ORDER BY n
            """,
            [
                .u64s(entries.map(\.key.fileID)), .ints(entries.map(\.key.object)),
                .u64s(entries.map(\.position.serverVersion)), .ints(entries.map(\.position.queryVersion)),
                .bools(entries.map(\.held)),
            ], "logging \(entries.count) changes to what replicas hold")
    }

    private func sendHistory(_ records: [HistoryRecord]) throws {
        guard let first = records.first, let last = records.last else { return }
        let originals = records.map(\.original)
        try db.send(
            """
            INSERT INTO history(server_version, client_file_id, client_version, based_on, clock, original, kept)
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bytea[],
                $7::bytea[])
            """,
            [
                .u64s(records.map(\.serverVersion)), .u64s(originals.map(\.clientFileID)),
                .u64s(originals.map(\.clientVersion)), .u64s(originals.map(\.basedOnServerVersion)),
                .u64s(originals.map(\.clock.rawValue)), .byteArrays(originals.map(StoreEncoding.encode)),
                .byteArrays(records.map { StoreEncoding.encode($0.kept) }),
            ], "appending server versions \(first.serverVersion)…\(last.serverVersion)")
    }

    private func sendClients(_ clients: [UInt64: ClientRecord]) throws {
        guard !clients.isEmpty else { return }
        let records = Array(clients.values)
        try db.send(
            """
            INSERT INTO clients(file_id, salt, last_client_version, user_name)
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[])
            ON CONFLICT(file_id) DO UPDATE SET salt = excluded.salt,
                last_client_version = excluded.last_client_version, user_name = excluded.user_name
            """,
            [
                .u64s(records.map(\.fileID)), .u64s(records.map(\.salt)),
                .u64s(records.map(\.lastIntegratedClientVersion)), .texts(records.map(\.user)),
            ], "writing \(records.count) client files")
    }
}
