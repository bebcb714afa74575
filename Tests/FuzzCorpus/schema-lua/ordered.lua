{ { name = "Event", properties = {
    { name = "at", type = "date" }, { name = "kind", type = "string", indexed = true, default = "open" },
    { name = "score", type = "float", optional = true }, { name = "payload", type = "data?" },
    { name = "amount", type = "decimal128" }, { name = "ref", type = "object", objectType = "Event" },
    { name = "history", type = "dictionary", objectType = "Event", optional = true } } } }
