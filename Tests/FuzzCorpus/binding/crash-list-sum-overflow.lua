-- crash (found by realm-fuzz binding, seed 2027, after earlier calls had stored math.maxinteger):
-- the sum of a list of ints overflows.
R["List/lio"]:append(math.maxinteger)
return R["List/lio"]:sum()
