-- crash (found by realm-fuzz binding, seed 1): List.move with an index of math.mininteger.
return R["List/li"]:move(math.mininteger, 1)
