-- Scenario 2: change the object model, from schema version 1 to 2, with a migration block.
-- Run: realm-host run examples/02_migration_v1_to_v2.lua
--
-- The realm here is in memory so the script can be run again and again; a realm file migrates
-- the same way when it is opened with the higher version (for the users' realms, the doggo
-- plugin's migrations/0002_add_favorite_treat.lua does this, run by `realm-host migrate`).

-- Version 1: a dog's favorite toy is a string; people have a single `name`; there are cats.
local v1 = Realm.Configuration.defaultConfiguration
v1.fileURL = nil
v1.inMemoryIdentifier = "migration-demo"
v1.initialSubscriptions = nil
v1.migrationBlock = nil
v1.schemaVersion = 1
v1.schema = {
  { name = "Dog", primaryKey = "_id", properties = {
      { name = "_id", type = "uuid" }, { name = "name", type = "string" }, { name = "favoriteToy", type = "string" } } },
  { name = "Person", primaryKey = "_id", properties = {
      { name = "_id", type = "objectId" }, { name = "name", type = "string" } } },
  { name = "Cat", properties = { { name = "name", type = "string" } } },
}
local old = Realm(v1)
old:write(function()
  old:create("Dog", { name = "Maui", favoriteToy = "Wubba" })
  old:create("Dog", { name = "Bandido", favoriteToy = "Wubba" })
  old:create("Dog", { name = "Rex", favoriteToy = "" })
  old:create("Person", { name = "Dachary" })
  old:create("Cat", { name = "Tom" })
end)
print("version " .. old.schemaVersion .. ": " .. #old:objects("Dog") .. " dogs, " .. #old:objects("Cat") .. " cat")

-- Version 2: favoriteTreat is added, favoriteToy becomes a link to a DogToy, Person.name is
-- renamed firstName, and Cat is gone.
local v2 = Realm.Configuration.defaultConfiguration
v2.fileURL = nil
v2.inMemoryIdentifier = "migration-demo"
v2.initialSubscriptions = nil
v2.schemaVersion = 2
v2.schema = {
  { name = "Dog", primaryKey = "_id", properties = {
      { name = "_id", type = "uuid" }, { name = "name", type = "string" },
      { name = "favoriteToy", type = "DogToy?" }, { name = "favoriteTreat", type = "string", default = "" } } },
  { name = "DogToy", primaryKey = "_id", properties = { { name = "_id", type = "objectId" }, { name = "name", type = "string" } } },
  { name = "Person", primaryKey = "_id", properties = {
      { name = "_id", type = "objectId" }, { name = "firstName", type = "string" } } },
}
v2.migrationBlock = function(migration, oldSchemaVersion)
  if oldSchemaVersion < 2 then
    local toys = {}
    -- Enumerate the dogs: oldObject in the old schema (read-only), newObject in the new one.
    migration:enumerateObjects("Dog", function(oldObject, newObject)
      newObject.favoriteTreat = "bone"
      local name = oldObject.favoriteToy
      if name ~= "" then
        -- create takes a dictionary, or an array in property order: { _id, name }.
        toys[name] = toys[name] or migration:create("DogToy", { ObjectId(), name })
        newObject.favoriteToy = toys[name]
      end
    end)
    -- Objects can be created and deleted too.
    local extra = migration:create("DogToy", { name = "Temporary" })
    migration:delete(extra)
    migration:renameProperty("Person", "name", "firstName")
    print("deleted the cats' data:", migration:deleteData("Cat"))
  end
end

local new = Realm(v2)
print("version " .. new.schemaVersion .. ":")
for _, dog in ipairs(new:objects("Dog"):sorted("name")) do
  print("", dog.name, dog.favoriteTreat, dog.favoriteToy and dog.favoriteToy.name or "(no toy)")
end
print("toys: " .. #new:objects("DogToy") .. ", person: " .. new:objects("Person")[1].firstName)
