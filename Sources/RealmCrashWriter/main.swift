// realm-crash-writer: the program the crash-safety tests (Tests/ReliabilityTests/CrashSafetyTests.swift)
// kill with SIGKILL at random moments. Each mode writes through the normal API and prints one line,
// flushed, after each operation the API reported done; the test compares what it was told with
// what the realm holds after the kill.
//
//   RealmCrashWriter commits FILE [ROWS]          numbered transactions 1, 2, 3, … (continuing
//                                                 after the highest one in FILE), each writing
//                                                 ROWS `Entry` rows and the `Head` object;
//                                                 prints "committed N" after each commit
//   RealmCrashWriter subscriptions FILE           subscription updates numbered 1, 2, 3, …, each
//                                                 replacing the whole set by 8 named subscriptions
//                                                 (even ones inside a write that also creates a
//                                                 `Generation` object); prints "updated N"
//   RealmCrashWriter migrate DATA PLUGINS USER    migrates USER's realm with the plugins in
//                                                 PLUGINS (TenantHost.migrate); prints "migrated" after it
//
// Every mode prints "ready" once the realm (or host) is open. Exit status 0 only for `migrate`
// (the loops run until killed); 2 for bad arguments, 1 for an error (printed on stderr).
import Foundation
import RealmDatabase
import RealmHost

/// The writer's schemas; the tests read them back from the files.
enum CrashSchemas {
    static var commits: Schema {
        Schema([
            ObjectSchema(
                className: "Entry",
                properties: [
                    Property(name: "txn", type: .int, isIndexed: true),
                    Property(name: "part", type: .int),
                    Property(name: "payload", type: .string),
                ]),
            ObjectSchema(
                className: "Head",
                properties: [
                    Property(name: "_id", type: .int),
                    Property(name: "last", type: .int),
                    Property(name: "parts", type: .int),
                ], primaryKey: "_id"),
        ])
    }

    static var subscriptions: Schema {
        Schema([
            ObjectSchema(
                className: "Entry",
                properties: [
                    Property(name: "txn", type: .int, isIndexed: true),
                    Property(name: "part", type: .int),
                    Property(name: "payload", type: .string),
                ]),
            ObjectSchema(className: "Generation", properties: [Property(name: "n", type: .int)]),
        ])
    }
}

/// One line on standard output, written at once (unbuffered): once it is out, the test has been told.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

/// Deterministic filler, different per transaction and part, so pages differ from one commit to the next.
func payload(_ txn: Int64, _ part: Int, bytes: Int) -> String {
    var x = UInt64(bitPattern: txn) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(part)
    let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes)
    for _ in 0..<bytes {
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
        out.append(letters[Int(x % UInt64(letters.count))])
    }
    return String(decoding: out, as: UTF8.self)
}

func runCommits(_ path: String, rows: Int) throws -> Never {
    var config = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
    config.schema = CrashSchemas.commits
    let realm = try Realm(configuration: config)
    var n = try realm.objects("Entry").max(ofProperty: "txn")?.intValue ?? 0
    say("ready \(n)")
    while true {
        n += 1
        let txn = n
        let body = {
            for part in 0..<rows {
                _ = try realm.create(
                    "Entry",
                    value: [
                        "txn": .int(txn), "part": .int(Int64(part)), "payload": .string(payload(txn, part, bytes: 512)),
                    ])
            }
            _ = try realm.create(
                "Head", value: ["_id": 0, "last": .int(txn), "parts": .int(Int64(rows))], update: .modified)
        }
        // Both ways of writing: the block form, and begin/commit.
        if txn % 2 == 0 {
            try realm.write(body)
        } else {
            try realm.beginWrite()
            do { try body() } catch {
                realm.cancelWrite()
                throw error
            }
            try realm.commitWrite()
        }
        say("committed \(txn)")
    }
}

func runSubscriptions(_ path: String) throws -> Never {
    var config = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
    config.schema = CrashSchemas.subscriptions
    let realm = try Realm(configuration: config)
    var n = try realm.subscriptions.version
    say("ready \(n)")
    while true {
        n += 1
        let generation = n
        let update = {
            try realm.subscriptions.update { subs in
                try subs.removeAll()
                for i in 0..<8 {
                    try subs.append(
                        QuerySubscription(
                            className: "Entry", name: "g\(generation)-\(i)",
                            query: "txn > \(generation) AND part != \(i)"))
                }
            }
        }
        if generation % 2 == 0 {
            // Inside a write with other changes: the update joins that transaction.
            try realm.write {
                _ = try realm.create("Generation", value: ["n": .int(generation)])
                try update()
            }
        } else {
            try update()
        }
        say("updated \(generation)")
    }
}

func runMigration(data: String, plugins: String, user: String) throws -> Never {
    let host = try TenantHost(
        options: HostOptions(
            dataFolder: URL(fileURLWithPath: data, isDirectory: true),
            pluginFolders: [URL(fileURLWithPath: plugins, isDirectory: true)]))
    say("ready")
    let results = host.migrate(users: [user])
    guard let result = results.first, result.succeeded else {
        fail("migration failed: \(results.first?.error ?? "no result")")
    }
    say("migrated \(result.report?.toVersion ?? 0)")
    exit(0)
}

let args = CommandLine.arguments
do {
    switch args.count > 1 ? args[1] : "" {
    case "commits" where args.count >= 3:
        try runCommits(args[2], rows: args.count > 3 ? Int(args[3]) ?? 16 : 16)
    case "subscriptions" where args.count >= 3:
        try runSubscriptions(args[2])
    case "migrate" where args.count >= 5:
        try runMigration(data: args[2], plugins: args[3], user: args[4])
    default:
        fail("usage: RealmCrashWriter commits FILE [ROWS] | subscriptions FILE | migrate DATA PLUGINS USER", status: 2)
    }
} catch {
    fail("error: \(error)")
}
