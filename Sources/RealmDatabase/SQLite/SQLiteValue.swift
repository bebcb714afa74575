import Foundation
import RealmValues

/// SQLite's five storage classes.
enum StorageClass {
    case null, integer, real, text, blob
}

/// A value as SQLite stores it, wherever it is: what `ValueCoding.decode` reads. The accessors
/// are only asked for the storage class the value has.
protocol StoredValue {
    var storageClass: StorageClass { get }
    var integer: Int64 { get }
    var real: Double { get }
    var text: String { get }
    var blob: Data { get }
}

extension SQLiteValue: StoredValue {
    var storageClass: StorageClass {
        switch self {
        case .null: return .null
        case .integer: return .integer
        case .real: return .real
        case .text: return .text
        case .blob: return .blob
        }
    }
    var integer: Int64 {
        if case .integer(let v) = self { return v }
        return 0
    }
    var real: Double {
        if case .real(let v) = self { return v }
        return 0
    }
    var text: String {
        if case .text(let v) = self { return v }
        return ""
    }
    var blob: Data {
        if case .blob(let v) = self { return v }
        return Data()
    }
}
