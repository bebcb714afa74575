import Foundation
import RealmDatabase
import RealmSync

/// A user of the host as `realm-host users` lists it.
public struct UserInfo: Equatable {
    public let name: String
    public let schemaVersion: UInt64
    /// Objects per class, in the user's realm and its flexible-sync realm (`<user>.sync.realm`)
    /// together: a synced user's objects are there.
    public let objectCounts: [String: Int]
    /// The realm file's size with its write-ahead log, in bytes.
    public let fileSize: Int
    /// Set when the file could not be read.
    public let error: String?
    /// `local` (none of the user's files ever synced), `synced` (every commit acknowledged), or
    /// `N pending` (commits waiting for upload, in all the user's synced files); `?` when a file
    /// could not be read.
    public let syncState: String
    /// The host that serves the user when the host is part of a cluster (`HostCluster`), else nil.
    public let servedBy: String?
}

extension TenantHost {
    /// The users with a realm file in the data folder, by name.
    public func userNames() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: dataFolder.path)
        return names.filter { $0.hasSuffix(".realm") }
            .map { String($0.dropLast(".realm".count)) }
            .filter { (try? UserName.validate($0)) != nil && !$0.contains(".") }
            .sorted()
    }

    /// Each user's schema version, object counts and file size (files are opened read-only).
    public func users() throws -> [UserInfo] {
        try userNames().map { try info(for: $0) }
    }

    public func info(for user: String) throws -> UserInfo {
        let url = try fileURL(for: user)
        let size = ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: url.path + suffix)[.size] as? Int) ?? 0)
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
            var counts = try Self.objectCounts(in: realm)
            let synced = dataFolder.appendingPathComponent("\(user).sync.realm")
            if FileManager.default.fileExists(atPath: synced.path) {
                let syncRealm = try Realm(configuration: Realm.Configuration(fileURL: synced, readOnly: true))
                counts.merge(try Self.objectCounts(in: syncRealm), uniquingKeysWith: +)
            }
            return UserInfo(
                name: user, schemaVersion: realm.schemaVersion, objectCounts: counts, fileSize: size, error: nil,
                syncState: syncState(of: user), servedBy: cluster?.host(for: user))
        } catch {
            return UserInfo(
                name: user, schemaVersion: 0, objectCounts: [:], fileSize: size, error: "\(error)",
                syncState: syncState(of: user), servedBy: cluster?.host(for: user))
        }
    }

    /// Objects per top-level class of `realm`.
    private static func objectCounts(in realm: Realm) throws -> [String: Int] {
        var counts = [String: Int]()
        for objectSchema in realm.schema.objectSchemas where !objectSchema.isEmbedded {
            counts[objectSchema.className] = try realm.objects(objectSchema.className).countObjects()
        }
        return counts
    }

    /// The sync state of the user's files (`<user>.realm` and `<user>.NAME.realm`, the flexible-sync
    /// one `<user>.sync.realm` among them), each opened read-only.
    func syncState(of user: String) -> String {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: dataFolder.path)) ?? [])
            .filter { $0 == "\(user).realm" || ($0.hasPrefix("\(user).") && $0.hasSuffix(".realm")) }
        var synced = false
        var pending = 0
        for file in files {
            let url = dataFolder.appendingPathComponent(file)
            do {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
                guard let count = try SyncClient.pendingCommitCount(in: realm) else { continue }
                synced = true
                pending += count
            } catch {
                return "?"
            }
        }
        guard synced else { return "local" }
        return pending == 0 ? "synced" : "\(pending) pending"
    }
}
