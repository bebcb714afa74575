import ArgumentParser
import Foundation
import RealmHost

/// `realm-host repl`: the interactive REPL (the default command).
struct ReplCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "Start the Lua REPL on a user's realm (the default command).",
        discussion: """
            Type Lua (see LUA-API.md) with `realm` bound to the user's realm; an expression prints \
            its value, objects and results as tables. Writes commit at once unless they are inside \
            realm:write(function() … end). Dot commands: .help, .user NAME, .users, .schema [CLASS], \
            .subs, .sync, .mode table|json|lua, .timer on|off, .read FILE.lua, the plugins' commands, .quit.
            With standard input not a terminal (realm-host repl < script.lua) there is no prompt: the \
            chunks run in order and the exit status is 1 if any failed.
            """
    )

    @OptionGroup var host: HostFlags
    @OptionGroup var sync: SyncFlags

    @Option(name: .long, help: ArgumentHelp("The user whose realm `realm` is.", valueName: "name"))
    var user = "default"

    @Option(name: .long, help: ArgumentHelp("How values print: table, json or lua.", valueName: "mode"))
    var mode: String = "table"

    @Flag(name: .long, help: "Neither read nor write the history file (<data>/.realm-host-history).")
    var noHistory = false

    @Flag(
        name: .long,
        help: "Attach to the realm-host serve running on the data folder, through its console socket.")
    var connect = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Open the user's realm as it is stored, read-only, at its own schema version: no migration "
                + "(to look into a realm whose migration fails)."))
    var noMigrate = false

    @Argument(help: ArgumentHelp("With --connect: the served data folder (as --data).", valueName: "data"))
    var served: String?

    func validate() throws {
        guard OutputMode(rawValue: mode) != nil else { throw ValidationError("--mode must be table, json or lua.") }
        if noMigrate && connect { throw ValidationError("--no-migrate opens the file itself: not with --connect.") }
        if served != nil && !connect {
            throw ValidationError("A data folder as an argument goes with --connect; otherwise use --data DIR.")
        }
    }

    func run() throws {
        try runReportingErrors {
            let user = try checkedUser(self.user)
            if connect {
                let folder = HostOptions.defaultDataFolder(served ?? self.host.data)
                return try ConsoleClient.repl(dataFolder: folder, user: user, mode: mode, history: !noHistory)
            }
            if noMigrate {
                let file = HostOptions.defaultDataFolder(self.host.data).appendingPathComponent("\(user).realm")
                guard FileManager.default.fileExists(atPath: file.path) else {
                    throw CLIError.failed("--no-migrate: user '\(user)' has no realm (\(displayPath(file)))")
                }
            }
            let host = try self.host.makeHost(sync: sync, openAsStored: noMigrate)
            let interactive = Terminal.inputIsTerminal
            let session = ReplSession(
                host: host, user: user, mode: OutputMode(rawValue: mode) ?? .table, interactive: interactive,
                colour: interactive && Terminal.colourAllowed(onTerminal: Terminal.outputIsTerminal),
                errorColour: interactive && Terminal.colourAllowed(onTerminal: Terminal.errorIsTerminal))
            Interrupts.shared.install()
            if interactive {
                let history = noHistory ? nil : host.dataFolder.appendingPathComponent(".realm-host-history")
                let completer = Completer(session: session)
                session.input = EditedLines(historyFile: history) { before, word in
                    completer.complete(before: before, word: word)
                }
            } else {
                session.input = PipedLines()
            }
            return session.run()
        }
    }
}
