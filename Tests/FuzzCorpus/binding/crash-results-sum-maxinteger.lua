-- crash (minimized from the above): Results.sum of an int property holding math.maxinteger
-- ("Double value cannot be converted to Int64 because the result would be greater than Int64.max").
R["Object/live"].i = math.maxinteger
return R["Results/live"]:sum("i")
