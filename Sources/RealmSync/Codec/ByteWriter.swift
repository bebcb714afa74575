/// Appends the codec's primitives to a growing byte array: LEB128 varints (zigzag for signed),
/// little-endian fixed-width floats, and length-prefixed bytes and strings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    /// The header every top-level encoding starts with: its magic and the format version.
    mutating func header(magic: [UInt8]) {
        bytes.append(contentsOf: magic)
        bytes.append(CodecFormat.version)
    }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// Unsigned LEB128: seven bits per byte, low bits first, the high bit saying "more follows".
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }

    /// Zigzag keeps small negative numbers short: 0, -1, 1, -2 … become 0, 1, 2, 3 …
    mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func count(_ value: Int) { varint(UInt64(value)) }

    mutating func fixed(_ raw: some Sequence<UInt8>) { bytes.append(contentsOf: raw) }

    mutating func littleEndian(_ value: UInt64, width: Int) {
        for shift in stride(from: 0, to: width * 8, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func lengthPrefixed(_ raw: some Collection<UInt8>) {
        count(raw.count)
        bytes.append(contentsOf: raw)
    }

    mutating func string(_ value: String) { lengthPrefixed(value.utf8) }
}
