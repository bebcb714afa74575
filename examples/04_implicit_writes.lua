-- Scenario 4: write data with implicit write transactions.
-- Run: realm-host run examples/04_implicit_writes.lua

local dogs = realm:objects("Dog")
local before = #dogs

-- Append to the results: an implicit write transaction, committed at once.
local bandido = dogs:append{ name = "Bandido" }
print("appended:", bandido.name, "count +" .. (#dogs - before))

-- Set a property of a managed object: an implicit write transaction saves it.
bandido.favoriteTreat = "bacon"
print("treat:", realm:object("Dog", bandido._id).favoriteTreat)

-- A form's "Save": create a Person (realm:create, add and delete need realm:write, as in Realm)
-- and append a Dog to the person's dogs (an implicit write again).
local person = realm:write(function() return realm:create("Person", { firstName = "Gordon", lastName = "Cole" }) end)
person.dogs:append{ name = "Diane" }
print(person.firstName .. " has " .. #person.dogs .. " dog: " .. person.dogs[1].name)

-- Remove from the results (delete at an offset, or a given object): implicit too.
dogs:remove(bandido)
print("after remove:", #dogs - before .. " new dog left")

-- Inside realm:write, the same calls join that one transaction; an error rolls back all of it.
local ok, err = pcall(function()
  realm:write(function()
    dogs:append{ name = "Ghost" }
    error("changed my mind")
  end)
end)
print("rolled back:", not ok, #dogs:where("name == $0", "Ghost") == 0)

-- An object another realm manages cannot be appended...
local otherConfig = Realm.Configuration.defaultConfiguration
otherConfig.fileURL = user.name .. ".other.realm"
local other = Realm(otherConfig)
local wubba, maui
other:write(function()
  wubba = other:objects("DogToy"):where("name == $0", "Wubba")[1] or other:create("DogToy", { name = "Wubba" })
  maui = other:create("Dog", { name = "Maui", favoriteToy = wubba })
end)
ok, err = pcall(function() dogs:append(maui) end)
print("append from another realm:", err)

-- ...instead, inside a write, create (update: "modified") copies it in, links and all.
realm:write(function()
  local copy = realm:create("Dog", { _id = maui._id, name = maui.name, favoriteToy = wubba }, "modified")
  person.dogs:append(copy)
end)
print(person.firstName .. "'s dogs:", person.dogs[1].name, person.dogs[2].name .. " (toy " .. person.dogs[2].favoriteToy.name .. ")")
