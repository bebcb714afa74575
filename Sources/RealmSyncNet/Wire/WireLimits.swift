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
    /// The bytes one connection may have waiting to be sent (to a peer that reads slowly or not at
    /// all); past it the connection is closed (1008). Twice the frame limit unless given: a whole
    /// frame always fits while the reader waits (at half of it).
    public var maxQueuedBytes: Int

    public init(
        maxFrameBytes: Int = 20 << 20, maxHeadBytes: Int = 4096, maxInflatedBodyBytes: Int = 64 << 20,
        deflateAbove: Int = 1024, maxQueuedBytes: Int? = nil
    ) {
        self.maxFrameBytes = maxFrameBytes
        self.maxHeadBytes = maxHeadBytes
        self.maxInflatedBodyBytes = maxInflatedBodyBytes
        self.deflateAbove = deflateAbove
        self.maxQueuedBytes = maxQueuedBytes ?? (maxFrameBytes > Int.max / 2 ? Int.max : maxFrameBytes * 2)
    }

    public static let standard = WireLimits()

    /// The most bytes a message (a client's upload, a server's bootstrap) may take before framing,
    /// so that its frame (head line, newline, body: plain or deflated, never longer than plain)
    /// stays within the limits.
    public var messageBudget: Int {
        max(min(maxFrameBytes, maxInflatedBodyBytes) - maxHeadBytes - 1, 1)
    }
}
