import Foundation
import LuaSandbox
import RealmDatabase

/// The `migration` a migration block receives (RealmSwift's Migration API, the Lua way).
extension RealmLuaRuntime {
    func registerMigration() throws {
        unowned let runtime = self
        func migration(_ ctx: LuaCallContext) throws -> Migration { try ctx.userdata(1, as: Migration.self) }
        var t = BindingTable()
        t.method("enumerateObjects") { try runtime.enumerateObjects($0) }
        t.method("create", returns: .classArgument("Object")) { ctx in
            let value = ctx.isNil(3) ? RealmValue.dictionary([:]) : try runtime.realmArgument(ctx, 3)
            return try runtime.push(ctx, try migration(ctx).create(try ctx.string(2), value: value))
        }
        t.method("delete") { ctx in
            try migration(ctx).delete(try ctx.userdata(2, as: DynamicObject.self))
            return 0
        }
        t.method("deleteData") { ctx in
            try ctx.returning(.boolean(try migration(ctx).deleteData(forType: try ctx.string(2))))
        }
        t.method("renameProperty") { ctx in
            try migration(ctx).renameProperty(onType: try ctx.string(2), from: try ctx.string(3), to: try ctx.string(4))
            return 0
        }
        t.field("oldSchema") { ctx in try ctx.returning(runtime.schemaTable(try migration(ctx).oldSchema)) }
        t.field("newSchema") { ctx in try ctx.returning(runtime.schemaTable(try migration(ctx).newSchema)) }
        try register(Migration.self, name: "Migration", t)
    }

    /// `migration:enumerateObjects("Dog", function(old, new) … end)`.
    private func enumerateObjects(_ ctx: LuaCallContext) throws -> Int {
        let m = try ctx.userdata(1, as: Migration.self)
        let className = try ctx.string(2)
        let block = try ctx.function(3)
        try m.enumerateObjects(ofType: className) { old, new in
            try state.call(block, [try old.map { try box($0) } ?? .nil, try new.map { try box($0) } ?? .nil])
        }
        return 0
    }
}
