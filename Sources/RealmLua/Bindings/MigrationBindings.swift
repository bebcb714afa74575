import Foundation
import LuaSandbox
import RealmDatabase

/// The `migration` a migration block receives (RealmSwift's Migration API, the Lua way).
extension RealmLuaRuntime {
    func registerMigration() throws {
        func migration(_ ctx: LuaCallContext) throws -> Migration { try ctx.userdata(1, as: Migration.self) }
        try state.registerType(Migration.self, name: "Migration", metatable: LuaMetatable(
            methods: [
                "enumerateObjects": { [unowned self] ctx in
                    let m = try migration(ctx)
                    let className = try ctx.string(2)
                    let block = try ctx.function(3)
                    try m.enumerateObjects(ofType: className) { old, new in
                        try state.call(block, [try old.map { try box($0) } ?? .nil, try new.map { try box($0) } ?? .nil])
                    }
                    return 0
                },
                "create": { [unowned self] ctx in
                    let value = ctx.isNil(3) ? RealmValue.dictionary([:]) : try realmArgument(ctx, 3)
                    return try push(ctx, try migration(ctx).create(try ctx.string(2), value: value))
                },
                "delete": { ctx in
                    try migration(ctx).delete(try ctx.userdata(2, as: DynamicObject.self))
                    return 0
                },
                "deleteData": { ctx in try ctx.returning(.boolean(try migration(ctx).deleteData(forType: try ctx.string(2)))) },
                "renameProperty": { ctx in
                    try migration(ctx).renameProperty(onType: try ctx.string(2), from: try ctx.string(3), to: try ctx.string(4))
                    return 0
                },
            ],
            index: { [unowned self] ctx in
                let m = try migration(ctx)
                switch ctx.argument(2).stringValue {
                case "oldSchema": return try ctx.returning(schemaTable(m.oldSchema))
                case "newSchema": return try ctx.returning(schemaTable(m.newSchema))
                default: return try ctx.returning(.nil)
                }
            }))
    }
}
