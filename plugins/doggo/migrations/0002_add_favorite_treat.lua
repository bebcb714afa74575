-- Version 1 → 2: every dog gets a favorite treat, and its favorite toy (a name until now)
-- becomes a link to a DogToy, one toy per distinct name.
return function(migration, oldSchemaVersion)
  local toys = {}
  migration:enumerateObjects("Dog", function(old, new)
    new.favoriteTreat = "bone"
    local toyName = old.favoriteToy
    if type(toyName) == "string" and toyName ~= "" then
      local toy = toys[toyName]
      if toy == nil then
        toy = migration:create("DogToy", { name = toyName })
        toys[toyName] = toy
      end
      new.favoriteToy = toy
    end
  end)
end
