/// The type of a value held in a `mixed` column, stored in its `__t` column (RealmDatabase's
/// `StorageLayout`); the query runtime orders mixed values by it.
package enum MixedTag: Int64 {
    case null = 0
    case int = 1
    case bool = 2
    case string = 3
    case data = 4
    case date = 5
    case float = 6
    case double = 7
    case decimal128 = 8
    case object = 9
    case objectId = 10
    case uuid = 11
}
