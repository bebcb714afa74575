/// The constants of RealmHost's sync encoding (format version 1). Every top-level encoding starts
/// with "RS", a byte naming what follows, and the format version; a decoder refuses any other
/// version rather than guess.
enum CodecFormat {
    static let version: UInt8 = 1
    static let valueMagic: [UInt8] = [0x52, 0x53, 0x56]  // "RSV"
    static let changesetMagic: [UInt8] = [0x52, 0x53, 0x43]  // "RSC"
    static let messageMagic: [UInt8] = [0x52, 0x53, 0x4D]  // "RSM"
    /// How deep embedded objects, lists and maps may nest inside one value. Decoding recurses once
    /// per level, so the limit also bounds the decoder's stack.
    static let maximumNesting = 32
}

/// The tag of each `SyncValue` kind.
enum ValueTag: UInt8 {
    case null = 0
    case `false`, `true`, int, float, double, string, data, date, decimal, objectId, uuid, link
    case embedded, list, map
}

/// The tag of each `SyncPrimaryKey` kind.
enum PrimaryKeyTag: UInt8 {
    case null = 0
    case int, string, objectId, uuid
}

/// The tag of each `Instruction` kind.
enum InstructionTag: UInt8 {
    case create = 1
    case erase, set, listInsert, listErase, listMove, listSet, listClear, setAdd, setRemove, mapPut
    case mapRemove
}

/// The tag of each `SyncMessage` kind.
enum MessageTag: UInt8 {
    case bind = 1
    case ident, identify, upload, download, bootstrap, mark, error, unbind, query, queryError
}
