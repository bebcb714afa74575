/// How the store turns values, primary keys and changesets into bytes and back: the sync codec's
/// encodings (`SyncValueCodec`, `ChangesetCodec`), so the store keeps exactly what travels. A primary
/// key is stored as the value it is, so equal keys are equal bytes (the store looks objects up by them).
/// `package`: every store of the package (RealmSyncPostgres too) keeps the same bytes.
package enum StoreEncoding {
    package static func encode(_ value: SyncValue) -> [UInt8] { SyncValueCodec.encode(value) }

    package static func decodeValue(_ bytes: [UInt8]) throws -> SyncValue { try SyncValueCodec.decode(bytes) }

    package static func encode(_ key: SyncPrimaryKey) -> [UInt8] { SyncValueCodec.encode(key.value) }

    package static func decodePrimaryKey(_ bytes: [UInt8]) throws -> SyncPrimaryKey {
        let value = try SyncValueCodec.decode(bytes)
        guard let key = SyncPrimaryKey(value) else {
            throw SyncError(.badChangeset, "The store holds \(value) where a primary key belongs")
        }
        return key
    }

    package static func encode(_ changeset: Changeset) -> [UInt8] { ChangesetCodec.encode(changeset) }

    package static func decodeChangeset(_ bytes: [UInt8]) throws -> Changeset { try ChangesetCodec.decode(bytes) }
}
