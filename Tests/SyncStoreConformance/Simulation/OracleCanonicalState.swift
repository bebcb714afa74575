import Foundation
import RealmDatabase
import RealmSync

/// The oracle's state in `CanonicalState` form: every persisted property of the schema present
/// (unwritten fields at the default a new object gets), collections as values, embedded objects
/// whole with every property of their class.
extension Oracle {
    var canonicalState: CanonicalState {
        var state = CanonicalState()
        for (ref, object) in objects {
            guard let objectSchema = schema[ref.className], !objectSchema.isEmbedded else { continue }
            state.objects[ref] = fields(of: object, ref: ref, schema: objectSchema)
        }
        return state
    }

    private func fields(of object: OracleObject, ref: ObjectRef, schema objectSchema: ObjectSchema) -> [SyncField] {
        objectSchema.persistedProperties.map { p in
            if p.isPrimaryKey { return SyncField(p.name, ref.primaryKey.value) }
            switch p.collection {
            case .list: return SyncField(p.name, .list(object.lists[p.name]?.values ?? []))
            case .set:
                let present = (object.sets[p.name] ?? [:]).filter(\.value.present).map(\.key)
                return SyncField(p.name, .list(present.sorted(by: SyncValue.order)))
            case .map:
                let entries = (object.maps[p.name] ?? [:]).compactMap { key, entry in
                    entry.value.map { SyncField(key, $0) }
                }
                return SyncField(p.name, .map(entries.sorted { $0.name < $1.name }))
            case .none:
                return SyncField(p.name, normalized(object.fields[p.name] ?? defaultValue(p), property: p, depth: 0))
            }
        }.sorted { $0.name < $1.name }
    }

    /// An embedded object with every property of its class (defaults where unwritten), sorted by
    /// name, its sets sorted and maps by key; other values as they are.
    private func normalized(_ value: SyncValue, property p: Property, depth: Int) -> SyncValue {
        switch value {
        case .embedded(let given):
            guard let className = p.objectClassName, let embedded = schema[className], depth < 32 else { return value }
            let byName = Dictionary(given.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
            return .embedded(
                embedded.persistedProperties.map { inner in
                    let v = byName[inner.name]
                    switch inner.collection {
                    case .list: return SyncField(inner.name, v ?? .list([]))
                    case .set:
                        guard case .list(let items) = v else { return SyncField(inner.name, .list([])) }
                        return SyncField(inner.name, .list(items.sorted(by: SyncValue.order)))
                    case .map:
                        guard case .map(let entries) = v else { return SyncField(inner.name, .map([])) }
                        return SyncField(inner.name, .map(entries.sorted { $0.name < $1.name }))
                    case .none:
                        return SyncField(
                            inner.name, normalized(v ?? defaultValue(inner), property: inner, depth: depth + 1))
                    }
                }.sorted { $0.name < $1.name })
        default:
            return value
        }
    }

    /// What a new object holds in a field never written: the property's default, else null for
    /// optionals and links, else the type's zero. A required objectId or uuid gets all-zero bytes:
    /// RealmDatabase gives a fresh random one, which no two replicas could agree on (a synced create
    /// must carry the value).
    func defaultValue(_ p: Property) -> SyncValue {
        if let given = p.defaultValue, let value = SyncValue(primitive: given) { return value }
        if p.isOptional || p.type == .object || p.type == .mixed { return .null }
        switch p.type {
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .data: return .data(Data())
        case .date: return .date(.epoch)
        case .decimal128: return .decimal(Decimal128(Int64(0)))
        case .objectId: return .objectId(ObjectId(bytes: Array(repeating: 0, count: 12)) ?? .generate())
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .object, .mixed, .linkingObjects: return .null
        }
    }
}
