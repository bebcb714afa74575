-- Scenario 3: initial subscriptions (flexible sync).
-- Run: realm-host run examples/03_initial_subscriptions.lua

-- The seeds' block: check whether subscriptions named "people" and "dogs" exist, and add one for
-- every Person and one for every Dog if not. Linked objects are not included automatically:
-- subscribe to every class you need.
local config = user:flexibleSyncConfiguration{
  initialSubscriptions = function(subs)
    if subs:first("people") == nil then subs:append(QuerySubscription("Person", { name = "people" })) end
    if subs:first("dogs") == nil then subs:append(QuerySubscription("Dog", { name = "dogs" })) end
  end,
  rerunOnOpen = true,   -- run the block on every open: the checks above make that safe
}
config.fileURL = user.name .. ".synced.realm"

local synced = Realm(config)
local subs = synced.subscriptions
for i, sub in ipairs(subs) do
  print(i, sub.name, sub.objectClassName, sub.queryString)
end
print("state:", subs.state)

-- Adding a subscription under a name already taken is an error: the reason for the checks.
local ok, err = pcall(function()
  subs:update(function(s) s:append(QuerySubscription("Dog", { name = "dogs", where = "weight > 20" })) end)
end)
print("append 'dogs' again:", ok, err)

-- Opening again reruns the block (rerunOnOpen) and changes nothing.
print("after reopening:", #Realm(config).subscriptions .. " subscriptions")

-- The users' realms get the same two subscriptions from the doggo plugin.
print("this user's realm:", #realm.subscriptions .. " subscriptions")
