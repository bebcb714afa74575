import Foundation

/// The stored form of a decimal128: 16 bytes whose unsigned big-endian order is Realm's order of
/// the values, so SQLite's own `=`, `<`, `ORDER BY`, `MIN`, `MAX` and indexes on the BLOB column are
/// right without a function call.
///
/// As a 128-bit integer: NaN is 0, −Infinity 1, zero 2^127, +Infinity 2^128 − 1; a finite nonzero
/// value is 2^127 ± m, where m = (adjusted exponent + 6176) × 2^113 + the coefficient padded to 34
/// digits (both fit: 12321 exponents take 14 bits, 10^34 < 2^113), minus for negative values so
/// that a larger magnitude sorts lower.
extension Decimal128 {
    private static let middle: UInt128 = 1 << 127
    private static let coefficientBits = 113
    private static let exponentBias = 6176

    var orderKey: UInt128 {
        switch kind {
        case .nan: return 0
        case .infinity: return isNegative ? 1 : .max
        case .finite:
            if coefficient == 0 { return Self.middle }
            let count = Self.digitCount(coefficient)
            let biased = UInt128(truncatingIfNeeded: exponent + count - 1 + Self.exponentBias)
            let magnitude = biased << Self.coefficientBits | coefficient * Self.power10(Self.precision - count)
            return isNegative ? Self.middle - magnitude : Self.middle + magnitude
        }
    }

    /// The value of an order key; nil for 128 bits that no decimal128 produces.
    init?(orderKey key: UInt128) {
        switch key {
        case 0: self = .nan
        case 1: self = .negativeInfinity
        case .max: self = .infinity
        case Self.middle: self = .zero
        default:
            let negative = key < Self.middle
            let magnitude = negative ? Self.middle - key : key - Self.middle
            let padded = magnitude & ((1 << Self.coefficientBits) - 1)
            let biased = Int(truncatingIfNeeded: magnitude >> Self.coefficientBits)
            guard padded >= Self.power10(Self.precision - 1), padded < Self.coefficientLimit,
                biased <= Self.exponentBias + Self.maxAdjustedExponent
            else { return nil }
            let exponent = biased - Self.exponentBias - (Self.precision - 1)
            self = Self.rounded(negative: negative, digits: Self.digits(of: padded), exponent: exponent)
        }
    }

    /// The 16 stored bytes (big-endian order key).
    public var storedBytes: Data {
        var key = orderKey
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in stride(from: 15, through: 0, by: -1) {
            bytes[i] = UInt8(truncatingIfNeeded: key)
            key >>= 8
        }
        return Data(bytes)
    }

    /// The value of 16 stored bytes; nil when they are not a stored decimal128.
    public init?(storedBytes data: Data) {
        guard data.count == 16 else { return nil }
        var key: UInt128 = 0
        for b in data { key = key << 8 | UInt128(b) }
        self.init(orderKey: key)
    }
}
