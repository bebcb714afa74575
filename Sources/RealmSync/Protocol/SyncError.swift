/// realm-core's protocol error codes that RealmHost's sync uses (100–199 connection, 200–299 session;
/// realm-core `src/realm/sync/protocol.hpp`, `ProtocolError`).
public enum SyncErrorCode: UInt16, Hashable, Sendable {
    case unknownMessage = 102
    case badSyntax = 103
    case otherError = 105
    case badDecompression = 111
    case limitsExceeded = 115
    case badSession = 116
    /// The user's token was refused (forged, expired, another algorithm) or names another user.
    case badAuthentication = 203
    case badClientFileIdentifier = 208
    case badServerVersion = 209
    case badClientVersion = 210
    case divergingHistories = 211
    case badChangeset = 212
    case clientFileExpired = 222
    case userMismatch = 223
    case invalidSchemaChange = 225
    case badQuery = 226
    case writeNotAllowed = 230
    case compensatingWrite = 231
    /// A changeset's clock is further ahead of the server's wall clock than it tolerates.
    case clockTooFarAhead = 240
    /// Not sent by a server: what a replica reports when the server asked it to reset its file
    /// (realm-core's `ErrorCodes::SyncClientResetRequired`); the message names the server's reason.
    case clientReset = 1032
}

/// A sync failure: what went wrong and where, in words a user can act on.
public struct SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: SyncErrorCode
    public var message: String

    public init(_ code: SyncErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (sync error \(code.rawValue))" }
}
