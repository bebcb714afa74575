-- crash: realm:create with the earliest Date in a date property.
return R["Realm/live"]:create("All", { _id = 50, dt = Date(math.mininteger) })
