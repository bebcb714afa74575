-- A plugin with every field: schema in both notations, migration, subscriptions, commands, onOpen.
return {
  name = "fuzz-seed",
  version = "1.2.0",
  description = "seed for realm-fuzz plugin",
  schemaVersion = 3,
  schema = {
    { name = "Item", primaryKey = "_id", properties = {
        { name = "_id", type = "objectId" }, { name = "label", type = "string", indexed = true },
        { name = "price", type = "decimal128", default = 0 }, { name = "tags", type = "string<>" },
        { name = "parts", type = "list", objectType = "Part" }, { name = "meta", type = "mixed{}" } } },
    { name = "Part", embedded = true, properties = { name = "string", weight = "double?" } },
    { name = "Order", properties = { item = "Item?", qty = "int", at = "date",
        buyers = { type = "linkingObjects", objectType = "Buyer", property = "orders" } } },
    { name = "Buyer", properties = { name = "string", orders = "Order[]" } },
  },
  migration = function(migration, oldSchemaVersion)
    migration:enumerateObjects("Order", function(old, new) new.qty = (old.qty or 0) + 1 end)
  end,
  initialSubscriptions = function(subs)
    if not subs:first("items") then subs:append(QuerySubscription("Item", { name = "items", where = "price > 1" })) end
  end,
  commands = {
    count = function(realm, class) return #realm:objects(class or "Item") end,
    add = function(realm, label) return realm:create("Item", { _id = ObjectId(), label = label }) end,
  },
  onOpen = function(realm) end,
}
