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
  assertEqual(migrated.schemaVersion, 2)
  local maui = migrated:objects("Dog"):where("name == $0", "Maui")[1]
  assertEqual(maui.favoriteTreat, "bone")
  assertEqual(maui.favoriteToy.name, "Wubba")
  assertEqual(#migrated:objects("DogToy"), 1, "one toy per distinct name")
  assertEqual(migrated:objects("Dog"):where("name == $0", "Lita")[1].favoriteToy, nil)
end)

test("writing a frozen dog is an error", function()
  local dog = realm:objects("Dog"):append{ name = "Maui" }
  local frozen = dog:freeze()
  assertError(function() frozen.name = "x" end, "frozen")
  assertEqual(dog.name, "Maui")
end)
