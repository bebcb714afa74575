import Foundation
import LuaSandbox
import RealmDatabase

/// `ObjectId()`, `UUID()`, `Date()`, `Decimal128()`, `Data()`: values with `tostring`, `==` and `<`.
extension RealmLuaRuntime {
    func registerValueTypes() throws {
        try registerComparable(
            ObjectIdBox.self, name: "ObjectId", describe: { $0.value.stringValue }, less: { $0.value < $1.value },
            equal: { $0.value == $1.value })
        try registerComparable(
            UUIDBox.self, name: "UUID", describe: { $0.value.uuidString },
            less: { $0.value.uuidString < $1.value.uuidString }, equal: { $0.value == $1.value })
        try registerComparable(
            DateBox.self, name: "Date", describe: { $0.value.description }, less: { $0.value < $1.value },
            equal: { $0.value == $1.value },
            fields: [
                "seconds": { .integer($0.value.seconds) }, "nanoseconds": { .integer(Int64($0.value.nanoseconds)) },
            ])
        try registerComparable(
            Decimal128Box.self, name: "Decimal128", describe: { $0.value.description }, less: { $0.value < $1.value },
            equal: { $0.value == $1.value })
        try registerComparable(
            DataBox.self, name: "Data", describe: { String(decoding: $0.value, as: UTF8.self) },
            less: { $0.value.lexicographicallyPrecedes($1.value) }, equal: { $0.value == $1.value },
            fields: ["count": { .integer(Int64($0.value.count)) }], raw: { .bytes([UInt8]($0.value)) })

        try state.register("ObjectId") { [unowned self] ctx in
            guard let text = try ctx.optionalString(1) else { return try push(ctx, ObjectIdBox(.generate())) }
            guard let id = ObjectId(string: text) else {
                throw ctx.argumentError(1, "invalid ObjectId '\(text)': expected 24 hexadecimal digits")
            }
            return try push(ctx, ObjectIdBox(id))
        }
        try state.register("UUID") { [unowned self] ctx in
            guard let text = try ctx.optionalString(1) else { return try push(ctx, UUIDBox(UUID())) }
            guard let id = UUID(uuidString: text) else { throw ctx.argumentError(1, "invalid UUID '\(text)'") }
            return try push(ctx, UUIDBox(id))
        }
        try state.register("Date") { [unowned self] ctx in
            switch ctx.type(at: 1) {
            case .none, .nil:
                return try push(ctx, DateBox(.now))
            case .string:
                let text = try ctx.string(1)
                guard let t = Timestamp(iso8601: text) else {
                    throw ctx.argumentError(
                        1,
                        "invalid date '\(text)': expected a calendar date in ISO 8601 between "
                            + "\(Self.dateRange), e.g. 2024-01-01T00:00:00Z")
                }
                return try push(ctx, DateBox(t))
            default:
                let seconds = try ctx.integer(1)
                let nanos = try ctx.optionalInteger(2) ?? 0
                guard Timestamp.validSeconds.contains(seconds) else {
                    throw ctx.argumentError(1, "seconds out of range: dates must be between \(Self.dateRange)")
                }
                guard let n = Int32(exactly: nanos), let t = Timestamp(seconds: seconds, nanoseconds: n) else {
                    throw ctx.argumentError(
                        2, "nanoseconds must be below 1e9 in size and of the same sign as the seconds")
                }
                return try push(ctx, DateBox(t))
            }
        }
        try state.register("Decimal128") { [unowned self] ctx in
            let d: Decimal128?
            switch ctx.argument(1) {
            case .integer(let i): d = Decimal128(i)
            case .number(let n): d = Decimal128(n)
            case .string(let s): d = Decimal128(string: s)
            default: d = nil
            }
            guard let d else {
                throw ctx.argumentError(
                    1, "invalid Decimal128 '\(ctx.argument(1))': expected a number or a decimal string")
            }
            return try push(ctx, Decimal128Box(d))
        }
        try state.register("Data") { [unowned self] ctx in
            try push(ctx, DataBox(Data(try ctx.bytes(1))))
        }
    }

    /// The documented range of dates, as the errors name it.
    static let dateRange = "-9999-01-01T00:00:00Z and 9999-12-31T23:59:59Z"

    private func registerComparable<T: AnyObject>(
        _ type: T.Type, name: String, describe: @escaping (T) -> String,
        less: @escaping (T, T) -> Bool, equal: @escaping (T, T) -> Bool,
        fields: [String: (T) -> LuaValue] = [:], raw: ((T) -> LuaValue)? = nil
    ) throws {
        var metamethods: [String: LuaFunction] = [
            "__tostring": { ctx in
                let v = try ctx.userdata(1, as: T.self)
                if let raw { return try ctx.returning(raw(v)) }
                return try ctx.returning(.string(describe(v)))
            },
            "__eq": { ctx in
                guard let a = ctx.testUserdata(1, as: T.self), let b = ctx.testUserdata(2, as: T.self) else {
                    return try ctx.returning(false)
                }
                return try ctx.returning(.boolean(equal(a, b)))
            },
            "__lt": { ctx in
                try ctx.returning(.boolean(less(try ctx.userdata(1, as: T.self), try ctx.userdata(2, as: T.self))))
            },
            "__le": { ctx in
                let a = try ctx.userdata(1, as: T.self)
                let b = try ctx.userdata(2, as: T.self)
                return try ctx.returning(.boolean(less(a, b) || equal(a, b)))
            },
        ]
        if name == "Data" {
            metamethods["__len"] = { ctx in
                try ctx.returning(.integer(Int64((try ctx.userdata(1, as: DataBox.self)).value.count)))
            }
        }
        try state.registerType(
            type, name: name,
            metatable: LuaMetatable(
                fields: fields.mapValues { read in { ctx in try ctx.returning(read(try ctx.userdata(1, as: T.self))) }
                },
                metamethods: metamethods))
    }
}
