-- crash (found by probing past the avoided tostring crash): a date property set to a Date near
-- the earliest (setValue refuses the same value cleanly).
R["Object/live"].dt = Date(math.mininteger + 1)
