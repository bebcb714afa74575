-- crash: the earliest Date appended to a list of dates (also Set.contains, map["k"] = v, realm:create).
return R["List/ldt"]:append(Date(math.mininteger))
