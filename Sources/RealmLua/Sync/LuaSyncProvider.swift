import Foundation
import RealmDatabase

/// What the host gives the Lua API so that flexible-sync configurations sync: RealmLua knows no sync
/// engine and no network (RealmHost implements this over RealmSync's client and a transport). A
/// runtime without a provider opens flexible-sync configurations as local realms.
public protocol LuaSyncProvider: AnyObject {
    /// The server's address, for messages (`ws://127.0.0.1:7800/sync`).
    var serverURL: String { get }
    /// False when the host has no secret to sign its users' tokens with (`asyncOpen` reports
    /// `waitingForUser`).
    var canSignIn: Bool { get }
    /// Opens the synced realm of `configuration` (a flexible-sync one) and starts or joins its file's
    /// session; does not wait for the server.
    func open(_ configuration: Realm.Configuration) throws -> LuaSyncedRealm
    /// As `open(_:)`, the file's session doing what `clientResetMode` says when the server asks for a
    /// client reset (`recoverUnsyncedChanges`, `discardUnsyncedChanges`, `manual`; the first open of
    /// a file decides).
    func open(_ configuration: Realm.Configuration, clientResetMode: String) throws -> LuaSyncedRealm
}

extension LuaSyncProvider {
    /// A provider without client resets opens as `open(_:)`.
    public func open(_ configuration: Realm.Configuration, clientResetMode: String) throws -> LuaSyncedRealm {
        try open(configuration)
    }
}

/// A realm instance a script uses and the session syncing its file.
public struct LuaSyncedRealm {
    public let realm: Realm
    public let session: any LuaSyncSession

    public init(realm: Realm, session: any LuaSyncSession) {
        self.realm = realm
        self.session = session
    }
}

/// One realm file's sync session as scripts see it (`realm.syncSession`). Every member answers at
/// once: the waits are loops in the bindings (`SyncWait`), which poll these.
public protocol LuaSyncSession: AnyObject {
    /// `active`, or `inactive` once paused.
    var state: String { get }
    /// The host's connection: `disconnected`, `connecting` or `connected`.
    var connectionState: String { get }
    /// Why the last connection attempt failed, if it did.
    var lastConnectionError: String? { get }
    /// Why the session failed (a refused bind, a message it could not apply), if it did.
    var sessionError: String? { get }
    /// The fraction (0…1) of the bootstrap arriving, nil before one (`asyncOpen`'s `progress`).
    var bootstrapProgress: Double? { get }
    /// Sends the local commits not sent yet.
    func flush()
    /// True when the server acknowledged every local commit.
    var isUploaded: Bool { get }
    /// Asks the server to answer once everything it had is sent; the request's number.
    func requestDownloadMark() -> UInt64
    /// Whether the server answered the request `mark` (and so everything before it is integrated).
    func isMarkAnswered(_ mark: UInt64) -> Bool
    /// The errors reported since the last call (compensating writes among them), oldest first.
    func takeErrorReports() -> [LuaSyncErrorReport]
    func pause()
    func resume()
}

extension LuaSyncSession {
    /// A session that cannot tell reports no fraction: `asyncOpen` then says 0 and 1 only.
    public var bootstrapProgress: Double? { nil }
}

/// A sync error as `errorHandler` receives it: `err.code`, `err.message`, `err.kind`,
/// `err.compensatingWrites`.
public struct LuaSyncErrorReport {
    public var code: Int
    public var message: String
    public var compensatingWrites: [LuaCompensatingWrite]
    /// `clientReset` (code 1032, realm-core's `SyncClientResetRequired`), `compensatingWrite` (231),
    /// or `session` (the session ended: a refused bind, a message it could not apply).
    public var kind: String {
        switch code {
        case 1032: return "clientReset"
        case 231: return "compensatingWrite"
        default: return "session"
        }
    }

    public init(code: Int, message: String, compensatingWrites: [LuaCompensatingWrite] = []) {
        self.code = code
        self.message = message
        self.compensatingWrites = compensatingWrites
    }

    /// The report as a person reads it, a line per object the server undid (what was printed when
    /// no `errorHandler` takes it, and what the REPL's `.sync` lists).
    public var lines: [String] {
        guard !compensatingWrites.isEmpty else { return ["sync error \(code) (\(kind)): \(message)"] }
        return compensatingWrites.map { write in
            "sync: the server undid a write to \(write.className) \(write.primaryKey.literal): \(write.reason)"
        }
    }
}

extension RealmValue {
    /// A primary key as a message shows it: a string quoted, anything else as it prints.
    fileprivate var literal: String {
        if case .string(let text) = self { return "'\(text)'" }
        return "\(self)"
    }
}

/// One object the server reverted: `{ class =, primaryKey =, reason = }`.
public struct LuaCompensatingWrite {
    public var className: String
    public var primaryKey: RealmValue
    public var reason: String

    public init(className: String, primaryKey: RealmValue, reason: String) {
        self.className = className
        self.primaryKey = primaryKey
        self.reason = reason
    }
}
