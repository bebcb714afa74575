-- crash (found by realm-fuzz binding, seed 7): Set<decimal128>.contains of an infinite number.
return R["Set/sdec"]:contains(-math.huge)
