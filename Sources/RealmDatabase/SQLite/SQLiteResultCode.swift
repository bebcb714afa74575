import CSQLite

/// An SQLite result code, primary or extended, by name instead of by number.
///
/// The connection turns extended codes on, so an error carries the extended code
/// (`SQLITE_CONSTRAINT_NOTNULL` = 1299); its low byte is the primary code (`SQLITE_CONSTRAINT` = 19).
/// Compare primary codes with `primary`, extended codes with the value itself.
struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low byte of an extended code.
    var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xff) }

    var description: String { String(cString: sqlite3_errstr(rawValue)) + " (\(rawValue))" }

    // Primary codes this module branches on.
    static let ok = SQLiteResultCode(rawValue: SQLITE_OK)
    static let error = SQLiteResultCode(rawValue: SQLITE_ERROR)
    static let busy = SQLiteResultCode(rawValue: SQLITE_BUSY)
    static let locked = SQLiteResultCode(rawValue: SQLITE_LOCKED)
    static let corrupt = SQLiteResultCode(rawValue: SQLITE_CORRUPT)
    static let notADatabase = SQLiteResultCode(rawValue: SQLITE_NOTADB)
    static let constraint = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT)
    static let misuse = SQLiteResultCode(rawValue: SQLITE_MISUSE)

    // Extended constraint codes (sqlite3.h: `SQLITE_CONSTRAINT | (n << 8)`): Swift cannot import
    // these macros, so they are spelled out here, once.
    static let constraintCheck = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (1 << 8))
    static let constraintForeignKey = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (3 << 8))
    static let constraintNotNull = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (5 << 8))
    static let constraintPrimaryKey = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (6 << 8))
    static let constraintUnique = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
}

extension SQLiteError {
    /// The extended result code.
    var resultCode: SQLiteResultCode { SQLiteResultCode(rawValue: code) }
    /// The primary result code (the extended code's low byte).
    var primaryCode: SQLiteResultCode { resultCode.primary }
}
