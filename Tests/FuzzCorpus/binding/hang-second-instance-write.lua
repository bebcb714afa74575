-- hang (found by realm-fuzz binding, seed 1): a write on a second instance of a realm file whose first
-- instance is in a write blocks on SQLite's busy timeout (600 s), out of reach of the time limit.
local second = Realm(R["Realm/live"].configuration)
R["Realm/live"]:beginWrite()
second:beginWrite()
