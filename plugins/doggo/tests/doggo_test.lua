-- Tests of the doggo plugin: run them with `realm-host plugin test plugins/doggo`.

test("a new realm has the seeds' subscriptions", function()
  local subs = realm.subscriptions
  assertEqual(#subs, 2)
  assertEqual(subs:first("people").objectClassName, "Person")
  assertEqual(subs:first("dogs").objectClassName, "Dog")
end)

test("new dogs take their defaults", function()
  local dog = realm:objects("Dog"):append{ name = "Bandido" }
  assertEqual(dog.favoriteTreat, "")
  assertEqual(dog.weight, 0)
  assertEqual(dog.favoriteToy, nil)
  assertTrue(dog._id ~= nil, "a primary key is generated")
end)

test(".adopt links a dog to a person, creating both", function()
  command("adopt", "Dale", "Diane")
  local dale = realm:objects("Person"):where("firstName == $0", "Dale")[1]
  assertEqual(#dale.dogs, 1)
  assertEqual(dale.dogs[1].name, "Diane")
  assertEqual(dale.dogs[1].owners[1].firstName, "Dale")
  command("adopt", "Dale", "Diane")
  assertEqual(#realm:objects("Dog"):where("name == $0", "Diane"), 1, "an existing dog is reused")
end)

test(".stats counts", function()
  realm:objects("DogToy"):append{ name = "Wubba" }
  local text = command("stats")
  assertTrue(string.find(text, "1 toys", 1, true) ~= nil, text)
end)

test("a version 1 realm migrates: the toy becomes a DogToy, the treat is filled", function()
  local v1 = Realm.Configuration.defaultConfiguration
  v1.fileURL = user.name .. ".v1.realm"
  v1.schemaVersion = 1
  v1.migrationBlock = nil
  v1.initialSubscriptions = nil
  v1.schema = {
    { name = "Dog", primaryKey = "_id", properties = {
        _id = "uuid", name = "string", breed = "string", weight = "int", favoriteToy = "string", profileImageUrl = "string?" } },
    { name = "DogToy", primaryKey = "_id", properties = { _id = "objectId", name = "string" } },
  }
  local old = Realm(v1)
  old:write(function()
    old:create("Dog", { name = "Maui", favoriteToy = "Wubba" })
    old:create("Dog", { name = "Ben", favoriteToy = "Wubba" })
    old:create("Dog", { name = "Lita" })
  end)
  local v2 = Realm.Configuration.defaultConfiguration
  v2.fileURL = v1.fileURL
  local migrated = Realm(v2)
  assertEqual(migrated.schemaVersion, 3)
  local maui = migrated:objects("Dog"):where("name == $0", "Maui")[1]
  assertEqual(maui.favoriteTreat, "bone")
  assertEqual(maui.favoriteToy.name, "Wubba")
  assertEqual(#migrated:objects("DogToy"), 1, "one toy per distinct name")
  assertEqual(migrated:objects("Dog"):where("name == $0", "Lita")[1].favoriteToy, nil)
  assertEqual(maui.household, user.name, "then version 3 puts it in the user's household")
  assertEqual(maui.favoriteToy.household, user.name, "a toy version 2 created too")
end)

test("a version 2 realm migrates: people, dogs and toys join the user's household", function()
  local v2 = Realm.Configuration.defaultConfiguration
  v2.fileURL = user.name .. ".v2.realm"
  v2.schemaVersion = 2
  v2.migrationBlock = nil
  v2.initialSubscriptions = nil
  v2.schema = {
    { name = "Dog", primaryKey = "_id", properties = {
        _id = "uuid", name = "string", breed = "string", weight = "int", favoriteToy = "DogToy?",
        profileImageUrl = "string?", favoriteTreat = "string" } },
    { name = "DogToy", primaryKey = "_id", properties = { _id = "objectId", name = "string" } },
    { name = "Person", primaryKey = "_id", properties = {
        _id = "objectId", firstName = "string", lastName = "string", dogs = "Dog[]" } },
  }
  local old = Realm(v2)
  old:write(function()
    local dale = old:create("Person", { firstName = "Dale", lastName = "Cooper" })
    dale.dogs:append(old:create("Dog", { name = "Diane", favoriteToy = { name = "Wubba" } }))
    old:create("Dog", { name = "Stray" })
  end)
  local v3 = Realm.Configuration.defaultConfiguration
  v3.fileURL = v2.fileURL
  local migrated = Realm(v3)
  assertEqual(migrated.schemaVersion, 3)
  for _, className in ipairs({ "Person", "Dog", "DogToy" }) do
    local all = migrated:objects(className)
    assertTrue(#all > 0, className)
    assertEqual(#all:where("household == $0", user.name), #all, "every " .. className .. " is the user's")
  end
  local diane = migrated:objects("Dog"):where("name == $0", "Diane")[1]
  assertEqual(diane.owners[1].firstName, "Dale", "links survive")
  assertEqual(diane.favoriteToy.name, "Wubba")
end)

test("a new object's household is empty unless given; .adopt gives the user's", function()
  assertEqual(realm:objects("Person"):append{ firstName = "Audrey" }.household, "")
  command("adopt", "Harry", "Jack")
  local harry = realm:objects("Person"):where("firstName == $0", "Harry")[1]
  assertEqual(harry.household, user.name)
  assertEqual(harry.dogs[1].household, user.name)
end)

test("the sync rules are the server's: scripts cannot see them", function()
  assertEqual(rawget(_G, "sync"), nil)
  assertEqual(sync, nil)
end)

test("writing a frozen dog is an error", function()
  local dog = realm:objects("Dog"):append{ name = "Maui" }
  local frozen = dog:freeze()
  assertError(function() frozen.name = "x" end, "frozen")
  assertEqual(dog.name, "Maui")
end)

test("the adopt function, called as an app calls it, writes in the caller's household", function()
  local person = call("adopt", { person = "Ann", dog = "Rex" }, { role = "vet" })
  assertEqual(person.firstName, "Ann")
  assertEqual(person.household, user.name)
  assertEqual(person.dogs[1].name, "Rex")
  assertError(function() call("adopt", { person = 1 }) end, "adopt needs")
  local who = call("whoami", {}, { role = "vet" })
  assertEqual(who.user, user.name)
  assertEqual(who.claims.role, "vet")
  assertEqual(who.claims.sub, user.name)
end)
