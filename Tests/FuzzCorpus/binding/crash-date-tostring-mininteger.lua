-- crash (found by realm-fuzz binding, seed 2): tostring of the earliest Date.
return tostring(Date(math.mininteger))
