/// The head line of a frame, fields separated by one space:
///
///     RSYNC/1 <kind> <session> <body length> <compressed 0|1> <inflated length> [<token>]
///
/// Numbers are decimal without sign or leading zeros; the token (bind only) is a JWT's characters.
/// The version comes first so a future head can change everything after it.
struct WireHead: Hashable {
    static let version = "RSYNC/1"
    /// Every version prefix this build recognises as ours (to say "unsupported" rather than "bad").
    static let versionPrefix = "RSYNC/"

    var kind: WireKind
    var session: UInt32
    var bodyLength: Int
    var compressed: Bool
    var inflatedLength: Int
    var token: String?

    var line: String {
        var fields = [
            Self.version, kind.rawValue, String(session), String(bodyLength), compressed ? "1" : "0",
            String(inflatedLength),
        ]
        if let token { fields.append(token) }
        return fields.joined(separator: " ")
    }

    /// Parses a head line (without its newline). Throws `WireError` naming the field at fault.
    init(parsing bytes: ArraySlice<UInt8>) throws {
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw WireError(.badHead, "the head line holds a byte that is not printable ASCII")
        }
        let fields = bytes.split(separator: 0x20, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard let version = fields.first, version == Self.version else {
            let found = fields.first ?? ""
            if found.hasPrefix(Self.versionPrefix) {
                throw WireError(.unsupportedVersion, "protocol version '\(found)' (this build speaks \(Self.version))")
            }
            throw WireError(.badHead, "the head line does not start with \(Self.version)")
        }
        guard fields.count == 6 || fields.count == 7 else {
            throw WireError(.badHead, "the head line has \(fields.count) fields, 6 or 7 expected")
        }
        guard let kind = WireKind(rawValue: fields[1]) else {
            throw WireError(.badHead, "field 2 (kind): unknown message kind '\(fields[1].prefix(40))'")
        }
        self.kind = kind
        session = try Self.number(fields[2], field: "3 (session)", maximum: UInt64(UInt32.max)).narrowed()
        bodyLength = try Self.number(fields[3], field: "4 (body length)", maximum: UInt64(Int32.max)).narrowed()
        switch fields[4] {
        case "0": compressed = false
        case "1": compressed = true
        default: throw WireError(.badHead, "field 5 (compressed): '\(fields[4].prefix(40))' is neither 0 nor 1")
        }
        inflatedLength = try Self.number(fields[5], field: "6 (inflated length)", maximum: UInt64(Int32.max)).narrowed()
        token = fields.count == 7 ? try Self.token(fields[6], kind: kind) : nil
    }

    init(kind: WireKind, session: UInt32, bodyLength: Int, compressed: Bool, inflatedLength: Int, token: String?) {
        self.kind = kind
        self.session = session
        self.bodyLength = bodyLength
        self.compressed = compressed
        self.inflatedLength = inflatedLength
        self.token = token
    }

    /// A canonical decimal number no larger than `maximum`.
    private static func number(_ text: String, field: String, maximum: UInt64) throws -> ParsedNumber {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            digits.count == 1 || digits.first != 0x30, let value = UInt64(text), value <= maximum
        else { throw WireError(.badHead, "field \(field): '\(text.prefix(40))' is not a number up to \(maximum)") }
        return ParsedNumber(value: value, field: field)
    }

    /// A token: only on a bind, and only a JWT's characters (base64url and dots).
    static func token(_ text: String, kind: WireKind) throws -> String {
        guard kind == .bind else { throw WireError(.badHead, "field 7 (token): only a bind carries a token") }
        guard !text.isEmpty, text.utf8.allSatisfy(Self.isTokenByte) else {
            throw WireError(.badHead, "field 7 (token): not a JWT's characters")
        }
        return text
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F, 0x2E: return true
        default: return false
        }
    }
}

/// A number checked against its field's maximum, converted without a trap.
private struct ParsedNumber {
    let value: UInt64
    let field: String

    func narrowed<T: FixedWidthInteger>() throws -> T {
        guard let narrowed = T(exactly: value) else {
            throw WireError(.badHead, "field \(field): \(value) is out of range")
        }
        return narrowed
    }
}
