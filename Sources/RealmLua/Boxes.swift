import Foundation
import LuaSandbox
import RealmDatabase

// The Swift objects Lua userdata hold. Each box is a class of its own so that the sandbox can give
// it a metatable (and Lua a type name in messages: "bad argument #1 (Realm expected, got table)").

final class RealmBox { let realm: Realm; init(_ realm: Realm) { self.realm = realm } }
final class ObjectBox { let object: DynamicObject; init(_ object: DynamicObject) { self.object = object } }
final class ResultsBox { let results: Results; init(_ results: Results) { self.results = results } }
final class ListBox { let list: List; init(_ list: List) { self.list = list } }
final class SetBox { let set: MutableSet; init(_ set: MutableSet) { self.set = set } }
final class MapBox { let map: Map; init(_ map: Map) { self.map = map } }
final class MigrationBox { let migration: Migration; init(_ migration: Migration) { self.migration = migration } }
final class SubscriptionSetBox { let set: SubscriptionSet; init(_ set: SubscriptionSet) { self.set = set } }
final class MutableSubscriptionSetBox { let set: MutableSubscriptionSet; init(_ set: MutableSubscriptionSet) { self.set = set } }
final class QuerySubscriptionBox { let subscription: QuerySubscription; init(_ s: QuerySubscription) { subscription = s } }
final class TokenBox { let token: NotificationToken; init(_ token: NotificationToken) { self.token = token } }
final class UserBox { let name: String; init(_ name: String) { self.name = name } }

/// A configuration as Lua edits it: the Swift configuration plus the Lua functions it refers to.
final class ConfigurationBox {
    var configuration: Realm.Configuration
    var migrationBlock: LuaFunctionRef?
    var initialSubscriptions: LuaFunctionRef?
    /// The schema as the script gave it (returned as is when read back).
    var schemaTable: LuaValue = .nil
    init(_ configuration: Realm.Configuration) { self.configuration = configuration }

    func copy() -> ConfigurationBox {
        let c = ConfigurationBox(configuration)
        c.migrationBlock = migrationBlock
        c.initialSubscriptions = initialSubscriptions
        c.schemaTable = schemaTable
        return c
    }
}

// Values of the special types.
final class ObjectIdBox { let value: ObjectId; init(_ v: ObjectId) { value = v } }
final class UUIDBox { let value: UUID; init(_ v: UUID) { value = v } }
final class DateBox { let value: Timestamp; init(_ v: Timestamp) { value = v } }
final class Decimal128Box { let value: Decimal128; init(_ v: Decimal128) { value = v } }
final class DataBox { let value: Data; init(_ v: Data) { value = v } }
