import Foundation

/// Every error the database raises: a code to branch on and a message to show.
/// Messages reuse Realm's own wording where Realm has one, so users can search for them.
public struct RealmError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Code: String, Sendable, CaseIterable {
        case fileAccess, fileNotFound, notARealm, corruptFile
        case schemaValidation, schemaMismatch, invalidSchemaVersion
        case wrongTransactionState, frozen, readOnly
        case alreadyManagedByAnotherRealm, invalidatedObject, primaryKeyExists, primaryKeyChange
        case invalidValue, invalidProperty, invalidClass, indexOutOfRange
        case query, migration, maximumActiveVersions, notifications, subscription
        /// A value breaks a constraint of the stored table other than the primary key's uniqueness:
        /// NOT NULL, CHECK, or UNIQUE on another column (tables edited outside this library).
        case notNullConstraint, checkConstraint, uniqueConstraint, constraint
        case sqlite, internalError
        /// Two threads used one instance at once (detected in debug builds only).
        case concurrentAccess
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
    public var localizedDescription: String { message }

    static func wrap(_ error: Error, context: String) -> RealmError {
        if let e = error as? RealmError { return e }
        if let e = error as? SQLiteError { return RealmError(.sqlite, "\(context): \(e.message)") }
        return RealmError(.internalError, "\(context): \(error)")
    }

    // Realm's messages, in one place.
    static let alreadyInWrite = RealmError(.wrongTransactionState, "The Realm is already in a write transaction")
    static let notInWrite = RealmError(
        .wrongTransactionState, "Cannot modify managed objects outside of a write transaction.")
    public static let notInWriteToCancel = RealmError(
        .wrongTransactionState, "Can't cancel a non-existing write transaction")
    /// A migration block tried to end or start a write on the migration's realm, or a script used
    /// that realm after the migration returned.
    static let migrationTransaction = RealmError(
        .wrongTransactionState,
        "The migration's write transaction ends with the migration: "
            + "a migration block cannot begin, commit or cancel a write, "
            + "and the migration's realm cannot be used after it.")
    static func writeHeldOnThisThread(_ path: String) -> RealmError {
        RealmError(
            .wrongTransactionState,
            "Another instance of the realm at \(path) is in a write transaction on this thread: "
                + "this write would wait for it forever. Commit or cancel that write first.")
    }
    static let notInWriteToCommit = RealmError(.wrongTransactionState, "Can't commit a non-existing write transaction")
    static let frozenRealmWrite = RealmError(.frozen, "Can't perform transactions on a frozen Realm")
    static let frozenObjectWrite = RealmError(
        .frozen, "Attempting to modify a frozen object - call thaw on the Object instance first.")
    static let frozenCollectionWrite = RealmError(
        .frozen, "Attempting to modify a frozen collection - call thaw on the collection first.")
    static let readOnlyWrite = RealmError(.readOnly, "Can't perform transactions on read-only Realms.")
    static let alreadyManaged = RealmError(
        .alreadyManagedByAnotherRealm,
        "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
    static let invalidated = RealmError(.invalidatedObject, "Object has been deleted or invalidated.")
    static let addInvalidated = RealmError(
        .invalidatedObject, "Adding a deleted or invalidated object to a Realm is not permitted")
    static let unmanagedFreeze = RealmError(.invalidValue, "Unmanaged objects cannot be frozen.")
    static let frozenNotifications = RealmError(
        .notifications, "Frozen Realms do not change and do not have change notifications.")
    static let observeInWrite = RealmError(
        .notifications, "Cannot register notification blocks from within write transactions.")
}
