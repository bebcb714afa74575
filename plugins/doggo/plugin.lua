-- DoggoDB, the Realm seeds' model: dogs, their toys, people, companies and employees.
--
-- Version 1 stored a dog's favorite toy as a string; version 2 makes it a link to a DogToy and
-- adds favoriteTreat. migrations/0002_add_favorite_treat.lua turns one into the other.
-- Version 3 gives people, dogs and toys a household (migrations/0003_add_household.lua): the user
-- whose household they belong to, which the sync rules below read.
return {
  name = "doggo",
  version = "3.0.0",
  description = "DoggoDB: dogs, toys, people, companies and employees",
  schemaVersion = 3,
  schema = {
    { name = "Dog", primaryKey = "_id", properties = {
        { name = "_id", type = "uuid" },
        { name = "name", type = "string" },
        { name = "breed", type = "string" },
        { name = "weight", type = "int" },
        { name = "favoriteToy", type = "DogToy?" },
        { name = "profileImageUrl", type = "string?" },
        { name = "favoriteTreat", type = "string", default = "" },
        { name = "household", type = "string", default = "" },
        { name = "owners", type = "linkingObjects", objectType = "Person", property = "dogs" },
    } },
    { name = "DogToy", primaryKey = "_id", properties = {
        { name = "_id", type = "objectId" },
        { name = "name", type = "string" },
        { name = "household", type = "string", default = "" },
    } },
    { name = "Person", primaryKey = "_id", properties = {
        { name = "_id", type = "objectId" },
        { name = "firstName", type = "string" },
        { name = "lastName", type = "string" },
        { name = "dogs", type = "Dog[]" },
        { name = "household", type = "string", default = "" },
    } },
    { name = "Company", primaryKey = "_id", properties = {
        { name = "_id", type = "objectId" },
        { name = "companyName", type = "string" },
        { name = "employees", type = "Employee[]" },
        { name = "dogs", type = "Dog[]" },
    } },
    { name = "Employee", properties = {
        { name = "name", type = "string" },
        { name = "dogs", type = "Dog[]" },
    } },
  },

  -- Sync rules, read by the sync server only (a tenant's scripts never see them). A household is a
  -- user: each user reads and writes the people, dogs and toys whose household is its name, so the
  -- seeds' `people` and `dogs` subscriptions (every Person, every Dog) hold the user's household.
  -- Company has no rules: private per user (only its creator syncs it). Employee has no primary
  -- key and does not sync.
  sync = {
    queryable = {
      Dog = { "household", "name", "breed", "weight" },
      DogToy = { "household", "name" },
      Person = { "household", "firstName", "lastName" },
    },
    permissions = {
      Dog = { read = "household == $user", write = "household == $user" },
      DogToy = { read = "household == $user", write = "household == $user" },
      Person = { read = "household == $user", write = "household == $user" },
    },
  },

  -- The seeds' initial subscriptions: every Person and every Dog, checked by name first so that
  -- running this again adds nothing.
  initialSubscriptions = function(subs)
    if subs:first("people") == nil then subs:append(QuerySubscription("Person", { name = "people" })) end
    if subs:first("dogs") == nil then subs:append(QuerySubscription("Dog", { name = "dogs" })) end
  end,

  commands = {
    -- A command is a function, or a table with its `usage` and `help` for `.help`.
    dogs = {
      usage = "[QUERY]", help = "the dogs, by name (optionally those matching a query)",
      run = function(realm, query)
        local dogs = realm:objects("Dog")
        if query and query ~= "" then dogs = dogs:where(query) end
        return dogs:sorted("name")
      end,
    },
    adopt = {
      usage = "FIRSTNAME DOGNAME",
      help = "a person adopts a dog (both created when missing, in the user's household)",
      run = function(realm, firstName, dogName)
        assert(firstName and dogName, "usage: .adopt FIRSTNAME DOGNAME")
        return realm:write(function()
          local person = realm:objects("Person"):where("firstName == $0", firstName)[1]
            or realm:create("Person", { firstName = firstName, household = user.name })
          local dog = realm:objects("Dog"):where("name == $0", dogName)[1]
            or realm:create("Dog", { name = dogName, household = user.name })
          person.dogs:append(dog)
          return person
        end)
      end,
    },
    -- .stats: how many of each, and the dogs' average weight.
    stats = function(realm)
      local dogs = realm:objects("Dog")
      return string.format("%d dogs (average weight %s), %d toys, %d people, %d companies",
        #dogs, tostring(dogs:average("weight") or "-"), #realm:objects("DogToy"), #realm:objects("Person"),
        #realm:objects("Company"))
    end,
  },

  -- What apps reach at /v1/objects (realm-host serve): dogs and toys read and written, people read.
  api = { Dog = "readwrite", DogToy = "readwrite", Person = "read" },

  -- What apps call at POST /v1/functions/{name}: f(realm, args, caller), args the JSON body.
  functions = {
    -- { "person": "Ann", "dog": "Rex" }: Ann adopts Rex (both created when missing), in one write.
    adopt = function(realm, args, caller)
      assert(type(args.person) == "string" and type(args.dog) == "string",
        "adopt needs { person = <first name>, dog = <dog name> }")
      return realm:write(function()
        local person = realm:objects("Person"):where("firstName == $0", args.person)[1]
          or realm:create("Person", { firstName = args.person, household = caller.user })
        local dog = realm:objects("Dog"):where("name == $0", args.dog)[1]
          or realm:create("Dog", { name = args.dog, household = caller.user })
        person.dogs:append(dog)
        return person
      end)
    end,
    -- The dogs heavier than args.minWeight (0 by default), lightest first.
    heavyDogs = function(realm, args)
      return realm:objects("Dog"):where("weight > $0", args.minWeight or 0):sorted("weight")
    end,
    -- Who is calling: the user and the token's claims.
    whoami = function(realm, args, caller)
      return { user = caller.user, claims = caller.claims }
    end,
  },
}
