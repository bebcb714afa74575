-- crash (found by realm-fuzz binding, seed 7): an infinite number stored in a decimal128 property.
R["Object/live"].dec = math.huge
