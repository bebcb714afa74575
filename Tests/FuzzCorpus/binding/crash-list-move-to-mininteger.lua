-- crash (found by realm-fuzz binding, seed 1): List.move to math.mininteger.
return R["List/li"]:move(1, math.mininteger)
