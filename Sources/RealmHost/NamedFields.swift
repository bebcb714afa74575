import LuaSandbox

/// The tables of named fields in files a person writes (plugin.lua, host.lua, their nested
/// tables): a key the table does not have is refused, naming it, the field likely meant and the
/// fields the table has, because a misspelt field would otherwise pass in silence (a plugin
/// loaded without its commands, a host without its limits). The one check for all of them.
enum NamedFields {
    /// Why `table` is not a table of fields among `known`; nil when it is. `field` is the table's
    /// dotted path (`sync`, `commands.hi`), nil for the file's own table, which `owner` names then
    /// (`a plugin`, `host.lua`).
    static func problem(_ table: LuaTable, known: [String], field: String?, owner: String) -> String? {
        let list = known.joined(separator: ", ")
        if !table.array.isEmpty {
            return "\(field.map { "field '\($0)'" } ?? owner) is a table of named fields (\(list)), not a list"
        }
        let unknown = table.hash.keys.compactMap { key -> (name: String, path: String)? in
            guard case .string(let name) = key else {
                return ("[\(key.description)]", (field ?? "") + "[\(key.description)]")
            }
            return known.contains(name) ? nil : (name, field.map { "\($0).\(name)" } ?? name)
        }
        guard let first = unknown.min(by: { $0.path < $1.path }) else { return nil }
        let hint = NearestName.suggestion(for: first.name, among: known).map { " (did you mean '\($0)'?)" } ?? ""
        return "field '\(first.path)' is not a known field\(hint); \(field ?? owner) has \(list)"
    }
}
