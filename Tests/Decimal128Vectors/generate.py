#!/usr/bin/env python3
"""Writes vectors.tsv: decimal128 test vectors computed by Python's `decimal` module.

Run from anywhere: `python3 Tests/Decimal128Vectors/generate.py`. The output is committed; the Swift
tests (Tests/RealmDatabaseTests/Decimal128Tests.swift) read it. Seeded, so reruns give the same file.

Context: decimal128 (precision 34, Emax 6144, Emin -6143, half-even, clamp=1), no traps, so
overflow gives Infinity and invalid operations NaN, as the IEEE operations do.

Expected values are canonical text (see `canon`): RealmHost keeps one form per value, so trailing
zeros are dropped (Python's normalize) and an integer below 10^34 is written with exponent 0.

Lines (tab-separated):
  parse  <text>  <expected>
  double <hex of the IEEE bits>  <expected: the double's exact value rounded half-even to 15
         significant digits, as realm-core's Decimal128(double) (RoundTo::Digits15) does>
  add    <x>  <y>  <expected x + y>
  sub    <x>  <y>  <expected x - y>
  mul    <x>  <y>  <expected x * y>
  div    <x>  <y>  <expected x / y>
  divint <x>  <n>  <expected x / n> (n a positive int64, as in an average)
  cmp    <x>  <y>  <-1|0|1 in Realm's order: NaN first, then by value>
"""
import decimal
import os
import random
import struct

SEED = 20261124
CTX = decimal.Context(prec=34, Emax=6144, Emin=-6143, rounding=decimal.ROUND_HALF_EVEN, clamp=1, traps=[])
# A double becomes a decimal of 15 significant digits, as in realm-core (Decimal128(double)).
DOUBLE_CTX = decimal.Context(prec=15, Emax=6144, Emin=-6143, rounding=decimal.ROUND_HALF_EVEN, clamp=1, traps=[])


def canon(d):
    if d.is_nan():
        return "NaN"
    if d.is_infinite():
        return "-Infinity" if d.is_signed() else "Infinity"
    if d.is_zero():
        return "0"
    n = CTX.normalize(d)
    if n.as_tuple().exponent >= 0 and n.copy_abs() < 10**34:
        return str(int(n))
    return str(n)


def realm_cmp(x, y):
    if x.is_nan() or y.is_nan():
        return (0 if y.is_nan() else -1) if x.is_nan() else 1
    return (x > y) - (x < y)


def random_coefficient(rng):
    shape = rng.random()
    if shape < 0.3:
        return rng.randint(0, 10**rng.randint(1, 6))
    if shape < 0.6:
        return rng.randint(0, 10**34 - 1)
    if shape < 0.8:
        return rng.choice([10**34 - 1, 10**33, 5 * 10**33, 10**33 - 1, 1, 5, 15, 25])
    return rng.randint(0, 10**rng.randint(1, 40))


def random_exponent(rng):
    shape = rng.random()
    if shape < 0.5:
        return rng.randint(-12, 4)
    if shape < 0.7:
        return rng.randint(-40, 40)
    return rng.choice([rng.randint(-6200, -6100), rng.randint(6050, 6160), rng.randint(-6176, 6111)])


def random_text(rng):
    special = rng.random()
    if special < 0.03:
        return rng.choice(["NaN", "nan", "-NaN", "Inf", "-Inf", "+Infinity", "-Infinity", "infinity"])
    c = random_coefficient(rng)
    e = random_exponent(rng)
    sign = rng.choice(["", "", "-", "+"])
    form = rng.random()
    digits = str(c)
    if form < 0.4:
        return f"{sign}{digits}E{e:+d}"
    if form < 0.7 and e < 0 and -e < 60:
        digits = digits.rjust(-e + 1, "0")
        return f"{sign}{digits[:e]}.{digits[e:]}"
    return f"{sign}{digits}e{e}"


def random_value(rng):
    return CTX.create_decimal(random_text(rng))


def random_double(rng):
    shape = rng.random()
    if shape < 0.1:
        return rng.choice([0.1, 0.2, 1e300, -1e300, 5e-324, 1.7976931348623157e308, float("inf"),
                           float("-inf"), float("nan"), 2.0**53, 1 / 3, -0.0, 123.45])
    if shape < 0.5:
        return rng.uniform(-1e6, 1e6)
    return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]


def lines(rng):
    for _ in range(1500):
        t = random_text(rng)
        yield f"parse\t{t}\t{canon(CTX.create_decimal(t))}"
    for _ in range(600):
        f = random_double(rng)
        bits = struct.unpack("<Q", struct.pack("<d", f))[0]
        yield f"double\t{bits:016x}\t{canon(DOUBLE_CTX.create_decimal_from_float(f))}"
    for op, fn in [("add", CTX.add), ("sub", CTX.subtract), ("mul", CTX.multiply), ("div", CTX.divide)]:
        for _ in range(700 if op == "add" else 400):
            x, y = random_value(rng), random_value(rng)
            if op in ("add", "sub") and rng.random() < 0.4:
                # Nearby exponents, so that digits overlap and carries and cancellations happen.
                y = CTX.create_decimal(f"{random_coefficient(rng)}E{x.as_tuple().exponent + rng.randint(-3, 3)}") \
                    if x.is_finite() else y
            x, y = CTX.create_decimal(canon(x)), CTX.create_decimal(canon(y))
            yield f"{op}\t{canon(x)}\t{canon(y)}\t{canon(fn(x, y))}"
    for _ in range(500):
        x = random_value(rng)
        n = rng.choice([1, 2, 3, 7, 9, 11, 1000, rng.randint(1, 2**63 - 1)])
        yield f"divint\t{canon(x)}\t{n}\t{canon(CTX.divide(CTX.create_decimal(canon(x)), n))}"
    for _ in range(800):
        x = random_value(rng)
        y = random_value(rng) if rng.random() < 0.7 else CTX.create_decimal(canon(x)) * rng.choice([1, -1])
        x, y = CTX.create_decimal(canon(x)), CTX.create_decimal(canon(y))
        yield f"cmp\t{canon(x)}\t{canon(y)}\t{realm_cmp(x, y)}"


def main():
    rng = random.Random(SEED)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors.tsv")
    with open(path, "w") as out:
        out.write(f"# generated by generate.py, seed {SEED}: do not edit\n")
        for line in lines(rng):
            out.write(line + "\n")


if __name__ == "__main__":
    main()
