import Foundation
import RealmDatabase

/// A client's message on `/v1/watch`: `{"watch": 1, "class": "Dog", "where": "weight > 10",
/// "args": [...], "sort": "name"}` or `{"unwatch": 1}` (docs/SERVE.md).
enum WatchRequest: Sendable {
    case watch(id: Int64, className: String, query: ObjectVerbs.Query)
    case unwatch(id: Int64)

    static let watchKeys: Set<String> = ["watch", "class", "where", "args", "sort"]

    /// Reads one text message; throws `ServeError` (400) naming what is wrong.
    init(text: String, maxDepth: Int) throws {
        let message = try JSONBody.parse(Data(text.utf8), maxDepth: maxDepth, what: "the message")
        guard case .object(let fields) = message else {
            throw ServeError.badRequest("a watch message must be a JSON object, found \(message.kindName)")
        }
        if case .int(let id)? = message[field: "unwatch"] {
            guard fields.count == 1 else { throw ServeError.badRequest("an unwatch message has only 'unwatch'") }
            self = .unwatch(id: id)
            return
        }
        guard case .int(let id)? = message[field: "watch"] else {
            throw ServeError.badRequest("a message needs 'watch' (an integer id) or 'unwatch'")
        }
        if let unknown = fields.first(where: { !Self.watchKeys.contains($0.name) }) {
            throw ServeError.badRequest(
                "unknown field '\(unknown.name)' in watch \(id) (fields: class, where, args, sort)")
        }
        guard case .string(let className)? = message[field: "class"] else {
            throw ServeError.badRequest("watch \(id) needs 'class' (a string)")
        }
        var query = ObjectVerbs.Query()
        switch message[field: "where"] {
        case nil, .null?: break
        case .string(let clause)?: query.whereClause = clause
        default: throw ServeError.badRequest("watch \(id): 'where' must be a string")
        }
        switch message[field: "args"] {
        case nil, .null?: break
        case .array(let items)?: query.arguments = items
        default: throw ServeError.badRequest("watch \(id): 'args' must be an array")
        }
        switch message[field: "sort"] {
        case nil, .null?: break
        case .string(let text)?: query.sort = try ObjectVerbs.Query.sortDescriptors(text)
        default: throw ServeError.badRequest("watch \(id): 'sort' must be a string such as \"name,-weight\"")
        }
        query.limit = Int.max
        self = .watch(id: id, className: className, query: query)
    }
}

extension ObjectVerbs.Query {
    /// `name,-weight`: ascending by name, then descending by weight.
    static func sortDescriptors(_ text: String) throws -> [RealmDatabase.SortDescriptor] {
        try text.split(separator: ",").map { part in
            let item = part.trimmingCharacters(in: .whitespaces)
            let descending = item.hasPrefix("-")
            let keyPath = descending ? String(item.dropFirst()) : item
            guard !keyPath.isEmpty else { throw ServeError.badRequest("'sort' has an empty property name") }
            return RealmDatabase.SortDescriptor(keyPath: keyPath, ascending: !descending)
        }
    }
}
