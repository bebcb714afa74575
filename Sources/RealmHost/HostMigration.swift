import Foundation
import RealmDatabase
import Synchronization

/// The outcome of migrating one tenant.
public struct TenantMigrationResult: Sendable {
    public let user: String
    public let report: MigrationReport?
    public let error: String?
    public var succeeded: Bool { error == nil }
}

extension TenantHost {
    /// Brings tenants' realms to the plugins' schema version, each in its own transaction: one
    /// tenant's failure is reported and leaves it untouched, the others migrated. Tenants run in
    /// parallel, `jobs` at once (default: as many as there are cores; each tenant is its own file,
    /// so they share nothing but the plugin registry); the results come back in `users`' order
    /// whatever order they finished in. With `dryRun` every migration is rolled back.
    public func migrate(
        users: [String], dryRun: Bool = false, jobs: Int? = nil,
        progress: (@Sendable (String, MigrationProgress) -> Void)? = nil
    ) -> [TenantMigrationResult] {
        let results = Mutex<[Int: TenantMigrationResult]>([:])
        let workers = max(1, min(users.count, jobs ?? ProcessInfo.processInfo.activeProcessorCount))
        let next = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.withLock { n -> Int in
                    defer { n += 1 }
                    return n
                }
                guard i < users.count else { return }
                let result = migrateOne(users[i], dryRun: dryRun, progress: progress)
                results.withLock { $0[i] = result }
            }
        }
        return results.withLock { r in users.indices.compactMap { r[$0] } }
    }

    func migrateOne(_ user: String, dryRun: Bool, progress: (@Sendable (String, MigrationProgress) -> Void)?)
        -> TenantMigrationResult
    {
        do {
            let url = try fileURL(for: user)
            try checkServesHere(user)
            let target = registry.schemaVersion
            let stored =
                FileManager.default.fileExists(atPath: url.path) ? try? Realm.storedSchemaVersion(at: url) : nil
            if let stored, stored == target, let why = try unversionedSchemaChange(at: url, version: stored) {
                throw HostError.plugin(why)
            }
            // A tenant already at the target version needs no Lua at all: its version is read directly.
            if !dryRun, let stored, stored == target {
                return TenantMigrationResult(
                    user: user,
                    report: MigrationReport(fromVersion: stored, toVersion: stored, migrated: false, dryRun: false),
                    error: nil)
            }
            // Nor does a step no plugin has code for (added or removed properties and classes
            // migrate by themselves): then no Lua state is built for the tenant.
            if let stored, stored < target,
                !registry.plugins.contains(where: { plugin in
                    plugin.hasMigrationFunction || plugin.migrationFiles.keys.contains { $0 > stored && $0 <= target }
                })
            {
                try fileAccessPolicy(for: user)(url)
                var configuration = Realm.Configuration(fileURL: url)
                configuration.schema = registry.schema
                configuration.schemaVersion = target
                if let progress { configuration.migrationProgress = { progress(user, $0) } }
                return TenantMigrationResult(
                    user: user, report: try Realm.performMigration(for: configuration, dryRun: dryRun), error: nil)
            }
            var (runtime, _, configuration) = try makeRuntime(for: user)
            if let progress { configuration.migrationProgress = { progress(user, $0) } }
            let report = try withExtendedLifetime(runtime) {
                try Realm.performMigration(for: configuration, dryRun: dryRun)
            }
            return TenantMigrationResult(user: user, report: report, error: nil)
        } catch {
            return TenantMigrationResult(user: user, report: nil, error: "\(error)")
        }
    }

    /// Why a realm stored at the plugins' schema version cannot open with their schema: a change
    /// to it that needs a migration (a property added, removed or retyped) made without raising a
    /// `schemaVersion`. Names each change, the plugin whose class it is, and what to raise; nil when
    /// the schemas agree (or the file holds no readable schema).
    func unversionedSchemaChange(at url: URL, version: UInt64) throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path), let stored = try Realm.storedSchema(at: url) else {
            return nil
        }
        let changes = stored.schema.changes(to: registry.schema).filter(\.requiresMigration)
        guard !changes.isEmpty else { return nil }
        var owners: [String] = []
        let lines = changes.map { change -> String in
            guard let className = change.className,
                let plugin = registry.plugins.first(where: { $0.schema[className] != nil })
            else { return "\(change)" }
            if !owners.contains(plugin.name) { owners.append(plugin.name) }
            let sentence = "\(change)".hasSuffix(".") ? String("\(change)".dropLast()) : "\(change)"
            return "\(sentence) (plugin \(plugin.name), \(PluginLoader.displayPath(plugin.folder))/plugin.lua)."
        }
        let whose = owners.isEmpty ? "the plugin's" : owners.map { "plugin \($0)'s" }.joined(separator: " or ")
        return "the plugins' schema differs from the realm's, both at schema version \(version), in ways that need "
            + "a migration:\n- " + lines.joined(separator: "\n- ") + "\nRaise \(whose) schemaVersion to \(version + 1) "
            + "(with a migration step if the data must change) so that the realm migrates."
    }
}
