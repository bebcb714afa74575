import LuaSandbox

/// The numbers of `host.lua` and of plugin limits: their documented ranges and their checked
/// reading. A number out of range, fractional where an integer is needed, NaN or infinite is an
/// error naming the file and the field, never a trap or a silently wrapped value.
enum HostNumbers {
    /// `timeSeconds`: a millisecond to 30 days per outermost call.
    static let timeSeconds: ClosedRange<Double> = 0.001...2_592_000
    /// `memoryMiB`: 1 MiB to 1 TiB.
    static let memoryMiB: ClosedRange<Int> = 1...1_048_576
    /// `instructions`: any positive count.
    static let instructions: ClosedRange<Int> = 1...Int(Int64.max)
    /// `cacheSize`: open realms kept, 1 to 100,000.
    static let cacheSize: ClosedRange<Int> = 1...100_000

    /// An integer field (an integral float counts): nil when absent.
    static func integer(_ value: LuaValue, _ range: ClosedRange<Int>, _ field: String) throws -> Int? {
        if value.isNil { return nil }
        if let n = value.integerValue.flatMap({ Int(exactly: $0) }), range.contains(n) { return n }
        throw HostError.configuration(
            "\(field) must be an integer from \(range.lowerBound) to \(range.upperBound), got \(describe(value))")
    }

    /// A duration in seconds (fractions allowed): nil when absent.
    static func duration(_ value: LuaValue, _ field: String) throws -> Duration? {
        if value.isNil { return nil }
        let range = timeSeconds
        // Within the range, the nanoseconds (below 2^52) are exact in a double and fit an Int64.
        if let s = value.doubleValue, s.isFinite, range.contains(s),
            let ns = Int64(exactly: (s * 1e9).rounded())
        {
            return .nanoseconds(ns)
        }
        throw HostError.configuration(
            "\(field) must be a number of seconds from 0.001 to 2592000 (30 days), got \(describe(value))")
    }

    private static func describe(_ value: LuaValue) -> String {
        switch value {
        case .integer, .number: return "\(value)"
        default: return "a \(value.typeName)"
        }
    }
}
