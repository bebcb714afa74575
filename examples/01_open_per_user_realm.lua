-- Scenario 1: open a realm from a configuration.
-- Run: realm-host run --user GordonCole examples/01_open_per_user_realm.lua

-- The default realm: Realm() opens the default configuration. In the host it is the user's own
-- realm, made by the seed's recipe: the default file's folder, the user name, the extension
-- "realm" (user "GordonCole" -> data/GordonCole.realm). `realm` is already bound to it.
local default = Realm()
print("user:", user.name)
print("default realm:", default.configuration.fileURL, "schema version " .. default.schemaVersion)
print("same as realm:", default.configuration.fileURL == realm.configuration.fileURL)

-- A per-user realm from a copy of the default configuration: replace the file name's last
-- component with a name and the extension "realm". A user may open its own files only
-- (<user>.realm and <user>.<name>.realm), so the per-user name goes after the user's.
local config = Realm.Configuration.defaultConfiguration
config.fileURL = user.name .. ".Diane.realm"
local diane = Realm(config)
diane:objects("Dog"):append{ name = "Bandido" }
print("opened:", diane.configuration.fileURL, "dogs: " .. #diane:objects("Dog"))

-- Set it as the default: everything opened implicitly now uses it, migration logic and all.
Realm.Configuration.defaultConfiguration = config
print("Realm() now opens:", Realm().configuration.fileURL)

-- Or hand a configuration explicitly to what opens the realm.
local explicit = Realm(config)
print("explicit open sees the same data:", #explicit:objects("Dog") == #diane:objects("Dog"))
