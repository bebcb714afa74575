/// The sizes a frame may have. The defaults follow Atlas's published limits (docs: sync-reference
/// §1.11): a message from a client is at most 20 MB as sent (compressed); the inflated body is
/// bounded too, so a small deflate stream cannot make a reader allocate without end.
public struct WireLimits: Hashable, Sendable {
    /// The whole frame as sent: head line, newline and body.
    public var maxFrameBytes: Int
    /// The head line without its newline (a token included).
    public var maxHeadBytes: Int
    /// The body once inflated.
    public var maxInflatedBodyBytes: Int
    /// Bodies longer than this are deflated (kept plain when deflate does not make them shorter).
    public var deflateAbove: Int

    public init(
        maxFrameBytes: Int = 20 << 20, maxHeadBytes: Int = 4096, maxInflatedBodyBytes: Int = 64 << 20,
        deflateAbove: Int = 1024
    ) {
        self.maxFrameBytes = maxFrameBytes
        self.maxHeadBytes = maxHeadBytes
        self.maxInflatedBodyBytes = maxInflatedBodyBytes
        self.deflateAbove = deflateAbove
    }

    public static let standard = WireLimits()
}
