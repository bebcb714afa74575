-- crash (found by realm-fuzz binding, seed 3): list[math.mininteger] = v.
R["List/li"][math.mininteger] = 1
