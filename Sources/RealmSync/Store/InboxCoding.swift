/// How an upload and its outcome are kept in a shared store's inbox. Both reuse the wire's message
/// encoding (`SyncMessageCodec`), so the inbox needs no format of its own:
/// - an upload is its writer (a `bind` naming the user, then a `query` with the subscription set the
///   writer's view was compiled from), when it has one, and an `upload` with its changesets;
/// - an outcome is a `download` whose acknowledgement is the client version integrated and whose
///   compensating writes are the refusals, or an `error` when the whole upload was refused.
enum InboxCoding {
    static func body(of upload: Upload) -> [UInt8] {
        var writer = ByteWriter()
        writer.header(magic: CodecFormat.messageMagic)
        if let uploadWriter = upload.writer {
            writer.bool(true)
            writer.lengthPrefixed(
                SyncMessageCodec.encode(.bind(session: 0, user: uploadWriter.user, needsClientFileID: false)))
            let query = uploadWriter.query ?? QuerySet(version: 0, subscriptions: [])
            writer.lengthPrefixed(SyncMessageCodec.encode(.query(session: 0, query: query)))
        } else {
            writer.bool(false)
        }
        writer.lengthPrefixed(SyncMessageCodec.encode(.upload(session: 0, changesets: upload.changesets)))
        return writer.bytes
    }

    /// The upload kept as `record`, its writer's view compiled again by `compile` from the user and
    /// subscription set it was written under. Throws a `SyncError` naming the inbox entry when the
    /// body is malformed, or the view's error when the set no longer compiles.
    static func upload(
        from record: InboxUpload, compile: (_ user: String, _ query: QuerySet) throws -> [String: ViewPredicate]
    ) throws -> Upload {
        var reader = ByteReader(record.body, code: .otherError, subject: "inbox upload \(record.id)")
        try reader.header(magic: CodecFormat.messageMagic)
        var writer: UploadWriter?
        if try reader.bool("writer flag") {
            guard case .bind(_, let user, _) = try message(&reader, "writer"),
                case .query(_, let query) = try message(&reader, "writer's subscription set")
            else { throw reader.error("a writer that is not a bind and a query") }
            writer = UploadWriter(user: user, view: try compile(user, query), query: query)
        }
        guard case .upload(_, let changesets) = try message(&reader, "changesets") else {
            throw reader.error("changesets that are not an upload")
        }
        try reader.expectEnd()
        return Upload(clientFileID: record.clientFileID, changesets: changesets, writer: writer)
    }

    static func outcome(_ outcome: UploadOutcome) -> [UInt8] {
        switch outcome {
        case .acknowledged(let clientVersion, let compensating):
            return SyncMessageCodec.encode(
                .download(
                    session: 0, downloadCursor: 0, uploadAcknowledged: clientVersion, changesets: [], replacements: [],
                    removals: [], compensating: compensating))
        case .refused(let error):
            return SyncMessageCodec.encode(
                .error(session: 0, code: error.code, message: error.message, tryAgain: false))
        }
    }

    static func outcome(from bytes: [UInt8]) throws -> UploadOutcome {
        switch try SyncMessageCodec.decode(bytes) {
        case .download(_, _, let acknowledged, _, _, _, let compensating):
            return .acknowledged(clientVersion: acknowledged, compensating: compensating)
        case .error(_, let code, let message, _):
            return .refused(SyncError(code, message))
        default:
            throw SyncError(.otherError, "an inbox outcome that is neither a download nor an error")
        }
    }

    private static func message(_ reader: inout ByteReader, _ what: String) throws -> SyncMessage {
        let bytes = try reader.lengthPrefixed(what)
        return try SyncMessageCodec.decode(Array(bytes))
    }
}
