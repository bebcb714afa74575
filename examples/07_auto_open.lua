-- Scenario 3, AutoOpen: open at once with the data on disk when the server is down or slow, and
-- sync in the background once it answers (RealmSwift's @AutoOpen).
-- Run: realm-host run --sync-url ws://127.0.0.1:7800/sync --sync-secret-file server/sync-secret \
--        --data hostB --user alice examples/07_auto_open.lua [DOG NAME]
-- With a dog's name it adds that dog, online or not: written offline, it goes to the server with
-- the next session that reaches it.

local config = user:flexibleSyncConfiguration{
  initialSubscriptions = function(subs)
    if subs:first("people") == nil then subs:append(QuerySubscription("Person", { name = "people" })) end
    if subs:first("dogs") == nil then subs:append(QuerySubscription("Dog", { name = "dogs" })) end
  end,
}

-- Waits at most 2 s for the server's data, and not at all once it cannot connect: then the file
-- on disk is what opens. autoOpen raises only what a local open would.
local realm = Realm.autoOpen(config, { timeout = 2000 })
local session = realm.syncSession
print("connection:", session and session.connectionState or "local")

local name = arg[1]
if name then
  realm:write(function()
    realm:create("Dog", { _id = UUID(), name = name, breed = "Mutt", weight = 10, household = user.name })
  end)
  -- Offline this is false after the timeout; the dog waits in the file for the server.
  print("uploaded:", session == nil or session:waitForUpload{ timeout = 1000 })
end

-- A subscription from a query: the heavy dogs (waits for the server only when the server is there).
local online = session ~= nil and session.connectionState == "connected"
local heavy = realm:objects("Dog"):where("weight > 5"):subscribe{
  name = "heavy", waitForSync = online and "onCreation" or "never", timeout = 5000 }
print("heavy dogs:", #heavy)

for i, dog in ipairs(realm:objects("Dog"):sorted("name")) do
  print("dog:", dog.name)
end
