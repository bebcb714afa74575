-- Version 2 → 3: people, dogs and toys get a household, the field the sync rules read. A realm is
-- one user's, so everything already in it belongs to that user's household.
return function(migration, oldSchemaVersion)
  for _, className in ipairs({ "Person", "Dog", "DogToy" }) do
    migration:enumerateObjects(className, function(old, new)
      new.household = user.name
      -- Enumerating walks the objects the file had before the migration; the toys that step 0002
      -- created in this same migration (from a version 1 file) are reached through their dogs.
      if className == "Dog" and new.favoriteToy ~= nil then new.favoriteToy.household = user.name end
    end)
  end
end
