import RealmDatabase

/// The console protocol between `realm-host repl --connect` (the client: a terminal and its line
/// editor) and `serve` (the REPL session itself, in the host's tenants), one JSON object a line
/// over `DATA/.console.sock`:
///
///     client → host   {"open": {"user", "mode", "width", "colour", "interactive"}}   first, once
///                     {"run": {"path", "args": [...]}}                              run --connect, instead
///                     {"line": "…"}  {"complete": {"before", "word"}}  {"cancel": true}  (Ctrl-C at a prompt)
///                     {"interrupt": true}  (Ctrl-C while a line runs)  {"eof": true}  (Ctrl-D)
///     host → client   {"out": "…"}  {"err": "…"}  {"prompt": "alice> "}  {"completions": [...]}
///                     {"history": "…"}  {"exit": status}
enum ConsoleMessage {
    static func field(_ name: String, _ value: JSONValue) -> JSONValue { .object([JSONValue.Field(name, value)]) }

    static func string(_ message: JSONValue, _ name: String) -> String? {
        if case .string(let text)? = message[field: name] { return text }
        return nil
    }

    static func int(_ message: JSONValue, _ name: String) -> Int? {
        if case .int(let n)? = message[field: name] { return Int(exactly: n) }
        return nil
    }

    static func bool(_ message: JSONValue, _ name: String) -> Bool? {
        if case .bool(let b)? = message[field: name] { return b }
        return nil
    }
}
