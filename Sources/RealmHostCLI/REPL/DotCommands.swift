import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost

/// The REPL's dot commands: `.help`, `.user NAME`, …, and the plugins' commands (`.adopt Dale Maui`).
enum DotCommands {
    struct Builtin {
        let name: String
        let arguments: String
        let help: String
    }

    static let builtins: [Builtin] = [
        Builtin(name: "help", arguments: "", help: "this help"),
        Builtin(name: "user", arguments: "[NAME]", help: "switch to another user's realm (created when new)"),
        Builtin(name: "users", arguments: "", help: "the users in the data folder: schema version, objects, size"),
        Builtin(name: "schema", arguments: "[CLASS]", help: "the realm's classes and their properties"),
        Builtin(
            name: "subs", arguments: "", help: "the realm's subscriptions (the synced realm's when the user syncs)"),
        Builtin(name: "sync", arguments: "", help: "the user's sync sessions: server, state, uploads, subscriptions"),
        Builtin(name: "mode", arguments: "[table|json|lua]", help: "how values print"),
        Builtin(name: "timer", arguments: "[on|off]", help: "print how long each statement takes"),
        Builtin(name: "read", arguments: "FILE.lua", help: "run a Lua file here"),
        Builtin(name: "trace", arguments: "", help: "the Lua traceback of the last error"),
        Builtin(name: "quit", arguments: "", help: "leave (also .exit, Ctrl-D)"),
    ]

    /// Every built-in's name: the names plugin commands cannot take (the plugin loader refuses them).
    static let builtinNames: [String] = PluginManifest.reservedCommandNames

    /// `.name …` at the start of a statement (`.5` is a number, not a command).
    static func isCommand(_ line: String) -> Bool {
        guard line.hasPrefix("."), let next = line.dropFirst().unicodeScalars.first else { return false }
        return next.properties.isAlphabetic || next == "_"
    }

    static func run(_ line: String, in session: ReplSession) {
        let words: [String]
        do {
            words = try split(String(line.dropFirst()))
        } catch {
            session.fail("\(error)")
            return
        }
        guard let name = words.first else { return }
        let args = Array(words.dropFirst())
        do {
            switch name {
            case "help": session.output.line(try help(session))
            case "quit", "exit": session.quitRequested = true
            case "user": try user(args, session)
            case "users":
                session.output.line(try UsersTable.render(session.host, current: session.user, style: session.style))
            case "schema": try schema(args, session)
            case "subs": try subscriptions(session)
            case "sync": try sync(session)
            case "mode": try mode(args, session)
            case "timer": try timer(args, session)
            case "read": try read(args, session)
            case "trace": trace(session)
            default: try pluginCommand(name, args, session)
            }
        } catch {
            session.report(error)
        }
    }

    // MARK: Built-ins

    static func help(_ session: ReplSession) throws -> String {
        let style = session.style
        var lines = [
            "Lua 5.4 with `realm` bound to the realm of user '\(session.user)' (see LUA-API.md).",
            "An expression prints its value; an unfinished statement continues on the next line.",
            "Writes outside realm:write(function() … end) commit at once; an error rolls back.",
            "",
        ]
        let width = builtins.map { $0.name.count + $0.arguments.count }.max()! + 4
        for b in builtins {
            let usage = "." + b.name + (b.arguments.isEmpty ? "" : " " + b.arguments)
            lines.append("  " + style.bold(usage) + String(repeating: " ", count: max(1, width - usage.count)) + b.help)
        }
        let commands = try session.withTenant { tenant in
            tenant.commandNames.map { (name: $0, plugin: tenant.commandPlugin($0) ?? "?", tenant.commandUsage($0)) }
        }
        if !commands.isEmpty {
            lines.append("")
            lines.append("Plugin commands (arguments are words; quote one with spaces: .dogs \"weight > 20\"):")
            for command in commands {
                let usage = "." + command.name + (command.2.usage.map { " " + $0 } ?? "")
                let what = command.2.help.map { "\($0) (plugin \(command.plugin))" } ?? "from plugin \(command.plugin)"
                lines.append(
                    "  " + style.bold(usage) + String(repeating: " ", count: max(1, width - usage.count)) + what)
            }
        }
        lines.append("")
        lines.append("Ctrl-C clears the line, or stops a running statement (its writes roll back). Tab completes.")
        return lines.joined(separator: "\n")
    }

    static func user(_ args: [String], _ session: ReplSession) throws {
        guard let name = args.first else {
            session.output.line(
                "User '\(session.user)' (\(displayPath(try session.host.fileURL(for: session.user)))).")
            return
        }
        guard args.count == 1 else { throw usage("user", "NAME (quote a name with spaces)") }
        let isNew = try session.switchUser(to: name)
        let file = displayPath(try session.host.fileURL(for: name))
        session.output.line("Now user '\(name)' (\(file)\(isNew ? ", new" : "")).")
    }

    static func schema(_ args: [String], _ session: ReplSession) throws {
        let text: String = try session.withTenant { tenant in
            let schema = tenant.realm.schema
            if let className = args.first {
                guard schema[className] != nil else {
                    throw HostError.configuration(
                        "No class '\(className)'. Classes: \(schema.classNames.joined(separator: ", ")).")
                }
            }
            if schema.objectSchemas.isEmpty { return "The realm has no classes (no plugin declares a schema)." }
            return session.style.dim("schema version \(tenant.realm.schemaVersion)") + "\n"
                + SchemaText.tables(schema, only: args.first, style: session.style)
        }
        session.output.line(text)
    }

    /// Each of the user's sync sessions: the server and the connection, whether commits wait for
    /// upload, the last download, and the subscriptions with their set's state.
    static func sync(_ session: ReplSession) throws {
        let sessions = try session.withTenant { $0.syncStatus }
        guard !sessions.isEmpty else {
            let server = session.host.syncTransport?.url
            session.output.line(
                server.map { "No sync session yet: open a flexible-sync realm (\($0))." }
                    ?? "No sync server: start with --sync-url ws://HOST:PORT/sync (flexible-sync realms are local).")
            return
        }
        var lines: [String] = []
        for s in sessions {
            var connection = s.connection
            if let error = s.lastConnectionError, s.connection != "connected" { connection += " (\(error))" }
            lines.append(session.style.bold(s.file) + " on \(s.server): \(s.state), \(connection)")
            if let error = s.sessionError { lines.append("  session error: \(error)") }
            lines.append("  uploads: " + uploads(s))
            lines.append("  last download: server version \(s.downloadedThrough)")
            lines.append(
                "  subscriptions (set \(s.subscriptionSetVersion), \(s.subscriptionState)):"
                    + (s.subscriptions.isEmpty ? " none" : ""))
            lines += s.subscriptions.map { "    \($0) (\(s.subscriptionState))" }
            if !s.recentErrors.isEmpty {
                lines.append("  recent errors:")
                lines += s.recentErrors.map { "    " + $0 }
            }
        }
        session.output.line(lines.joined(separator: "\n"))
    }

    /// `2 commits waiting for upload`, or `all acknowledged`.
    private static func uploads(_ s: SyncSessionStatus) -> String {
        guard s.waitingForUpload else { return "all acknowledged" }
        guard let count = s.commitsWaitingForUpload else { return "commits waiting for upload" }
        return count == 1 ? "1 commit waiting for upload" : "\(count) commits waiting for upload"
    }

    /// The subscriptions of the user's synced realms when the tenant syncs (those are what the
    /// server sends), else the local realm's.
    static func subscriptions(_ session: ReplSession) throws {
        let synced = try session.withTenant { $0.syncStatus }
        guard synced.isEmpty else {
            session.output.line(synced.map { syncedSubscriptions($0, session) }.joined(separator: "\n"))
            return
        }
        let text: String = try session.withTenant { tenant in
            let subs = try tenant.realm.subscriptions
            guard subs.count > 0 else { return "No subscriptions (state: \(subs.state.rawValue))." }
            var table = TextTable(headers: ["#", "name", "class", "query", "created"], rightAligned: [0])
            for (i, s) in subs.enumerated() {
                table.rows.append(["\(i + 1)", s.name ?? "", s.objectClassName, s.queryString, s.createdAt.description])
            }
            return table.render(style: session.style) + "\n" + session.style.dim("state: \(subs.state.rawValue)")
        }
        session.output.line(text)
    }

    /// One synced realm's latest subscription set: name, class, query, and the set's state.
    private static func syncedSubscriptions(_ s: SyncSessionStatus, _ session: ReplSession) -> String {
        let title =
            session.style.bold(s.file) + " (synced with \(s.server)), subscription set \(s.subscriptionSetVersion)"
        guard !s.subscriptionEntries.isEmpty else { return title + ": no subscriptions (\(s.subscriptionState))." }
        var table = TextTable(headers: ["#", "name", "class", "query", "state"], rightAligned: [0])
        for (i, entry) in s.subscriptionEntries.enumerated() {
            table.rows.append(["\(i + 1)", entry.name ?? "", entry.className, entry.query, s.subscriptionState])
        }
        return title + "\n" + table.render(style: session.style)
    }

    static func mode(_ args: [String], _ session: ReplSession) throws {
        guard let name = args.first else {
            session.output.line("Mode: \(session.mode.rawValue) (.mode table|json|lua)")
            return
        }
        guard let mode = OutputMode(rawValue: name.lowercased()) else { throw usage("mode", "table|json|lua") }
        session.mode = mode
    }

    static func timer(_ args: [String], _ session: ReplSession) throws {
        switch args.first?.lowercased() {
        case nil: session.timer.toggle()
        case "on": session.timer = true
        case "off": session.timer = false
        default: throw usage("timer", "on|off")
        }
        session.output.line("Timer \(session.timer ? "on" : "off").")
    }

    static func read(_ args: [String], _ session: ReplSession) throws {
        guard args.count == 1, let path = args.first else { throw usage("read", "FILE.lua") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw HostError.io("\(path): cannot open the file (no such readable file)")
        }
        let chunk = try session.tenantSession.compileFile(path)
        session.run { try session.tenantSession.run(chunk, present: $0) }
    }

    static func trace(_ session: ReplSession) {
        guard let error = session.lastError else {
            session.output.line("No error yet.")
            return
        }
        if let lua = error as? LuaError {
            session.output.line(lua.descriptionWithTraceback)
        } else {
            session.output.line("\(error)")
        }
    }

    // MARK: Plugin commands

    static func pluginCommand(_ name: String, _ args: [String], _ session: ReplSession) throws {
        let known = try session.withTenant { $0.commandNames.contains(name) }
        guard known else {
            throw HostError.configuration("Unknown command '.\(name)'. Type .help for the list.")
        }
        session.run { try session.tenantSession.runCommand(name, arguments: args, present: $0) }
    }

    // MARK: Arguments

    static func usage(_ name: String, _ arguments: String) -> HostError {
        HostError.configuration("Usage: .\(name) \(arguments)")
    }

    /// Words separated by spaces; "double" or 'single' quotes keep spaces (backslash escapes in
    /// double quotes).
    static func split(_ text: String) throws -> [String] {
        var words = [String]()
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            if let q = quote {
                if escaped {
                    current.append(c)
                    escaped = false
                } else if c == "\\" && q == "\"" {
                    escaped = true
                } else if c == q {
                    quote = nil
                } else {
                    current.append(c)
                }
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else if c.isWhitespace {
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            } else {
                current.append(c)
                inWord = true
            }
        }
        if quote != nil { throw HostError.configuration("Unclosed quote in the command.") }
        if inWord { words.append(current) }
        return words
    }
}
