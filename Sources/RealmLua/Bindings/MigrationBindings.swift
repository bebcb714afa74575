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
        let typeName = try state.typeName(of: DynamicObject.self)
        // The two objects go straight onto the stack (no registry slot each); the collector is
        // paced as `box` paces it, so a million callbacks stay flat in memory.
        try m.enumerateObjects(ofType: className) { old, new in
            if old != nil { paceCollector() }
            if new != nil { paceCollector() }
            try state.call(block, userdata: old, new, typeName: typeName)
        }
        return 0
    }
}
