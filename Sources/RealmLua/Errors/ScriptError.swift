import Foundation
import LuaSandbox
import RealmDatabase

/// The error value scripts catch with `pcall` when the API fails: `e.code` (a stable name, see
/// `ScriptErrorCode`), `e.message`, and `tostring(e)` = `"chunk:line: message"` as a string error
/// would read. Any other field is nil. The host gets the Swift error in `LuaError.underlying`.
final class ScriptError {
    let code: String
    let message: String
    /// Where the calling Lua code was (`"chunk:line: "`), as Lua's `luaL_where` gives it.
    let position: String

    init(code: String, message: String, position: String) {
        self.code = code
        self.message = message
        self.position = position
    }
}

/// Stable names for errors scripts can match on: realm-core's error-code names (src/realm/error_codes.h,
/// `RLM_ERR_…` in CamelCase) where Realm has one, a CamelCase name of ours where it has none.
/// docs/LUA-API.md ("Errors") lists them; a name, once published, does not change.
public enum ScriptErrorCode {
    static let names: [RealmError.Code: String] = [
        .fileAccess: "FileOperationFailed",
        .fileNotFound: "FileNotFound",
        .notARealm: "InvalidDatabase",
        .corruptFile: "InvalidDatabase",
        .schemaValidation: "SchemaValidationFailed",
        .schemaMismatch: "SchemaMismatch",
        .invalidSchemaVersion: "InvalidSchemaVersion",
        .wrongTransactionState: "WrongTransactionState",
        .frozen: "FrozenObject",
        .readOnly: "ReadOnlyDB",
        .alreadyManagedByAnotherRealm: "ObjectManagedByAnotherRealm",
        .invalidatedObject: "InvalidatedObject",
        .primaryKeyExists: "ObjectAlreadyExists",
        .primaryKeyChange: "ModifyPrimaryKey",
        .invalidValue: "InvalidArgument",
        .invalidProperty: "InvalidProperty",
        .invalidClass: "NoSuchTable",
        .indexOutOfRange: "IndexOutOfBounds",
        .query: "InvalidQuery",
        .migration: "MigrationFailed",
        .maximumActiveVersions: "LimitExceeded",
        .notifications: "IllegalOperation",
        .subscription: "SubscriptionFailed",
        .sqlite: "StorageFailed",
        .internalError: "RuntimeError",
        .uniqueConstraint: "UniqueConstraintViolated",
        .notNullConstraint: "NotNullConstraintViolated",
        .checkConstraint: "CheckConstraintViolated",
        .constraint: "ConstraintViolated",
        .concurrentAccess: "WrongThread",
    ]

    /// The name of a database error code (a code added to RealmError without a name here reads
    /// as its Swift name, capitalized, rather than failing).
    public static func name(_ code: RealmError.Code) -> String {
        names[code] ?? code.rawValue.prefix(1).uppercased() + code.rawValue.dropFirst()
    }
}

extension RealmLuaRuntime {
    /// Registers the error type and makes the state raise it for database errors.
    func registerErrors() throws {
        // Only the two fields: any other key reads as nil.
        try state.registerType(
            ScriptError.self, name: "RealmError",
            metatable: LuaMetatable(
                fields: [
                    "code": { ctx in try ctx.returning(.string(try ctx.userdata(1, as: ScriptError.self).code)) },
                    "message": { ctx in try ctx.returning(.string(try ctx.userdata(1, as: ScriptError.self).message)) },
                ],
                metamethods: [
                    "__tostring": { ctx in
                        let error = try ctx.userdata(1, as: ScriptError.self)
                        return try ctx.returning(.string(error.position + error.message))
                    }
                ]))
        state.errorValue = { [unowned self] error, position in scriptError(error, position: position) }
    }

    /// The Lua value a Swift error raises: a `RealmError` userdata for database errors, nil (a
    /// plain string error) for the rest.
    private func scriptError(_ error: any Error, position: String) -> LuaValue? {
        guard let realmError = error as? RealmError else { return nil }
        let value = ScriptError(
            code: ScriptErrorCode.name(realmError.code), message: realmError.message,
            position: position)
        return try? box(value)
    }
}
