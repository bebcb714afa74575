import RealmSync

/// Frames to bytes and back, within `WireLimits`. Decoding never traps: every malformation is a
/// `WireError` naming what and where.
public struct WireCodec: Hashable, Sendable {
    public var limits: WireLimits

    public init(limits: WireLimits = .standard) { self.limits = limits }

    private static let newline: UInt8 = 0x0A

    // MARK: Encoding

    /// The frame's bytes, its body deflated when longer than `limits.deflateAbove` (and shorter so).
    /// Throws `WireError(.tooLarge)` when the frame would be over the limits: the peer would refuse it.
    public func encode(_ frame: WireFrame) throws -> [UInt8] {
        if let token = frame.token { _ = try WireHead.token(token, kind: frame.kind) }
        guard frame.body.count <= limits.maxInflatedBodyBytes else {
            throw WireError(
                .tooLarge,
                "a \(frame.kind.rawValue) body of \(frame.body.count) bytes is over \(limits.maxInflatedBodyBytes)")
        }
        var body = frame.body
        var compressed = false
        if body.count > limits.deflateAbove, let deflated = Deflate.compress(body), deflated.count < body.count {
            body = deflated
            compressed = true
        }
        let head = WireHead(
            kind: frame.kind, session: frame.session, bodyLength: body.count, compressed: compressed,
            inflatedLength: frame.body.count, token: frame.token)
        let line = Array(head.line.utf8)
        guard line.count <= limits.maxHeadBytes else {
            throw WireError(.tooLarge, "a head line of \(line.count) bytes is over \(limits.maxHeadBytes)")
        }
        let total = line.count + 1 + body.count
        guard total <= limits.maxFrameBytes else {
            throw WireError(
                .tooLarge, "a \(frame.kind.rawValue) frame of \(total) bytes is over \(limits.maxFrameBytes)")
        }
        var bytes = line
        bytes.reserveCapacity(total)
        bytes.append(Self.newline)
        bytes += body
        return bytes
    }

    /// The frame of `message`, with `token` in its head (a bind's).
    public func encode(_ message: SyncMessage, token: String? = nil) throws -> [UInt8] {
        try encode(WireFrame(message, token: token))
    }

    // MARK: Decoding

    /// The frame in `bytes`, its body inflated. Throws `WireError`.
    public func decode(_ bytes: [UInt8]) throws -> WireFrame {
        guard bytes.count <= limits.maxFrameBytes else {
            throw WireError(.tooLarge, "a frame of \(bytes.count) bytes is over \(limits.maxFrameBytes)")
        }
        let headEnd = min(bytes.count, limits.maxHeadBytes + 1)
        guard let newline = bytes[..<headEnd].firstIndex(of: Self.newline) else {
            throw WireError(.badHead, "no newline ends a head line within the first \(limits.maxHeadBytes) bytes")
        }
        let head = try WireHead(parsing: bytes[..<newline])
        let body = Array(bytes[(newline + 1)...])
        guard body.count == head.bodyLength else {
            throw WireError(
                .lengthMismatch,
                "the head of a \(head.kind.rawValue) on session \(head.session) says \(head.bodyLength) body bytes, "
                    + "\(body.count) follow")
        }
        guard head.inflatedLength <= limits.maxInflatedBodyBytes else {
            throw WireError(
                .tooLarge, "an inflated body of \(head.inflatedLength) bytes is over \(limits.maxInflatedBodyBytes)")
        }
        let inflated: [UInt8]
        if head.compressed {
            inflated = try Deflate.decompress(body, expectedLength: head.inflatedLength)
        } else {
            guard head.inflatedLength == head.bodyLength else {
                throw WireError(
                    .lengthMismatch,
                    "a plain body of \(head.bodyLength) bytes cannot inflate to \(head.inflatedLength) bytes")
            }
            inflated = body
        }
        return WireFrame(kind: head.kind, session: head.session, token: head.token, body: inflated)
    }

    /// The message in `bytes` and the token its head carries. Throws `WireError`, `.badMessage` when
    /// the body does not decode or is not the kind or session its head says.
    public func decodeMessage(_ bytes: [UInt8]) throws -> (message: SyncMessage, token: String?) {
        let frame = try decode(bytes)
        let message: SyncMessage
        do {
            message = try SyncMessageCodec.decode(frame.body)
        } catch {
            throw WireError(
                .badMessage,
                "the body of a \(frame.kind.rawValue) on session \(frame.session) does not decode: \(error)")
        }
        guard WireKind(message) == frame.kind, message.session == frame.session else {
            throw WireError(
                .badMessage,
                "the head says \(frame.kind.rawValue) on session \(frame.session), the body is "
                    + "\(WireKind(message).rawValue) on session \(message.session)")
        }
        return (message, frame.token)
    }
}
