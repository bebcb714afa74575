-- Scenario 3, AsyncOpen: download first, then open (RealmSwift's @AsyncOpen).
-- Run: realm-host run --sync-url ws://127.0.0.1:7800/sync --sync-secret-file server/sync-secret \
--        --data hostA --user alice examples/06_async_open.lua [DOG NAME]
-- With a dog's name it adds that dog (in the user's household) and waits until the server has it.
-- Without --sync-url the realm is local and opens at once.

-- The seeds' subscriptions: every Person and every Dog, added once (checked by name).
local config = user:flexibleSyncConfiguration{
  initialSubscriptions = function(subs)
    if subs:first("people") == nil then subs:append(QuerySubscription("Person", { name = "people" })) end
    if subs:first("dogs") == nil then subs:append(QuerySubscription("Dog", { name = "dogs" })) end
  end,
  errorHandler = function(err) print("sync error:", err.code, err.message) end,
}

-- The states @AsyncOpen shows: connecting, waitingForUser, progress (0..1), open, or error. The
-- timeout bounds the wait for the server's data; past it asyncOpen raises, naming the server.
local realm = Realm.asyncOpen(config, {
  timeout = 10000,
  onState = function(state, info)
    if state == "progress" then
      print("state:", state, string.format("%.0f%%", info * 100))
    elseif state ~= "error" then
      print("state:", state)
    end
  end,
})

local name = arg[1]
if name then
  local dogs = realm:objects("Dog")
  if #dogs:where("name == $0", name) == 0 then
    realm:write(function()
      realm:create("Dog", { _id = UUID(), name = name, breed = "Mutt", weight = 10, household = user.name })
    end)
  end
end
-- Commits made offline by an earlier run (AutoOpen's) go now too: wait until the server has them.
local session = realm.syncSession
print("uploaded:", session == nil or session:waitForUpload{ timeout = 10000 })

-- What this user's realm holds: everything the subscriptions brought, from any host.
for i, dog in ipairs(realm:objects("Dog"):sorted("name")) do
  print("dog:", dog.name, dog.household)
end
print(user.name .. " has " .. #realm:objects("Dog") .. " dog(s)")
