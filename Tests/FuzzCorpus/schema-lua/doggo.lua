{
  { name = "Dog", primaryKey = "_id", properties = {
      _id = "uuid", name = "string", breed = "string?", age = "int", weight = "double",
      favoriteToy = "DogToy?", tags = "string[]", nicknames = "string<>", attributes = "mixed{}",
      owners = { type = "linkingObjects", objectType = "Person", property = "dogs" } } },
  { name = "DogToy", primaryKey = "_id", properties = { _id = "objectId", name = "string" } },
  { name = "Person", primaryKey = "_id", properties = {
      _id = "objectId", firstName = "string", lastName = "string", dogs = "Dog[]", address = "Address?" } },
  { name = "Address", embedded = true, properties = { street = "string", city = "string" } },
}
