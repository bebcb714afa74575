import NIOCore
import PostgresNIO
import RealmSync

/// A value bound to a statement's parameter. Unsigned numbers (versions, clocks, file ids, salts) are
/// stored in BIGINT bit for bit, as the SQLite store keeps them; byte strings are BYTEA.
package enum PostgresValue {
    case int(Int64)
    case bool(Bool)
    case text(String)
    case bytes([UInt8])
    case ints([Int64])
    case texts([String])
    case byteArrays([[UInt8]])
    case bools([Bool])
    case null

    static func u64(_ value: UInt64) -> PostgresValue { .int(Int64(bitPattern: value)) }
    static func time(_ time: WriteTime) -> [PostgresValue] { [.u64(time.clock.rawValue), .u64(time.clientFileID)] }
    static func u64s(_ values: [UInt64]) -> PostgresValue { .ints(values.map { Int64(bitPattern: $0) }) }

    static func bindings(_ values: [PostgresValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .int(let v): bindings.append(v)
            case .bool(let v): bindings.append(v)
            case .text(let v): bindings.append(v)
            case .bytes(let v): bindings.append(ByteBuffer(bytes: v))
            case .ints(let v): bindings.append(v)
            case .texts(let v): bindings.append(v)
            case .byteArrays(let v): bindings.append(v.map { ByteBuffer(bytes: $0) })
            case .bools(let v): bindings.append(v)
            case .null: bindings.appendNull()
            }
        }
        return bindings
    }
}

/// One row of a result, read by column index; a column of another type than asked is an error
/// naming the statement, never a crash.
package struct StoreRow: StoredRow {
    private let row: PostgresRandomAccessRow
    private let operation: String

    init(_ row: PostgresRow, _ operation: String) {
        self.row = PostgresRandomAccessRow(row)
        self.operation = operation
    }

    package func int(_ index: Int) throws -> Int64 { try decode(Int64.self, index) }
    package func u64(_ index: Int) throws -> UInt64 { UInt64(bitPattern: try int(index)) }
    package func bool(_ index: Int) throws -> Bool { try decode(Bool.self, index) }
    /// A TEXT column, or a BYTEA one holding UTF-8 (map keys: PostgreSQL text cannot hold a NUL).
    package func text(_ index: Int) throws -> String {
        guard try cell(index).dataType == .bytea else { return try decode(String.self, index) }
        return String(decoding: try bytes(index) ?? [], as: UTF8.self)
    }
    /// nil when the column is NULL.
    package func bytes(_ index: Int) throws -> [UInt8]? {
        guard try cell(index).bytes != nil else { return nil }
        return Array(try decode(ByteBuffer.self, index).readableBytesView)
    }
    private func cell(_ index: Int) throws -> PostgresCell {
        guard index >= 0, index < row.count else {
            throw SyncStoreError("\(operation): the result has no column \(index)")
        }
        return row[index]
    }

    private func decode<T: PostgresDecodable>(_ type: T.Type, _ index: Int) throws -> T {
        let cell = try cell(index)
        do {
            return try cell.decode(T.self)
        } catch {
            throw SyncStoreError("\(operation): column \(cell.columnName) is not a \(T.self)")
        }
    }
}
