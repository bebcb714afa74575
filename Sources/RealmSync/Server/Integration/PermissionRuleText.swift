/// A permission rule written back as a query, for the reasons of compensating writes: the user reads
/// the rule that refused the write as the plugin declares it (`owner == $user`).
enum PermissionRuleText {
    static func text(of predicate: ViewPredicate) -> String {
        switch predicate {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let parts): return parts.isEmpty ? "TRUEPREDICATE" : joined(parts, "AND")
        case .or(let parts): return parts.isEmpty ? "FALSEPREDICATE" : joined(parts, "OR")
        case .not(let inner): return "NOT " + grouped(inner)
        case .createdByUser: return "created by $user"
        case .compare(let field, let op, let operand, let caseInsensitive):
            return "\(field) \(op.rawValue)\(caseInsensitive ? "[c]" : "") \(text(of: operand))"
        }
    }

    private static func joined(_ parts: [ViewPredicate], _ connective: String) -> String {
        parts.map(grouped).joined(separator: " \(connective) ")
    }

    /// A compound part in parentheses, so the text parses back to the same predicate.
    private static func grouped(_ predicate: ViewPredicate) -> String {
        switch predicate {
        case .and(let parts) where parts.count > 1, .or(let parts) where parts.count > 1:
            return "(\(text(of: predicate)))"
        default: return text(of: predicate)
        }
    }

    private static func text(of operand: ViewOperand) -> String {
        switch operand {
        case .user: return "$user"
        case .value(let value): return text(of: value)
        }
    }

    private static func text(of value: SyncValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let v): return v ? "true" : "false"
        case .int(let v): return String(v)
        case .float(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return v.debugDescription
        default: return value.description
        }
    }
}
