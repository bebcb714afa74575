-- crash: a mixed property set to the earliest Date.
R["Object/live"].m = Date(math.mininteger)
