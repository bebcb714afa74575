import ArgumentParser

/// The version `realm-host --version` prints.
let realmHostVersion = "0.5.0"

/// `realm-host`: the root command. Without a subcommand it starts the REPL.
struct RealmHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "realm-host",
        abstract: "Hosts many users' object databases (realms) on SQLite, scripted in Lua 5.4.",
        discussion: """
            Each user's realm is <data>/<user>.realm, opened with the schema, version, migrations and \
            subscriptions of the plugins in the plugins folders. Without a subcommand, realm-host starts \
            the REPL for the user 'default'.

            The data folder is --data, else $REALM_HOST_DATA, else ./data; plugins come from ./plugins \
            unless --plugins names other folders.
            """,
        version: "realm-host \(realmHostVersion)",
        subcommands: [
            ReplCommand.self, RunCommand.self, MigrateCommand.self, UsersCommand.self,
            SchemaCommand.self, ExportCommand.self, ImportCommand.self, PluginCommand.self, SyncServerCommand.self,
            WhichHostCommand.self, ServeCommand.self, TokenCommand.self,
        ],
        defaultSubcommand: ReplCommand.self
    )
}
