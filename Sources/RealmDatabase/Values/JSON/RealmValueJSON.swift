import Foundation
import RealmValues

/// A JSON value that cannot become a realm value, and where it is (`Dog[3].weight`).
public struct RealmJSONError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let message: String

    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "at '\(path)': \(message)" }
}

/// The one codec between realm values and JSON, used by `realm-host export` / `import` and the
/// REPL's JSON mode, so that a value is written the same way everywhere.
///
/// Strings, booleans, null and integers are plain JSON. Every other type is tagged so nothing is
/// lost: `{"$double": "0.1"}`, `{"$float": "…"}`, `{"$date": "2024-01-01T00:00:00.000000001Z"}`,
/// `{"$decimal": "1.50"}`, `{"$oid": "…"}`, `{"$uuid": "…"}`, `{"$binary": "<base64>"}`.
/// Embedded objects are written inline; lists and sets are arrays, maps are objects.
public enum RealmValueJSON {
    /// What a written value is for.
    public enum Style: Sendable {
        /// To be read back exactly (export files): doubles and floats tagged, links as
        /// `{"$ref": key}` (a link in a mixed value adds `"$class"`).
        case exact
        /// To be read by a person (the REPL): finite doubles and floats as JSON numbers; a link
        /// as its primary key when it has one, else the object inline.
        case readable
        /// MongoDB's relaxed Extended JSON, as Realm apps know it from the Data API (the app API of
        /// `realm-host serve`): numbers plain (`{"$numberDouble": "NaN"}` for what JSON cannot
        /// write), `{"$numberDecimal": "…"}`, `{"$binary": {"base64": "…", "subType": "00"}}`,
        /// dates, ObjectIds and UUIDs tagged as in the other styles; a link as its primary key.
        case relaxed
    }

    /// Objects nest inline at most this deep (a cycle of links without primary keys ends there).
    static let maxDepth = 8

    // MARK: Encoding

    /// A value as JSON. `property` is the value's property, when known (it tells whether a link
    /// is in a mixed value).
    public static func encode(
        _ value: RealmValue, style: Style, property: Property? = nil,
        depth: Int = 0
    ) throws -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .string(let s): return .string(s)
        case .double(let d): return encode(floating: d, style: style, exactTag: "$double")
        case .float(let f): return encode(floating: Double(f), style: style, exactTag: "$float", text: "\(f)")
        case .date(let t): return .tagged("$date", t.description)
        case .decimal128(let d): return .tagged(style == .relaxed ? "$numberDecimal" : "$decimal", d.description)
        case .objectId(let o): return .tagged("$oid", o.stringValue)
        case .uuid(let u): return .tagged("$uuid", u.uuidString)
        case .data(let d) where style == .relaxed:
            return .object([
                JSONValue.Field(
                    "$binary",
                    .object([
                        JSONValue.Field("base64", .string(d.base64EncodedString())),
                        JSONValue.Field("subType", .string("00")),
                    ]))
            ])
        case .data(let d): return .tagged("$binary", d.base64EncodedString())
        case .object(let o): return try encodeLink(o, style: style, property: property, depth: depth)
        case .list(let items):
            return .array(try items.map { try encode($0, style: style, property: property, depth: depth + 1) })
        case .dictionary(let d):
            return .object(
                try d.keys.sorted().map { key in
                    JSONValue.Field(
                        key, try encode(d[key] ?? .null, style: style, property: property, depth: depth + 1))
                })
        }
    }

    /// A double (or a float, with its own `text`): a JSON number where the style allows and JSON
    /// can write it, else tagged.
    private static func encode(floating d: Double, style: Style, exactTag: String, text: String? = nil) -> JSONValue {
        switch style {
        case .exact: return .tagged(exactTag, text ?? "\(d)")
        case .readable, .relaxed:
            guard !d.isFinite else { return .double(d) }
            return .tagged(
                style == .relaxed ? "$numberDouble" : exactTag, d.isNaN ? "NaN" : d < 0 ? "-Infinity" : "Infinity")
        }
    }

    private static func encodeLink(
        _ o: DynamicObject, style: Style, property: Property?,
        depth: Int
    ) throws -> JSONValue {
        let schema = o.objectSchema
        if schema?.isEmbedded == true { return try encode(object: o, style: style, withKey: false, depth: depth + 1) }
        switch style {
        case .exact:
            return .ref(o.objectKey ?? 0, className: property?.type == .mixed ? o.className : nil)
        case .relaxed:
            guard o.isManaged, let primaryKey = schema?.primaryKey else { return .null }
            return try encode(try o.value(forKey: primaryKey), style: style, depth: depth + 1)
        case .readable:
            if o.isManaged, let primaryKey = schema?.primaryKey {
                return try encode(try o.value(forKey: primaryKey), style: style, depth: depth + 1)
            }
            guard depth < maxDepth else { return .string(o.description) }
            return try encode(object: o, style: style, withKey: false, depth: depth + 1)
        }
    }

    /// An object's persisted properties in schema order; `withKey` puts its stored key first as
    /// `"$key"` (what `{"$ref": key}` links point at).
    public static func encode(
        object o: DynamicObject, style: Style, withKey: Bool = false,
        depth: Int = 0
    ) throws -> JSONValue {
        guard let schema = o.objectSchema else { return .string(o.description) }
        if o.isManaged && o.isInvalidated { return .null }
        var fields = [JSONValue.Field]()
        if withKey, let key = o.objectKey { fields.append(JSONValue.Field("$key", .int(key))) }
        for p in schema.properties where p.isPersisted {
            fields.append(
                JSONValue.Field(
                    p.name,
                    try encode(
                        try o.value(forKey: p.name), style: style, property: p,
                        depth: depth)))
        }
        return .object(fields)
    }

    // MARK: Decoding

    /// What decoding a link needs: the objects already made, by class and exported `$key`.
    public struct Links {
        public var objects: [String: [Int64: DynamicObject]] = [:]
        /// Finds the object a link names by its primary key (relaxed Extended JSON writes links
        /// so); nil: links are `{"$ref": key}` into `objects`.
        public var byPrimaryKey: ((_ className: String, _ primaryKey: RealmValue) throws -> DynamicObject?)?
        public init() {}
    }

    /// A JSON value as the value of `property` (a collection property takes an array or, for a
    /// map, an object).
    ///
    /// JSON types must match the property's type: `true` is no int and `1` no bool. Embedded
    /// objects come back as `.dictionary` (what `Realm.create` takes).
    /// - Throws: `RealmJSONError` at `path` (`Dog[3].weight`).
    public static func decode(
        _ json: JSONValue, as property: Property, schema: Schema, links: Links,
        at path: String
    ) throws -> RealmValue {
        if json == .null { return .null }
        guard property.collection != .none else { return try decodeElement(json, property, schema, links, path) }
        var element = property
        element.collection = .none
        switch (property.collection, json) {
        case (.map, .object(let fields)):
            var values = [String: RealmValue]()
            for field in fields {
                values[field.name] = try decodeElement(field.value, element, schema, links, path + "." + field.name)
            }
            return .dictionary(values)
        case (.map, _):
            throw RealmJSONError(path: path, "a map must be an object, found \(json.kindName)")
        case (_, .array(let items)):
            return .list(
                try items.enumerated().map { i, item in
                    try decodeElement(item, element, schema, links, path + "[\(i)]")
                })
        default:
            throw RealmJSONError(path: path, "a list or set must be an array, found \(json.kindName)")
        }
    }

    private static func decodeElement(
        _ json: JSONValue, _ p: Property, _ schema: Schema, _ links: Links,
        _ path: String
    ) throws -> RealmValue {
        func mismatch() -> RealmJSONError {
            RealmJSONError(path: path, "expected \(p.type.rawValue), found \(json.kindName)")
        }
        if p.type == .object, let resolve = links.byPrimaryKey, let target = p.objectClassName,
            let targetSchema = schema[target], !targetSchema.isEmbedded
        {
            return try decodeLinkByPrimaryKey(json, targetSchema, schema, links, resolve, path)
        }
        switch json {
        case .null: return .null
        case .object(let fields) where fields.count == 1 && fields[0].name == "$binary":
            return try decodeBinaryObject(fields[0].value, p, path)
        case .tagged(let tag, let text): return try decodeTagged(tag, text, p, path)
        case .ref(let key, let className): return try decodeRef(key, className ?? p.objectClassName, links, path)
        case .object(let fields): return try decodeEmbedded(fields, p, schema, links, path)
        case .array: throw mismatch()
        case .bool(let b):
            guard p.type == .bool || p.type == .mixed else { throw mismatch() }
            return .bool(b)
        case .string(let s):
            guard p.type == .string || p.type == .mixed else { throw mismatch() }
            return .string(s)
        case .int(let i):
            switch p.type {
            case .int, .mixed: return .int(i)
            case .double: return .double(Double(i))
            case .float: return .float(Float(i))
            default: throw mismatch()
            }
        case .double(let d):
            switch p.type {
            case .double, .mixed: return .double(d)
            case .float: return .float(Float(d))
            default: throw mismatch()
            }
        }
    }

    private static func decodeTagged(
        _ tag: String, _ text: String, _ p: Property,
        _ path: String
    ) throws -> RealmValue {
        let value: RealmValue?
        let type: PropertyType
        switch tag {
        case "$double", "$numberDouble": (value, type) = (Double(text).map(RealmValue.double), .double)
        case "$numberDecimal": (value, type) = (Decimal128(string: text).map(RealmValue.decimal128), .decimal128)
        case "$float": (value, type) = (Float(text).map(RealmValue.float), .float)
        case "$date": (value, type) = (Timestamp(iso8601: text).map(RealmValue.date), .date)
        case "$decimal": (value, type) = (Decimal128(string: text).map(RealmValue.decimal128), .decimal128)
        case "$oid": (value, type) = (ObjectId(string: text).map(RealmValue.objectId), .objectId)
        case "$uuid": (value, type) = (UUID(uuidString: text).map(RealmValue.uuid), .uuid)
        case "$binary": (value, type) = (Data(base64Encoded: text).map(RealmValue.data), .data)
        default: throw RealmJSONError(path: path, "unknown tag '\(tag)'")
        }
        let floating: Set<PropertyType> = [.double, .float]
        guard p.type == type || p.type == .mixed || (floating.contains(p.type) && floating.contains(type)) else {
            throw RealmJSONError(path: path, "expected \(p.type.rawValue), found a \(tag) value")
        }
        guard let value else { throw RealmJSONError(path: path, "invalid \(tag) value '\(text)'") }
        return value
    }

    /// `{"$binary": {"base64": "…", "subType": "00"}}`, relaxed Extended JSON's binary.
    private static func decodeBinaryObject(_ json: JSONValue, _ p: Property, _ path: String) throws -> RealmValue {
        guard case .string(let base64)? = json[field: "base64"] else {
            throw RealmJSONError(path: path, "$binary must be {\"base64\": \"…\", \"subType\": \"00\"}")
        }
        return try decodeTagged("$binary", base64, p, path)
    }

    /// A link written as its target's primary key (or null), found through `resolve`.
    private static func decodeLinkByPrimaryKey(
        _ json: JSONValue, _ target: ObjectSchema, _ schema: Schema, _ links: Links,
        _ resolve: (String, RealmValue) throws -> DynamicObject?, _ path: String
    ) throws -> RealmValue {
        if json == .null { return .null }
        guard var key = target.primaryKeyProperty else {
            throw RealmJSONError(path: path, "'\(target.className)' has no primary key: a link to it cannot be written")
        }
        key.collection = .none
        let primaryKey = try decodeElement(json, key, schema, Links(), path)
        guard let object = try resolve(target.className, primaryKey) else {
            throw RealmJSONError(path: path, "no \(target.className) with primary key \(json.text())")
        }
        return .object(object)
    }

    private static func decodeRef(
        _ key: Int64, _ className: String?, _ links: Links,
        _ path: String
    ) throws -> RealmValue {
        let className = className ?? ""
        guard let object = links.objects[className]?[key] else {
            throw RealmJSONError(path: path, "no \(className) with $key \(key) in the file")
        }
        return .object(object)
    }

    private static func decodeEmbedded(
        _ fields: [JSONValue.Field], _ p: Property, _ schema: Schema, _ links: Links,
        _ path: String
    ) throws -> RealmValue {
        guard let target = p.objectClassName, let embedded = schema[target], embedded.isEmbedded else {
            throw RealmJSONError(path: path, "an object is only valid for an embedded object")
        }
        var values = [String: RealmValue]()
        for field in fields {
            guard let ep = embedded[field.name] else {
                throw RealmJSONError(path: path, "'\(target).\(field.name)' is not a property")
            }
            let place = path + "." + field.name
            values[field.name] = try decode(field.value, as: ep, schema: schema, links: links, at: place)
        }
        return .dictionary(values)
    }
}
