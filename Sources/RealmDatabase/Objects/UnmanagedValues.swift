import Foundation

/// The values of an unmanaged object that knows its class's schema (RealmSwift's `Dog()`): every
/// property starts at its default, and a value of the wrong type is refused when it is set.
enum UnmanagedValues {
    /// Every persisted property's value: the ones given (checked), the defaults for the rest.
    /// A name that is not a property fails, as it does in `create`.
    static func initial(_ given: [String: RealmValue], schema: ObjectSchema) throws -> [String: RealmValue] {
        for name in given.keys where schema[name]?.isPersisted != true {
            throw unknownProperty(name, schema.className)
        }
        var values = [String: RealmValue]()
        for p in schema.properties where p.isPersisted {
            values[p.name] =
                try given[p.name].map { try checked($0, for: p, className: schema.className) } ?? p.valueWhenUnset
        }
        return values
    }

    static func unknownProperty(_ name: String, _ className: String) -> RealmError {
        RealmError(.invalidProperty, "Property '\(name)' does not exist on object type '\(className)'.")
    }

    /// `value` as property `p` holds it (an int given for a double reads back as a double), or
    /// Realm's invalid-value error.
    static func checked(_ value: RealmValue, for p: Property, className: String) throws -> RealmValue {
        // Built only when thrown: describing a value of a graph with cycles is not free.
        let invalid = {
            RealmError(
                .invalidValue,
                "Invalid value '\(value)' of type '\(value.typeName)' for '\(p.typeString)' property "
                    + "'\(className).\(p.name)'.")
        }
        switch (p.collection, value) {
        case (_, _) where p.type == .linkingObjects:
            throw RealmError(
                .invalidProperty, "Property '\(className).\(p.name)' is linking objects and cannot be set.")
        case (.list, .null), (.set, .null): return .list([])
        case (.map, .null): return .dictionary([:])
        case (.list, .list(let items)), (.set, .list(let items)):
            let element = Property(
                name: p.name, type: p.type, objectClassName: p.objectClassName, isOptional: p.isOptional)
            let checkedItems = try items.map { try checked($0, for: element, className: className) }
            return .list(p.collection == .set ? unique(checkedItems) : checkedItems)
        case (.map, .dictionary(let entries)):
            let element = Property(name: p.name, type: p.type, objectClassName: p.objectClassName, isOptional: true)
            return .dictionary(try entries.mapValues { try checked($0, for: element, className: className) })
        case (.list, _), (.set, _), (.map, _):
            throw invalid()
        case (.none, _):
            return try checkedSingle(value, for: p, invalid: invalid)
        }
    }

    private static func checkedSingle(_ value: RealmValue, for p: Property, invalid: () -> RealmError) throws
        -> RealmValue
    {
        switch (p.type, value) {
        case (.mixed, _): return value
        case (.object, .null): return .null
        case (.object, .object(let o)):
            guard o.className == p.objectClassName else { throw invalid() }
            return value
        case (.object, .dictionary), (.object, .list): return value  // a nested object, created when added
        case (.object, _): throw invalid()
        case (_, .null):
            guard p.isOptional else { throw invalid() }
            return .null
        default:
            guard let stored = ValueCoding.encode(value, as: p.type) else { throw invalid() }
            return ValueCoding.decode(stored, as: p.type)
        }
    }

    /// A set's elements: the first of equal ones.
    private static func unique(_ items: [RealmValue]) -> [RealmValue] {
        var out = [RealmValue]()
        for item in items where !out.contains(item) { out.append(item) }
        return out
    }
}

extension Property {
    /// The value a property takes when none is given: its default, else its type's empty value
    /// (a fresh value for a required objectId or uuid).
    var valueWhenUnset: RealmValue {
        if let defaultValue { return defaultValue }
        if collection == .map { return .dictionary([:]) }
        if isCollection { return .list([]) }
        if isOptional { return .null }
        switch type {
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .data: return .data(Data())
        case .date: return .date(.epoch)
        case .decimal128: return .decimal128(.zero)
        case .objectId: return .objectId(.generate())
        case .uuid: return .uuid(UUID())
        case .mixed, .object, .linkingObjects: return .null
        }
    }
}
