-- crash (found by realm-fuzz binding, seed 4): List.insert at index math.mininteger.
return R["List/li"]:insert(3, math.mininteger)
