/// Reading and writing inside an embedded object value by a path of field names (the path below the
/// top-level field).
enum EmbeddedPath {
    /// The value at `path` inside `value`; nil when some step holds no embedded object.
    static func value(at path: ArraySlice<String>, in value: SyncValue?) -> SyncValue? {
        guard let name = path.first else { return value }
        guard case .embedded(let fields)? = value else { return nil }
        let inner = fields.first { $0.name == name }?.value ?? .null
        return self.value(at: path.dropFirst(), in: inner)
    }

    /// `value` with the field at `path` set to `newValue` (fields kept in name order). Steps that
    /// hold no embedded object are left as they are: the caller has checked them.
    static func replacing(at path: ArraySlice<String>, with newValue: SyncValue, in value: SyncValue) -> SyncValue {
        guard let name = path.first else { return newValue }
        guard case .embedded(var fields) = value else { return value }
        if let index = fields.firstIndex(where: { $0.name == name }) {
            fields[index].value = replacing(at: path.dropFirst(), with: newValue, in: fields[index].value)
        } else {
            fields.append(SyncField(name, replacing(at: path.dropFirst(), with: newValue, in: .null)))
            fields.sort { $0.name < $1.name }
        }
        return .embedded(fields)
    }
}
