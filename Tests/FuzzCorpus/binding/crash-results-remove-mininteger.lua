-- crash (found by realm-fuzz binding, seed 4): Results.remove of index math.mininteger.
return R["Results/live"]:remove(math.mininteger)
