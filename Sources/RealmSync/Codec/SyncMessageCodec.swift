/// The binary encoding of every `SyncMessage`: the header, a tag per kind, then the kind's fields.
/// Changesets inside travel as `ChangesetCodec` bodies (each with its own name table).
public enum SyncMessageCodec {
    public static func encode(_ message: SyncMessage) -> [UInt8] {
        var writer = ByteWriter()
        writer.header(magic: CodecFormat.messageMagic)
        writer.message(message)
        return writer.bytes
    }

    /// The bytes `snapshot` takes inside a message.
    public static func encodedSize(of snapshot: ObjectSnapshot) -> Int {
        var writer = ByteWriter()
        writer.snapshot(snapshot)
        return writer.bytes.count
    }

    /// Throws `SyncError(.badSyntax)` for a malformed message and `SyncError(.badChangeset)` for a
    /// malformed changeset, value or snapshot inside one, naming what and where.
    public static func decode(_ bytes: [UInt8]) throws -> SyncMessage {
        var reader = ByteReader(bytes, code: .badSyntax, subject: "sync message")
        try reader.header(magic: CodecFormat.messageMagic)
        let message = try reader.message()
        try reader.expectEnd()
        return message
    }
}

extension ByteWriter {
    mutating func message(_ message: SyncMessage) {
        switch message {
        case .bind(let session, let user, let needsClientFileID):
            start(.bind, session)
            string(user)
            bool(needsClientFileID)
        case .ident(let session, let clientFileID, let salt):
            start(.ident, session)
            varint(clientFileID)
            varint(salt)
        case .identify(let session, let clientFileID, let salt, let downloadCursor, let query):
            start(.identify, session)
            varint(clientFileID)
            varint(salt)
            varint(downloadCursor)
            querySet(query)
        case .query(let session, let query):
            start(.query, session)
            querySet(query)
        case .queryError(let session, let version, let text):
            start(.queryError, session)
            varint(UInt64(bitPattern: version))
            string(text)
        case .upload(let session, let changesets):
            start(.upload, session)
            count(changesets.count)
            for c in changesets { changeset(c) }
        case .download(
            let session, let downloadCursor, let uploadAcknowledged, let changesets, let replacements, let removals,
            let compensating):
            start(.download, session)
            varint(downloadCursor)
            varint(uploadAcknowledged)
            count(changesets.count)
            for c in changesets { integratedChangeset(c) }
            count(replacements.count)
            for o in replacements { snapshot(o) }
            objectRefs(removals)
            count(compensating.count)
            for write in compensating {
                objectRef(write.object)
                string(write.reason)
                varint(write.serverVersion)
            }
        case .bootstrap(
            let session, let serverVersion, let latestClock, let uploadAcknowledged, let objects, let isLast,
            let progress, let queryVersion, let removals):
            start(.bootstrap, session)
            varint(serverVersion)
            varint(latestClock.rawValue)
            varint(uploadAcknowledged)
            count(objects.count)
            for o in objects { snapshot(o) }
            bool(isLast)
            littleEndian(progress.bitPattern, width: 8)
            varint(UInt64(bitPattern: queryVersion))
            objectRefs(removals)
        case .mark(let session, let requestID):
            start(.mark, session)
            varint(requestID)
        case .error(let session, let code, let text, let tryAgain):
            start(.error, session)
            varint(UInt64(code.rawValue))
            string(text)
            bool(tryAgain)
        case .unbind(let session):
            start(.unbind, session)
        }
    }

    private mutating func start(_ tag: MessageTag, _ session: UInt32) {
        byte(tag.rawValue)
        varint(UInt64(session))
    }

    private mutating func querySet(_ set: QuerySet) {
        varint(UInt64(bitPattern: set.version))
        count(set.subscriptions.count)
        for subscription in set.subscriptions {
            string(subscription.className)
            string(subscription.query)
        }
    }

    private mutating func objectRefs(_ refs: [ObjectRef]) {
        count(refs.count)
        for ref in refs { objectRef(ref) }
    }

    mutating func snapshot(_ s: ObjectSnapshot) {
        objectRef(s.object)
        namedValues(s.fields)
        count(s.lists.count)
        for list in s.lists {
            string(list.field)
            count(list.elements.count)
            for e in list.elements {
                elementID(e.id)
                position(e.position)
                value(e.value)
            }
        }
        count(s.sets.count)
        for set in s.sets {
            string(set.field)
            count(set.values.count)
            for v in set.values { value(v) }
        }
        count(s.maps.count)
        for map in s.maps {
            string(map.field)
            namedValues(map.entries)
        }
        snapshotTimes(s.times)
    }

    private mutating func writeTime(_ t: WriteTime) {
        varint(t.clock.rawValue)
        varint(t.clientFileID)
    }

    private mutating func snapshotTimes(_ t: SnapshotTimes) {
        varint(t.erasedAt)
        varint(t.erasedBy)
        count(t.fields.count)
        for field in t.fields {
            count(field.path.count)
            for name in field.path { string(name) }
            writeTime(field.time)
            varint(field.replacedAt)
            varint(field.replacedBy)
        }
        count(t.elements.count)
        for element in t.elements {
            string(element.field)
            elementID(element.id)
            writeTime(element.position)
            writeTime(element.value)
        }
        count(t.entries.count)
        for entry in t.entries {
            string(entry.field)
            value(entry.key)
            writeTime(entry.time)
        }
    }
}

extension ByteReader {
    mutating func message() throws -> SyncMessage {
        let raw = try byte("the message tag")
        guard let tag = MessageTag(rawValue: raw) else { throw error("unknown message tag \(raw)") }
        let session = try uint32("the session")
        switch tag {
        case .bind:
            let user = try string("the user")
            return .bind(session: session, user: user, needsClientFileID: try bool("needsClientFileID"))
        case .ident:
            let id = try varint("the client file id")
            return .ident(session: session, clientFileID: id, salt: try varint("the salt"))
        case .identify:
            let id = try varint("the client file id")
            let salt = try varint("the salt")
            let cursor = try varint("the download cursor")
            return .identify(
                session: session, clientFileID: id, salt: salt, downloadCursor: cursor, query: try querySet())
        case .query:
            return .query(session: session, query: try querySet())
        case .queryError:
            let version = Int64(bitPattern: try varint("the query version"))
            return .queryError(session: session, version: version, message: try string("the query error message"))
        case .upload:
            // A changeset takes at least its four numbers and two counts.
            let n = try count("the changeset count", minimumSize: 6)
            var changesets: [Changeset] = []
            changesets.reserveCapacity(n)
            for _ in 0..<n { changesets.append(try with(code: .badChangeset) { try $0.changeset() }) }
            return .upload(session: session, changesets: changesets)
        case .download:
            let cursor = try varint("the download cursor")
            let ack = try varint("the acknowledged client version")
            let n = try count("the changeset count", minimumSize: 8)
            var changesets: [IntegratedChangeset] = []
            changesets.reserveCapacity(n)
            for _ in 0..<n { changesets.append(try with(code: .badChangeset) { try $0.integratedChangeset() }) }
            let replacements = try snapshots()
            let removals = try objectRefs("the removal count")
            // A compensating write takes at least a class name length, a key tag, a reason length
            // and a version.
            let m = try count("the compensating write count", minimumSize: 4)
            var compensating: [CompensatingWrite] = []
            compensating.reserveCapacity(m)
            for _ in 0..<m {
                let object = try with(code: .badChangeset) { try $0.objectRef() }
                let reason = try string("the reason of a compensating write")
                compensating.append(
                    CompensatingWrite(
                        object: object, reason: reason, serverVersion: try varint("the version of a compensating write")
                    ))
            }
            return .download(
                session: session, downloadCursor: cursor, uploadAcknowledged: ack, changesets: changesets,
                replacements: replacements, removals: removals, compensating: compensating)
        case .bootstrap:
            return try bootstrap(session: session)
        case .mark:
            return .mark(session: session, requestID: try varint("the request id"))
        case .error:
            let rawCode = try varint("the error code")
            guard let small = UInt16(exactly: rawCode), let code = SyncErrorCode(rawValue: small) else {
                throw error("unknown error code \(rawCode)")
            }
            let text = try string("the error message")
            return .error(session: session, code: code, message: text, tryAgain: try bool("tryAgain"))
        case .unbind:
            return .unbind(session: session)
        }
    }

    private mutating func bootstrap(session: UInt32) throws -> SyncMessage {
        let serverVersion = try varint("the server version")
        let latestClock = HLCTimestamp(rawValue: try varint("the latest clock"))
        let uploadAcknowledged = try varint("the acknowledged client version")
        let objects = try snapshots()
        let isLast = try bool("isLast")
        let progress = Double(bitPattern: try littleEndian(width: 8, "the progress"))
        guard progress >= 0, progress <= 1 else { throw error("progress \(progress) outside 0…1") }
        let queryVersion = Int64(bitPattern: try varint("the query version"))
        return .bootstrap(
            session: session, serverVersion: serverVersion, latestClock: latestClock,
            uploadAcknowledged: uploadAcknowledged, objects: objects, isLast: isLast, progress: progress,
            queryVersion: queryVersion, removals: try objectRefs("the removal count"))
    }

    private mutating func snapshots() throws -> [ObjectSnapshot] {
        // A snapshot takes at least a class name length, a key tag, four counts, and its times: the
        // erase and its writer and three counts.
        let n = try count("the object count", minimumSize: 11)
        var objects: [ObjectSnapshot] = []
        objects.reserveCapacity(n)
        for _ in 0..<n { objects.append(try with(code: .badChangeset) { try $0.snapshot() }) }
        return objects
    }

    private mutating func objectRefs(_ what: String) throws -> [ObjectRef] {
        // An object reference takes at least a class name length and a key tag.
        let n = try count(what, minimumSize: 2)
        var refs: [ObjectRef] = []
        refs.reserveCapacity(n)
        for _ in 0..<n { refs.append(try with(code: .badChangeset) { try $0.objectRef() }) }
        return refs
    }

    private mutating func querySet() throws -> QuerySet {
        let version = Int64(bitPattern: try varint("the query version"))
        // A subscription takes at least two string lengths.
        let n = try count("the subscription count", minimumSize: 2)
        var subscriptions: [SubscriptionQuery] = []
        subscriptions.reserveCapacity(n)
        for _ in 0..<n {
            let className = try string("the class of a subscription")
            subscriptions.append(
                SubscriptionQuery(className: className, query: try string("the query of a subscription")))
        }
        return QuerySet(version: version, subscriptions: subscriptions)
    }

    mutating func snapshot() throws -> ObjectSnapshot {
        let object = try objectRef()
        let fields = try namedValues(depth: 0)
        let listCount = try count("the list count of a snapshot", minimumSize: 2)
        var lists: [ListSnapshot] = []
        lists.reserveCapacity(listCount)
        for _ in 0..<listCount {
            let field = try string("a list field")
            // An element takes at least three varints, a position and a value tag.
            let n = try count("the element count of a list", minimumSize: 6)
            var elements: [ListSnapshot.Element] = []
            elements.reserveCapacity(n)
            for _ in 0..<n {
                let id = try elementID()
                let p = try position()
                elements.append(ListSnapshot.Element(id: id, position: p, value: try value(depth: 0)))
            }
            lists.append(ListSnapshot(field: field, elements: elements))
        }
        let setCount = try count("the set count of a snapshot", minimumSize: 2)
        var sets: [SetSnapshot] = []
        sets.reserveCapacity(setCount)
        for _ in 0..<setCount {
            let field = try string("a set field")
            let n = try count("the value count of a set")
            var values: [SyncValue] = []
            values.reserveCapacity(n)
            for _ in 0..<n { values.append(try value(depth: 0)) }
            sets.append(SetSnapshot(field: field, values: values))
        }
        let mapCount = try count("the map count of a snapshot", minimumSize: 2)
        var maps: [MapSnapshot] = []
        maps.reserveCapacity(mapCount)
        for _ in 0..<mapCount {
            let field = try string("a map field")
            maps.append(MapSnapshot(field: field, entries: try namedValues(depth: 0)))
        }
        return ObjectSnapshot(
            object: object, fields: fields, lists: lists, sets: sets, maps: maps, times: try snapshotTimes())
    }

    private mutating func writeTime(_ what: String) throws -> WriteTime {
        let clock = HLCTimestamp(rawValue: try varint(what))
        return WriteTime(clock: clock, clientFileID: try varint(what))
    }

    private mutating func snapshotTimes() throws -> SnapshotTimes {
        var t = SnapshotTimes(erasedAt: try varint("the erase of a snapshot"), erasedBy: try varint("the eraser"))
        // A field time takes at least a path count, two varints of time and two of replacement.
        let fieldCount = try count("the field time count of a snapshot", minimumSize: 5)
        t.fields.reserveCapacity(fieldCount)
        for _ in 0..<fieldCount {
            let length = try count("the length of a timed path")
            var path: [String] = []
            path.reserveCapacity(length)
            for _ in 0..<length { path.append(try string("a timed path")) }
            t.fields.append(
                .init(
                    path: path, time: try writeTime("the time of a path"), replacedAt: try varint("a replacement"),
                    replacedBy: try varint("a replacer")))
        }
        // An element time takes at least a field length, three varints of id and four of time.
        let elementCount = try count("the element time count of a snapshot", minimumSize: 8)
        t.elements.reserveCapacity(elementCount)
        for _ in 0..<elementCount {
            let field = try string("a timed list field")
            let id = try elementID()
            t.elements.append(
                .init(
                    field: field, id: id, position: try writeTime("a position time"),
                    value: try writeTime("a value time")))
        }
        // An entry time takes at least a field length, a value tag and two varints of time.
        let entryCount = try count("the entry time count of a snapshot", minimumSize: 4)
        t.entries.reserveCapacity(entryCount)
        for _ in 0..<entryCount {
            let field = try string("a timed entry field")
            let key = try value(depth: 0)
            t.entries.append(.init(field: field, key: key, time: try writeTime("an entry time")))
        }
        return t
    }
}
