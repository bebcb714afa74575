import ArgumentParser
import Foundation
import RealmHost
import RealmHostNet
import RealmSyncNet

/// `--sync-url` and `--sync-secret-file` (repl, run, migrate): the server the users' flexible-sync
/// realms sync with, and the file holding the secret that signs their tokens (when
/// `REALMHOST_SYNC_SECRET` is not set). Either may come from `host.lua`'s `sync` table instead.
struct SyncFlags: ParsableArguments {
    @Option(
        name: .customLong("sync-url"),
        help: ArgumentHelp(
            "The sync server (ws://HOST:PORT/sync) flexible-sync realms sync with, or several separated by commas "
                + "(the host fails over to the next, in turn; default: host.lua's sync.url).",
            valueName: "url"))
    var url: String?

    @Option(
        name: .customLong("sync-secret-file"),
        help: ArgumentHelp(
            "The file with the secret shared with the sync server (default: $REALMHOST_SYNC_SECRET, "
                + "else host.lua's sync.secretFile).",
            valueName: "file"))
    var secretFile: String?

    func validate() throws {
        guard let url else { return }
        let urls = HostSyncOptions.urlList(url)
        if urls.isEmpty { throw ValidationError("--sync-url needs at least one ws:// or wss:// URL, got '\(url)'.") }
        for each in urls where !(each.hasPrefix("ws://") || each.hasPrefix("wss://")) {
            throw ValidationError(
                "--sync-url must be a ws:// or wss:// URL (or several, separated by commas), got '\(each)'.")
        }
    }

    /// The host's options with these flags (host.lua fills in what they leave out).
    func apply(to options: HostOptions) -> HostOptions {
        var options = options
        options.sync.urls = url.map(HostSyncOptions.urlList) ?? []
        options.sync.secretFile = secretFile.map { URL(fileURLWithPath: $0).standardizedFileURL }
        return options
    }
}

extension HostFlags {
    /// Opens the host syncing through `sync`'s server (or host.lua's), or prints why it cannot.
    /// `servedBy`: the lock of the `serve` opening it (no other command opens a served folder).
    func makeHost(sync: SyncFlags, servedBy lock: ServeLock? = nil, openAsStored: Bool = false) throws -> TenantHost {
        do {
            if lock == nil { try ServeLock.refuseIfServed(options.dataFolder) }
            var options = sync.apply(to: options)
            options.openAsStored = openAsStored
            return try TenantHost(options: options) { try NetSyncTransport.make($0) }
        } catch {
            throw CLIError.failed("\(error)")
        }
    }
}
