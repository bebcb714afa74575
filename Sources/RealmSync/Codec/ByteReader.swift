/// Reads the codec's primitives from untrusted bytes. Every read checks the remaining input first,
/// so malformed input ends in a `SyncError` naming what was being read and at which byte, never in
/// a trap or an allocation larger than the input.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0
    /// The code errors carry: `.badChangeset` inside changesets and values, `.badSyntax` in messages.
    var code: SyncErrorCode
    /// What is being decoded, for messages ("changeset", "sync message", "value").
    let subject: String

    init(_ bytes: [UInt8], code: SyncErrorCode, subject: String) {
        self.bytes = bytes
        self.code = code
        self.subject = subject
    }

    var remaining: Int { bytes.count - offset }

    /// An error naming what is wrong and the byte where the faulty item starts (default: the current one).
    func error(_ what: String, at position: Int? = nil) -> SyncError {
        SyncError(code, "malformed \(subject): \(what) at byte \(position ?? offset) of \(bytes.count)")
    }

    /// Runs `body` with errors carrying `code` (a changeset inside a message is a bad changeset).
    mutating func with<T>(code: SyncErrorCode, _ body: (inout ByteReader) throws -> T) rethrows -> T {
        let saved = self.code
        self.code = code
        defer { self.code = saved }
        return try body(&self)
    }

    mutating func byte(_ what: String) throws -> UInt8 {
        guard offset < bytes.count else { throw error("truncated input reading \(what)") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func bool(_ what: String) throws -> Bool {
        switch try byte(what) {
        case 0: return false
        case 1: return true
        case let other: throw error("bad boolean \(other) for \(what)")
        }
    }

    /// Unsigned LEB128, at most ten bytes; refuses a value past 64 bits and an overlong encoding
    /// (a final zero byte after the first), so each value has exactly one encoding.
    mutating func varint(_ what: String) throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte(what)
            if shift == 63 && b > 1 { throw error("varint overflowing 64 bits in \(what)") }
            value |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 {
                if b == 0 && shift > 0 { throw error("overlong varint in \(what)") }
                return value
            }
            shift += 7
        }
    }

    mutating func zigzag(_ what: String) throws -> Int64 {
        let raw = try varint(what)
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    mutating func uint32(_ what: String) throws -> UInt32 {
        let raw = try varint(what)
        guard let value = UInt32(exactly: raw) else { throw error("\(what) \(raw) beyond 32 bits") }
        return value
    }

    /// A count of items each taking at least `minimumSize` bytes: refused when the rest of the input
    /// could not hold them, which bounds every allocation by the input's length.
    mutating func count(_ what: String, minimumSize: Int = 1) throws -> Int {
        let raw = try varint(what)
        guard let n = Int(exactly: raw), n <= remaining / max(1, minimumSize) else {
            throw error("\(what) \(raw) beyond the \(remaining) bytes left")
        }
        return n
    }

    mutating func fixed(_ length: Int, _ what: String) throws -> ArraySlice<UInt8> {
        guard length <= remaining else { throw error("truncated input reading \(what) (\(length) bytes)") }
        defer { offset += length }
        return bytes[offset..<(offset + length)]
    }

    mutating func littleEndian(width: Int, _ what: String) throws -> UInt64 {
        var value: UInt64 = 0
        for (i, b) in try fixed(width, what).enumerated() { value |= UInt64(b) << (8 * i) }
        return value
    }

    mutating func lengthPrefixed(_ what: String) throws -> ArraySlice<UInt8> {
        let length = try varint("the length of \(what)")
        guard let n = Int(exactly: length), n <= remaining else {
            throw error("length \(length) of \(what) beyond the \(remaining) bytes left")
        }
        return try fixed(n, what)
    }

    mutating func string(_ what: String) throws -> String {
        let start = offset
        let raw = try lengthPrefixed(what)
        // ASCII (most names and values) is valid UTF-8 as it is: validation cost more than decoding.
        let text = raw.withUnsafeBufferPointer { buffer -> String? in
            buffer.allSatisfy { $0 < 0x80 }
                ? String(decoding: buffer, as: UTF8.self) : String(validating: buffer, as: UTF8.self)
        }
        guard let text else { throw error("invalid UTF-8 in \(what)", at: start) }
        return text
    }

    /// The codec's header: its magic and the format version this build reads.
    mutating func header(magic: [UInt8]) throws {
        let found = try fixed(magic.count, "the magic")
        guard found.elementsEqual(magic) else { throw error("bad magic (not a RealmHost \(subject))") }
        let v = try byte("the format version")
        guard v == CodecFormat.version else {
            throw error("unknown format version \(v) (this build reads \(CodecFormat.version))")
        }
    }

    func expectEnd() throws {
        guard remaining == 0 else { throw error("\(remaining) trailing bytes") }
    }
}
