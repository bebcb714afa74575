import Foundation

/// A decimal number, as Realm's `Decimal128`: exact decimal arithmetic and ordering by value.
///
/// Backed by Foundation's `Decimal` (38 significant digits, which covers IEEE decimal128's 34).
/// Stored as its canonical text; `NaN` is kept as the text `NaN`.
public struct Decimal128: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let value: Decimal

    public init(_ value: Decimal) { self.value = value }
    public init(_ value: Int64) { self.value = Decimal(value) }
    public init(_ value: Double) { self.value = Decimal(value) }

    /// Parses a decimal literal (`1.5`, `-2e10`, `NaN`); nil when it is not one.
    public init?(string: String) {
        let trimmed = string.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "nan" {
            value = .nan
            return
        }
        guard !trimmed.isEmpty,
            trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
            let d = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        else { return nil }
        value = d
    }

    public var isNaN: Bool { value.isNaN }
    public var description: String { value.isNaN ? "NaN" : "\(value)" }
    public var doubleValue: Double { NSDecimalNumber(decimal: value).doubleValue }

    public static func < (a: Decimal128, b: Decimal128) -> Bool {
        if a.isNaN || b.isNaN { return false }
        return a.value < b.value
    }
}
