import Foundation
import Synchronization

/// A 12-byte BSON ObjectId: 4 bytes of seconds since the epoch, 5 random bytes, a 3-byte counter.
/// Ordered by its bytes, as Realm orders them.
public struct ObjectId: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    private static let processRandom: [UInt8] = (0..<5).map { _ in UInt8.random(in: 0...255) }
    private static let counter = Atomic<UInt32>(UInt32.random(in: 0..<0xFF_FFFF))

    /// A freshly generated ObjectId.
    public static func generate() -> ObjectId {
        let seconds = UInt32(truncatingIfNeeded: Int(Date().timeIntervalSince1970))
        let count = counter.add(1, ordering: .relaxed).newValue & 0xFF_FFFF
        var b = [UInt8](repeating: 0, count: 12)
        b[0] = UInt8(seconds >> 24)
        b[1] = UInt8((seconds >> 16) & 0xff)
        b[2] = UInt8((seconds >> 8) & 0xff)
        b[3] = UInt8(seconds & 0xff)
        for i in 0..<5 { b[4 + i] = processRandom[i] }
        b[9] = UInt8(count >> 16)
        b[10] = UInt8((count >> 8) & 0xff)
        b[11] = UInt8(count & 0xff)
        return ObjectId(uncheckedBytes: b)
    }

    init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }

    /// From 12 raw bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        self.bytes = bytes
    }

    /// From 24 hexadecimal digits; nil otherwise.
    public init?(string: String) {
        let utf8 = Array(string.utf8)
        guard utf8.count == 24 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(12)
        var i = 0
        while i < 24 {
            guard let hi = hexValue(utf8[i]), let lo = hexValue(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        bytes = out
    }

    public var stringValue: String { bytes.map { String(format: "%02x", $0) }.joined() }
    public var description: String { stringValue }

    /// The creation time embedded in the first four bytes.
    public var timestamp: Date {
        let s = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        return Date(timeIntervalSince1970: TimeInterval(s))
    }

    public static func < (a: ObjectId, b: ObjectId) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}

package func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}

extension UUID {
    /// The 16 bytes of the UUID, in order: UUIDs compare by these bytes in Realm.
    package var realmBytes: Data { withUnsafeBytes(of: uuid) { Data($0) } }

    package init?(realmBytes data: Data) {
        guard data.count == 16 else { return nil }
        var t: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &t) { $0.copyBytes(from: data) }
        self.init(uuid: t)
    }
}
