-- Scenario 5: an explicit write with frozen data.
-- Run: realm-host run examples/05_frozen_thaw_write.lua

-- A company with an employee named Dachary and a dog named Maui.
realm:write(function()
  if realm:objects("Company"):where("companyName == $0", "MongoDB")[1] == nil then
    realm:create("Company", { companyName = "MongoDB", employees = { { name = "Dachary" } }, dogs = { { name = "Maui" } } })
  end
end)

-- The observed company is frozen: a snapshot that keeps its version; writes through it fail.
local frozenCompany = realm:objects("Company"):where("companyName == $0", "MongoDB"):freeze()[1]
print("frozen:", frozenCompany.isFrozen)
local ok, err = pcall(function() frozenCompany.companyName = "Realm" end)
print("write through the frozen object fails:", not ok)

-- Thaw it (company.thaw() / company.realm.thaw()), find the employee and the dog in the
-- company's lists, and append the dog to the employee's dogs in one explicit write.
local company = frozenCompany:thaw()
local liveRealm = frozenCompany.realm:thaw()
local employee = company.employees:where("name == $0", "Dachary")[1]
local dog = company.dogs:where("name == $0", "Maui")[1]
liveRealm:write(function()
  employee.dogs:append(dog)
end)
print(employee.name .. " now has " .. #employee.dogs .. " dog(s), the first: " .. employee.dogs[1].name)

-- The frozen snapshot still shows the version it was taken at.
print("frozen snapshot:", #frozenCompany.employees[1].dogs .. " dog(s) before this run's write")
