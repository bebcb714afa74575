import ArgumentParser
import Foundation
import RealmHost

/// The options every command that opens the host takes: where the data and the plugins are, and the
/// cluster the host is part of.
struct HostFlags: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The data folder, with one <user>.realm per user (default: $REALM_HOST_DATA, else ./data).",
            valueName: "dir"))
    var data: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A folder of plugins (each in a subfolder with a plugin.lua); repeat for several (default: ./plugins).",
            valueName: "dir"))
    var plugins: [String] = []

    @OptionGroup var cluster: ClusterFlags

    /// A `--plugins` folder that does not exist is refused before anything opens: the users' realms
    /// would be created without the plugins' schema (at version 0) and migrated later from there.
    func validate() throws {
        for folder in plugins {
            if let problem = folderProblem(URL(fileURLWithPath: folder, isDirectory: true)) {
                throw ValidationError("--plugins \(folder): \(problem)")
            }
        }
    }

    var options: HostOptions {
        let folders = (plugins.isEmpty ? ["plugins"] : plugins).map {
            URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL
        }
        return cluster.apply(to: HostOptions(dataFolder: HostOptions.defaultDataFolder(data), pluginFolders: folders))
    }

    /// Opens the host, or prints why it cannot and exits with status 1.
    func makeHost() throws -> TenantHost {
        do {
            try ServeLock.refuseIfServed(options.dataFolder)
            return try TenantHost(options: options)
        } catch {
            throw CLIError.failed("\(error)")
        }
    }
}

/// An error that ends a command: its message goes to standard error as `realm-host: message`.
enum CLIError: Error {
    case failed(String)
}

/// Runs a command's body, turning host and Lua errors into `realm-host: message` and status 1.
func runReportingErrors(_ body: () throws -> Int32) throws {
    let status: Int32
    do {
        status = try body()
    } catch let error as ExitCode {
        throw error
    } catch CLIError.failed(let message) {
        StandardStreams.errorLine("realm-host: \(message)")
        status = 1
    } catch {
        StandardStreams.errorLine("realm-host: \(error)")
        status = 1
    }
    if status != 0 { throw ExitCode(status) }
}

/// A user name given on the command line, checked before anything is touched.
func checkedUser(_ name: String) throws -> String {
    do {
        try UserName.validate(name)
    } catch {
        throw CLIError.failed("\(error)")
    }
    return name
}

/// The path of a file for messages: relative to the current folder when inside it.
func displayPath(_ url: URL) -> String {
    let cwd = FileManager.default.currentDirectoryPath + "/"
    let path = url.standardizedFileURL.path
    return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
}
