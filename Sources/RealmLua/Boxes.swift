import Foundation
import LuaSandbox
import RealmDatabase

// Boxes for the values Lua userdata hold that are not classes of their own. The database's
// classes (Realm, DynamicObject, Results, List, MutableSet, Map, Migration, the subscription sets,
// NotificationToken) are registered as they are; a value type needs a class so that the sandbox
// can give it a metatable (and Lua a type name in messages: "bad argument #1 (Date expected, got
// table)").

final class QuerySubscriptionBox {
    let subscription: QuerySubscription
    init(_ s: QuerySubscription) { subscription = s }
}
final class UserBox {
    let name: String
    init(_ name: String) { self.name = name }
}

/// A configuration as Lua edits it: the Swift configuration plus the Lua functions it refers to.
final class ConfigurationBox {
    var configuration: Realm.Configuration
    var migrationBlock: LuaFunctionRef?
    var initialSubscriptions: LuaFunctionRef?
    /// The schema as the script gave it (returned as is when read back).
    var schemaTable: LuaValue = .nil
    /// Made by `user:flexibleSyncConfiguration`: synced when the host has a server.
    var isFlexibleSync = false
    /// `errorHandler = function(err) end`: told of sync errors (compensating writes among them).
    var errorHandler: LuaFunctionRef?
    /// `clientResetMode`: what the file's session does when the server asks for a client reset
    /// (RealmSync's `ClientResetMode`; the host's provider acts on it).
    var clientResetMode = "recoverUnsyncedChanges"
    init(_ configuration: Realm.Configuration) { self.configuration = configuration }

    func copy() -> ConfigurationBox {
        let c = ConfigurationBox(configuration)
        c.migrationBlock = migrationBlock
        c.initialSubscriptions = initialSubscriptions
        c.schemaTable = schemaTable
        c.isFlexibleSync = isFlexibleSync
        c.errorHandler = errorHandler
        c.clientResetMode = clientResetMode
        return c
    }
}

// Values of the special types.
final class ObjectIdBox {
    let value: ObjectId
    init(_ v: ObjectId) { value = v }
}
final class UUIDBox {
    let value: UUID
    init(_ v: UUID) { value = v }
}
final class DateBox {
    let value: Timestamp
    init(_ v: Timestamp) { value = v }
}
final class Decimal128Box {
    let value: Decimal128
    init(_ v: Decimal128) { value = v }
}
final class DataBox {
    let value: Data
    init(_ v: Data) { value = v }
}
