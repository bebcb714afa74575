// Realm's value types (Timestamp, ObjectId, Decimal128) live in RealmValues, below the query
// language that parses them as literals; they are part of this module's public API, so importing
// RealmDatabase brings them, as it did before they moved.
@_exported import RealmValues
