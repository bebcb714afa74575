-- Fills a schema-version-1 realm (see doggo-v1/): dogs whose favorite toy is still a string.
-- Run: realm-host run --plugins examples/doggo-v1 --user alice examples/v1_add_dogs.lua
local dogs = realm:objects("Dog")
dogs:append{ name = "Maui", breed = "Poodle", weight = 7, favoriteToy = "Wubba" }
dogs:append{ name = "Bandido", breed = "Mutt", weight = 23, favoriteToy = "Wubba" }
dogs:append{ name = "Rex", weight = 30 }
print(user.name .. ": " .. #dogs .. " dogs at schema version " .. realm.schemaVersion)
