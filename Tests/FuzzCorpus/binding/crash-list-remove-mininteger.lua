-- crash (found by realm-fuzz binding, seed 4): List.remove of index math.mininteger.
return R["List/li"]:remove(math.mininteger)
