-- crash (found by realm-fuzz binding, seed 5): Decimal128 of an infinite number.
return Decimal128(math.huge)
