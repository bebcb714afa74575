import RealmSync

/// One message on the wire: one WebSocket binary message holding an ASCII head line and a binary
/// body (`SyncMessageCodec`'s bytes). The head names the message's kind and session so a reader can
/// route and refuse before decoding the body; a BIND carries the user's token in its head, so the
/// engine's messages need not know about tokens.
public struct WireFrame: Hashable, Sendable {
    public var kind: WireKind
    public var session: UInt32
    /// The user's token (a JWT); only on `bind`.
    public var token: String?
    /// The body inflated: a `SyncMessageCodec` encoding.
    public var body: [UInt8]

    public init(kind: WireKind, session: UInt32, token: String? = nil, body: [UInt8]) {
        self.kind = kind
        self.session = session
        self.token = token
        self.body = body
    }

    /// The frame of `message`, its body encoded by `SyncMessageCodec`.
    public init(_ message: SyncMessage, token: String? = nil) {
        self.init(
            kind: WireKind(message), session: message.session, token: token, body: SyncMessageCodec.encode(message))
    }
}

/// The kinds of message, as the head line spells them.
public enum WireKind: String, Hashable, Sendable, CaseIterable {
    case bind, ident, identify, query
    case queryError = "query_error"
    case upload, download, bootstrap, mark, error, unbind

    public init(_ message: SyncMessage) {
        switch message {
        case .bind: self = .bind
        case .ident: self = .ident
        case .identify: self = .identify
        case .query: self = .query
        case .queryError: self = .queryError
        case .upload: self = .upload
        case .download: self = .download
        case .bootstrap: self = .bootstrap
        case .mark: self = .mark
        case .error: self = .error
        case .unbind: self = .unbind
        }
    }
}
