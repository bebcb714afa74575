import ArgumentParser
import Foundation
import RealmDatabase
import RealmHost

/// `realm-host migrate [--all-users | --user NAME] [--dry-run] [--jobs N]`.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring users' realms to the plugins' schema version.",
        discussion: """
            Each user's realm migrates in one transaction: a user whose migration fails is reported \
            and left untouched, the others are migrated. With --dry-run every migration runs and is \
            rolled back, and the report says what it would do. The exit status is 0 when every user \
            succeeded, 1 otherwise. A progress bar shows on a terminal. Tenants migrate in parallel \
            (--jobs at once, default one per core); the report lists them in the same order whatever \
            order they finished in.
            """
    )

    @OptionGroup var host: HostFlags
    @OptionGroup var sync: SyncFlags

    @Flag(name: .long, help: "Migrate every user with a realm in the data folder.")
    var allUsers = false

    @Option(
        name: .long,
        help: ArgumentHelp("Migrate this user (default: 'default'); repeat for several.", valueName: "name"))
    var user: [String] = []

    @Flag(name: .long, help: "Run the migrations, report, and roll everything back.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("Tenants migrated at once (default: one per core).", valueName: "n"))
    var jobs: Int?

    func validate() throws {
        if allUsers && !user.isEmpty { throw ValidationError("Use either --all-users or --user, not both.") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs needs a whole number ≥ 1.") }
    }

    @Flag(name: .long, help: "Migrate through the realm-host serve running on the data folder (its console socket).")
    var connect = false

    func run() throws {
        try runReportingErrors {
            let names = try user.map(checkedUser)
            if connect {
                return try ConsoleClient.migrate(
                    dataFolder: HostOptions.defaultDataFolder(host.data), allUsers: allUsers, users: names,
                    dryRun: dryRun, jobs: jobs)
            }
            let host = try self.host.makeHost(sync: sync)
            return try MigrationRun.perform(
                host: host, allUsers: allUsers, users: names, dryRun: dryRun, jobs: jobs, output: .standard,
                progressBar: Terminal.errorIsTerminal,
                colour: Terminal.colourAllowed(onTerminal: Terminal.outputIsTerminal))
        }
    }
}

/// One `migrate`: here, or in a serving host for `migrate --connect` (then its report goes to the
/// console and there is no progress bar).
enum MigrationRun {
    /// The exit status: 0 when every user succeeded.
    static func perform(
        host: TenantHost, allUsers: Bool, users requested: [String], dryRun: Bool, jobs: Int?, output: ReplOutput,
        progressBar: Bool, colour: Bool
    ) throws -> Int32 {
        let users: [String]
        // Users another host of the cluster serves: not migrated here (their host migrates them).
        var skipped: [String] = []
        if allUsers {
            let byHost = try host.userNamesByHost()
            users = byHost.servedHere
            skipped = byHost.servedElsewhere
        } else {
            users = requested.isEmpty ? ["default"] : requested
            for name in users where !FileManager.default.fileExists(atPath: try host.fileURL(for: name).path) {
                throw CLIError.failed(
                    "user '\(name)' has no realm in \(displayPath(host.dataFolder)) (no \(name).realm)")
            }
            for name in users { try host.checkServesHere(name) }
        }
        let target = host.registry.schemaVersion
        if users.isEmpty {
            let elsewhere =
                skipped.isEmpty ? "" : " served by this host; \(MigrationReportTable.skipped(skipped.count))"
            output.line("No users in \(displayPath(host.dataFolder))\(elsewhere).")
            return 0
        }
        let progress = progressBar ? ProgressBar(total: users.count) : nil
        var results = [TenantMigrationResult]()
        if let progress {
            // Batches, so that the bar moves as tenants finish (each batch runs in parallel).
            let batch = max(jobs ?? ProcessInfo.processInfo.activeProcessorCount, users.count / 100)
            var start = 0
            progress.draw()
            while start < users.count {
                let slice = Array(users[start..<min(users.count, start + batch)])
                results += host.migrate(users: slice, dryRun: dryRun, jobs: jobs) { user, step in
                    progress.step(user: user, step)
                }
                start += slice.count
                progress.finished(results.count)
            }
            progress.clear()
        } else {
            results = host.migrate(users: users, dryRun: dryRun, jobs: jobs)
        }
        let report = MigrationReportTable.render(
            results, target: target, dryRun: dryRun, skipped: host.cluster == nil ? nil : skipped.count,
            style: Style(enabled: colour))
        output.line(report)
        return results.allSatisfy(\.succeeded) ? 0 : 1
    }
}

/// The per-tenant report of `migrate`.
enum MigrationReportTable {
    /// `skipped`: how many users other hosts of the cluster serve (nil: the host is in no cluster).
    static func render(
        _ results: [TenantMigrationResult], target: UInt64, dryRun: Bool, skipped: Int? = nil, style: Style
    ) -> String {
        var table = TextTable(headers: ["user", "from", "to", "result", "details"], rightAligned: [1, 2])
        table.maxCellWidth = 200
        var migrated = 0
        var current = 0
        var failed = 0
        for r in results {
            if let error = r.error {
                failed += 1
                table.rows.append([r.user, "", "", "FAILED", oneLine(error)])
            } else if let report = r.report {
                if report.migrated {
                    migrated += 1
                    table.rows.append([
                        r.user, "\(report.fromVersion)", "\(report.toVersion)", dryRun ? "would migrate" : "migrated",
                        details(report),
                    ])
                } else {
                    current += 1
                    table.rows.append([r.user, "\(report.fromVersion)", "\(report.toVersion)", "up to date", ""])
                }
            }
        }
        var text = table.render(style: style)
        for r in results {
            if let error = r.error, error.contains("\n") { text += "\n\n" + style.red("\(r.user):") + " " + error }
        }
        var summary = ["\(results.count) user\(results.count == 1 ? "" : "s") at schema version \(target) checked"]
        summary.append(dryRun ? "\(migrated) would migrate (dry run: nothing was changed)" : "\(migrated) migrated")
        summary.append("\(current) up to date")
        summary.append(failed > 0 ? style.red("\(failed) failed (left untouched)") : "0 failed")
        if let skipped { summary.append(self.skipped(skipped)) }
        text += "\n" + summary.joined(separator: ", ") + "."
        return text
    }

    static func skipped(_ count: Int) -> String { "\(count) skipped (served by other hosts)" }

    static func details(_ report: MigrationReport) -> String {
        report.classes.keys.sorted().compactMap { name -> String? in
            let c = report.classes[name]!
            var parts = [String]()
            if c.enumerated > 0 { parts.append("\(c.enumerated) enumerated") }
            if c.changed > 0 { parts.append("\(c.changed) changed") }
            if c.created > 0 { parts.append("\(c.created) created") }
            if c.deleted > 0 { parts.append("\(c.deleted) deleted") }
            return parts.isEmpty ? nil : "\(name): " + parts.joined(separator: ", ")
        }.joined(separator: "; ")
    }

    static func oneLine(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? s
    }
}

/// A progress bar on standard error: tenants done, and the class being enumerated.
final class ProgressBar: @unchecked Sendable {
    private let total: Int
    private let lock = NSLock()
    private var done = 0
    private var detail = ""
    private var lastDraw = Date.distantPast

    init(total: Int) { self.total = total }

    func step(user: String, _ progress: MigrationProgress) {
        lock.lock()
        detail = "\(user): \(progress.className) \(progress.done)/\(progress.total)"
        let now = Date()
        let due = now.timeIntervalSince(lastDraw) > 0.05
        if due { lastDraw = now }
        lock.unlock()
        if due { draw() }
    }

    func finished(_ count: Int) {
        lock.lock()
        done = count
        lock.unlock()
        draw()
    }

    func draw() {
        lock.lock()
        let width = 30
        let filled = total == 0 ? width : width * done / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        var line = "\r\u{1B}[K\(bar) \(done)/\(total) users"
        if !detail.isEmpty { line += "  " + detail }
        lock.unlock()
        let maxWidth = Terminal.width - 1
        if line.count > maxWidth + 4 { line = String(line.prefix(maxWidth + 4)) }
        StandardStreams.err(line)
    }

    func clear() { StandardStreams.err("\r\u{1B}[K") }
}
