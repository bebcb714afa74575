import Foundation
import RealmDatabase
import RealmQuery

/// A constant side of a comparison as written: a literal, or `$user`.
enum ViewQueryConstant {
    case literal(QueryLiteral, offset: Int, text: String)
    case user(offset: Int)

    var offset: Int {
        switch self {
        case .literal(_, let offset, _), .user(let offset): return offset
        }
    }

    var text: String {
        switch self {
        case .literal(_, _, let text): return text
        case .user: return "$user"
        }
    }

    /// The type name the local query language gives the constant in its messages.
    var typeName: String {
        switch self {
        case .user: return "string"
        case .literal(let literal, _, _):
            switch literal {
            case .null: return "null"
            case .bool: return "bool"
            case .integer: return "int"
            case .float(_, _, let isFloat): return isFloat ? "float" : "double"
            case .special: return "double"
            case .string: return "string"
            case .base64, .binary: return "binary"
            case .timestamp: return "timestamp"
            case .objectId: return "objectId"
            case .uuid: return "uuid"
            case .objectKey, .objectByPrimaryKey: return "link"
            }
        }
    }
}

/// Comparisons of one field with constants: the operator and the constant checked against the
/// field's type with the local query language's rules and messages, the constant converted to the
/// `SyncValue` the field's values are compared with.
struct ViewQueryTerm {
    let compilation: ViewQueryCompilation
    let field: Property

    /// The local query language's name of the field's type.
    private var typeName: String {
        switch field.type {
        case .data: return "binary"
        case .date: return "timestamp"
        default: return field.type.rawValue
        }
    }

    private func fail(_ offset: Int, _ message: String) -> QuerySyntaxError { compilation.fail(offset, message) }

    private func mismatch(_ c: ViewQueryConstant, offset: Int) -> QuerySyntaxError {
        var error = fail(offset, "Unsupported comparison between type '\(typeName)' and type '\(c.typeName)'")
        error.isTypeMismatch = true
        return error
    }

    func compare(_ op: QueryCompareOp, _ c: ViewQueryConstant, _ options: QueryStringOptions?, offset: Int) throws
        -> ViewPredicate
    {
        let caseInsensitive = options?.caseInsensitive ?? false
        let suffix = options?.suffix ?? ""
        guard let comparison = ViewComparison(rawValue: op.rawValue) else {
            throw fail(offset, "'\(op.rawValue)' needs a list {…} on its right")
        }
        if op.isStringOperator {
            try requireStringField(op.rawValue, offset: offset)
            return try compared(comparison, stringOperand(c, op, offset: offset), caseInsensitive: caseInsensitive)
        }
        if caseInsensitive {
            guard op == .equal || op == .notEqual else {
                throw fail(offset, "'\(suffix)' can only be used with ==, !=, IN and the string operators")
            }
            guard field.type == .string || field.type == .data else {
                throw fail(
                    offset,
                    "Unsupported comparison '\(op.rawValue)\(suffix)' between type '\(typeName)' and type "
                        + "'\(c.typeName)': '\(suffix)' applies to strings")
            }
            let operand = try stringOperand(c, op, offset: offset, mismatchIsTypeError: true)
            return compared(comparison, operand, caseInsensitive: true)
        }
        return compared(comparison, try value(c, offset: offset), caseInsensitive: false)
    }

    private func compared(_ op: ViewComparison, _ operand: ViewOperand, caseInsensitive: Bool) -> ViewPredicate {
        .compare(field: field.name, op, operand, caseInsensitive: caseInsensitive)
    }

    private func requireStringField(_ op: String, offset: Int) throws {
        guard field.type == .string || field.type == .data else {
            throw fail(
                offset,
                "Unsupported comparison operator '\(op)' for '\(field.name)' of type '\(typeName)': it applies to "
                    + "strings and binary data")
        }
    }

    /// The needle of a string operator (or of `==[c]`): null, text or bytes.
    private func stringOperand(
        _ c: ViewQueryConstant, _ op: QueryCompareOp, offset: Int, mismatchIsTypeError: Bool = false
    ) throws -> ViewOperand {
        guard case .literal(let literal, _, _) = c else { return .user }
        switch literal {
        case .null: return .value(.null)
        case .string(let s): return .value(.string(s))
        case .base64(let d): return .value(String(validating: d, as: UTF8.self).map { .string($0) } ?? .data(d))
        case .binary(let d): return .value(.data(d))
        default:
            if mismatchIsTypeError { throw mismatch(c, offset: offset) }
            throw fail(
                offset,
                "Unsupported comparison operator '\(op.rawValue)' for \(c.text) of type '\(c.typeName)': it applies "
                    + "to strings and binary data")
        }
    }

    /// The constant as a value of the field's type (numbers keep their own type: they compare
    /// across int, float, double and decimal by value).
    private func value(_ c: ViewQueryConstant, offset: Int) throws -> ViewOperand {
        guard case .literal(let literal, _, _) = c else {
            guard field.type == .string else { throw mismatch(c, offset: offset) }
            return .user
        }
        if case .null = literal { return .value(.null) }
        let converted: SyncValue?
        switch field.type {
        case .int, .float, .double, .decimal128: converted = try number(literal, c, offset: offset)
        case .string:
            switch literal {
            case .string(let s): converted = .string(s)
            case .base64(let d): converted = String(validating: d, as: UTF8.self).map { .string($0) }
            default: converted = nil
            }
        case .data:
            switch literal {
            case .string(let s): converted = .data(Data(s.utf8))
            case .base64(let d), .binary(let d): converted = .data(d)
            default: converted = nil
            }
        case .bool:
            if case .bool(let b) = literal { converted = .bool(b) } else { converted = nil }
        case .date:
            guard case .timestamp(let t) = literal else { throw mismatch(c, offset: offset) }
            guard t.storedNanoseconds != nil else {
                throw fail(c.offset, "the date \(c.text) is out of the supported range")
            }
            converted = .date(t)
        case .objectId:
            if case .objectId(let o) = literal { converted = .objectId(o) } else { converted = nil }
        case .uuid:
            if case .uuid(let u) = literal { converted = .uuid(u) } else { converted = nil }
        case .mixed, .object, .linkingObjects:
            converted = nil
        }
        guard let converted else { throw mismatch(c, offset: offset) }
        return .value(converted)
    }

    /// A numeric literal for a numeric field, as the local query language converts it: rounded to
    /// float precision for a float field, exact from its digits for a decimal field.
    private func number(_ literal: QueryLiteral, _ c: ViewQueryConstant, offset: Int) throws -> SyncValue? {
        let type = field.type
        switch literal {
        case .integer(let i, _):
            switch type {
            case .float: return .float(Float(i))
            case .decimal128: return .decimal(Decimal128(i))
            default: return .int(i)
            }
        case .float(let d, let text, let isFloat):
            if type == .int && d.isInfinite { throw fail(c.offset, "Infinity not supported for int") }
            if type == .decimal128 && d.isFinite {
                return .decimal(isFloat ? Decimal128(Double(Float(d))) : Decimal128(string: text) ?? Decimal128(d))
            }
            if isFloat || type == .float { return .float(Float(d)) }
            return .double(d)
        case .special(let d, _):
            if type == .int && d.isInfinite { throw fail(c.offset, "Infinity not supported for int") }
            return .double(d)
        default:
            return nil
        }
    }
}
