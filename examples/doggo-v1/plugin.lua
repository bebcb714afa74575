-- DoggoDB as it was at schema version 1 (a dog's favorite toy was a string, no favoriteTreat).
-- Start a realm with it, then migrate with the current plugin:
--   realm-host run --plugins examples/doggo-v1 --user alice examples/v1_add_dogs.lua
--   realm-host migrate --all-users
return {
  name = "doggo",
  version = "1.0.0",
  description = "DoggoDB, schema version 1",
  schemaVersion = 1,
  schema = {
    { name = "Dog", primaryKey = "_id", properties = {
        { name = "_id", type = "uuid" },
        { name = "name", type = "string" },
        { name = "breed", type = "string" },
        { name = "weight", type = "int" },
        { name = "favoriteToy", type = "string" },
        { name = "profileImageUrl", type = "string?" },
    } },
    { name = "Person", primaryKey = "_id", properties = {
        { name = "_id", type = "objectId" },
        { name = "firstName", type = "string" },
        { name = "lastName", type = "string" },
        { name = "dogs", type = "Dog[]" },
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
}
