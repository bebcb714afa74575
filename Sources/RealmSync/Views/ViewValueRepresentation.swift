import Foundation
import RealmDatabase
import RealmQuery
import RealmValues

/// A `SyncValue` as RealmDatabase's query functions take it (`QueryRuntime.compare`, `stringOp`):
/// the evaluator (`ViewComparisonEvaluation`), which routing and every store's bootstrap
/// (`ViewScan`) run, converts through here, so sync has one comparison semantics, the local one.
enum ViewValueRepresentation {
    /// The value and its `MixedTag`, as a mixed column stores them. A NaN float or double is
    /// null: SQLite stores NaN as NULL, so that is what the local engine sees (a NaN constant is
    /// another matter: `ViewComparisonEvaluation` answers it as the local engine does).
    /// Collections, links and embedded objects are never queried; they read as null.
    static func tagged(_ value: SyncValue) -> (SQLiteValue, Int64) {
        switch value {
        case .null: return (.null, MixedTag.null.rawValue)
        case .bool(let b): return (.integer(b ? 1 : 0), MixedTag.bool.rawValue)
        case .int(let i): return (.integer(i), MixedTag.int.rawValue)
        case .float(let f):
            return f.isNaN ? (.null, MixedTag.null.rawValue) : (.real(Double(f)), MixedTag.float.rawValue)
        case .double(let d): return d.isNaN ? (.null, MixedTag.null.rawValue) : (.real(d), MixedTag.double.rawValue)
        case .string(let s): return (.text(s), MixedTag.string.rawValue)
        case .data(let d): return (.blob(d), MixedTag.data.rawValue)
        case .date(let t): return (t.storedNanoseconds.map { .integer($0) } ?? .null, MixedTag.date.rawValue)
        case .decimal(let d): return (.blob(d.storedBytes), MixedTag.decimal128.rawValue)
        case .objectId(let o): return (.blob(Data(o.bytes)), MixedTag.objectId.rawValue)
        case .uuid(let u): return (.blob(u.realmBytes), MixedTag.uuid.rawValue)
        case .link, .embedded, .list, .map: return (.null, MixedTag.null.rawValue)
        }
    }

    /// The value as an operand of Realm's string operators: text, bytes, null, or other (no match).
    static func stringOperand(_ value: SyncValue) -> QueryRuntime.StringOperand {
        switch value {
        case .null: return .null
        case .string(let s): return .text(s)
        case .data(let d): return .bytes([UInt8](d))
        default: return .other
        }
    }

    /// A NaN constant compares unequal to everything, null included (the local engine folds it).
    static func isNaN(_ value: SyncValue) -> Bool {
        switch value {
        case .float(let f): return f.isNaN
        case .double(let d): return d.isNaN
        case .decimal(let d): return d.isNaN
        default: return false
        }
    }

    /// `realm_strop`'s operator code for a string operator; nil for the other comparisons.
    static func stringOperatorCode(_ op: ViewComparison) -> Int64? {
        switch op {
        case .beginsWith: return QueryRuntime.opBeginsWith
        case .endsWith: return QueryRuntime.opEndsWith
        case .contains: return QueryRuntime.opContains
        case .like: return QueryRuntime.opLike
        default: return nil
        }
    }

    /// Whether a `realm_cmp` result (-1, 0, 1, or 2 for unordered) satisfies `op`.
    static func satisfies(_ result: Int64, _ op: ViewComparison) -> Bool {
        switch op {
        case .equal: return result == 0
        case .notEqual: return result != 0
        case .less: return result == -1
        case .lessEqual: return result == -1 || result == 0
        case .greater: return result == 1
        case .greaterEqual: return result == 0 || result == 1
        default: return false
        }
    }
}
