import Foundation
import RealmTestSupport
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// Random transactions of store calls, with savepoints nested three deep that keep or undo their
/// writes, run alike on a SQLite store and a PostgreSQL one: every read inside and after them must
/// answer the same. The PostgreSQL store keeps writes pending, caches reads and keeps savepoints in
/// memory until a statement must be sent inside them (`PostgresSyncStoreTransaction`); the reads
/// that force the pending rows out (`heldObjects`, `rewindHeld`, a list read) are mixed in, so
/// savepoints are undone both before and after PostgreSQL has them.
final class StoreTransactionDifferentialTests: XCTestCase {
    private struct Undo: Error {}

    private indirect enum Step {
        case writeObject(Int64, exists: Bool)
        case writeField(Int64, path: Int, value: Int?)
        case forgetFields(Int64)
        case forgetContents(Int64)
        case setHeld(file: UInt64, Int64, held: Bool, version: UInt64)
        case markHeld(file: UInt64, Int64)
        case forgetHeldLog(file: UInt64, before: UInt64)
        case rewindHeld(file: UInt64, to: UInt64)
        case writeClient(file: UInt64, version: UInt64)
        case read(Int64)
        case readHeld(file: UInt64)
        case readList(Int64)
        case prefetch([Int64])
        case savepoint([Step], undo: Bool)
    }

    private static let paths: [[String]] = [["a"], ["b"], ["e"], ["e", "x"], ["e", "y"], ["e", "x", "w"]]
    private static let files: [UInt64] = [1, 2]
    /// Few objects, so steps meet on one often.
    private static let objects = 3

    func testRandomTransactionsReadAlikeOnBothStores() throws {
        let seed = TestSeed.make("store transactions", pinned: 0x5EED_7A11)
        var random = SplitMix64(seed: seed)
        let sqlitePlace = try TestStorePlace("txdiff", kind: .sqlite)
        let postgresPlace = try TestStorePlace("txdiff", kind: .postgres)
        let stores = [
            try sqlitePlace.open(historySalt: 42, schema: nil), try postgresPlace.open(historySalt: 42, schema: nil),
        ]
        for round in 0..<100 {
            let steps = Self.steps(&random, depth: 0)
            let undoAll = random.next() % 8 == 0
            let transcripts = try stores.map { store in
                var transcript: [String] = []
                do {
                    try store.write { transaction in
                        try Self.run(steps, transaction, &transcript)
                        if undoAll { throw Undo() }
                    }
                } catch is Undo {
                    transcript.append("transaction undone")
                }
                try store.read { try Self.dump($0, &transcript) }
                return transcript
            }
            guard transcripts[0] == transcripts[1] else {
                let first =
                    zip(transcripts[0], transcripts[1]).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? 0
                XCTFail(
                    "round \(round) (seed \(seed)): at line \(first) SQLite read "
                        + "\(transcripts[0].dropFirst(first).first ?? "nothing"), PostgreSQL "
                        + "\(transcripts[1].dropFirst(first).first ?? "nothing")")
                return
            }
        }
    }

    private static func steps(_ random: inout SplitMix64, depth: Int) -> [Step] {
        (0..<Int(random.next() % 12) + 1).map { _ in step(&random, depth: depth) }
    }

    private static func step(_ random: inout SplitMix64, depth: Int) -> Step {
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let object = Int64(pick(objects))
        let file = files[pick(files.count)]
        switch pick(depth < 3 ? 17 : 14) {
        case 0: return pick(2) == 0 ? .writeObject(object, exists: pick(4) != 0) : .forgetFields(object)
        case 1, 2: return .writeField(object, path: pick(paths.count), value: pick(5) == 0 ? nil : pick(100))
        case 3: return .forgetFields(object)
        case 4: return pick(3) == 0 ? .forgetContents(object) : .read(object)
        case 5: return .setHeld(file: file, object, held: pick(3) != 0, version: UInt64(pick(6)))
        case 6: return .markHeld(file: file, object)
        case 7: return .forgetHeldLog(file: file, before: UInt64(pick(6)))
        case 8: return .rewindHeld(file: file, to: UInt64(pick(6)))
        case 9: return .writeClient(file: file, version: UInt64(pick(50)))
        case 10, 11: return .read(object)
        case 12: return pick(2) == 0 ? .readHeld(file: file) : .readList(object)
        case 13: return .prefetch((0..<pick(4) + 1).map { _ in Int64(pick(objects)) })
        default: return .savepoint(steps(&random, depth: depth + 1), undo: pick(3) == 0)
        }
    }

    private static func time(_ value: Int) -> RealmSync.WriteTime {
        RealmSync.WriteTime(clock: HLCTimestamp(rawValue: UInt64(1000 + value)), clientFileID: UInt64(value % 3 + 1))
    }

    /// Runs `steps`; a step that writes below an object first writes the object, so no step fails.
    private static func run(_ steps: [Step], _ t: any SyncStoreTransaction, _ out: inout [String]) throws {
        for step in steps {
            switch step {
            case .writeObject(let key, let exists):
                try t.writeObject(item(key), StoredObject(exists: exists, erasedAt: UInt64(key), creator: "u\(key)"))
            case .writeField(let key, let path, let value):
                try t.writeObject(item(key), StoredObject(exists: true, creator: "u\(key)"))
                try t.writeField(
                    item(key), path: paths[path], StoredField(value: value.map { .int(Int64($0)) }, time: time(path)))
            case .forgetFields(let key):
                try t.forgetFields(of: item(key), below: ["e"])
            case .forgetContents(let key):
                try t.forgetContents(of: item(key))
            case .setHeld(let file, let key, let held, let version):
                try t.writeObject(item(key), StoredObject(exists: true, creator: "u\(key)"))
                try t.setHeld(file, item(key), held, at: ViewPosition(serverVersion: version, queryVersion: 0))
            case .markHeld(let file, let key):
                try t.markHeld(file, item(key))
            case .forgetHeldLog(let file, let before):
                try t.forgetHeldLog(of: file, before: before)
            case .rewindHeld(let file, let version):
                try t.rewindHeld(of: file, to: ViewPosition(serverVersion: version, queryVersion: 0))
            case .writeClient(let file, let version):
                try t.writeClient(ClientRecord(fileID: file, salt: 7, lastIntegratedClientVersion: version, user: "u"))
            case .read(let key):
                try read(key, t, &out)
            case .readHeld(let file):
                out.append("held by \(file): \(try t.heldObjects(by: file, after: 0, limit: 100).map(\.ref).sorted())")
            case .readList(let key):
                out.append("list of \(key): \(try t.listElements(item(key), field: "l").count)")
            case .prefetch(let keys):
                try t.prefetch(keys.map(item))
            case .savepoint(let inner, let undo):
                do {
                    try t.savepoint {
                        try run(inner, t, &out)
                        if undo { throw Undo() }
                    }
                    out.append("savepoint kept")
                } catch is Undo {
                    out.append("savepoint undone")
                }
            }
        }
    }

    private static func read(_ key: Int64, _ r: any SyncStoreReader, _ out: inout [String]) throws {
        let ref = item(key)
        out.append("object \(key): \(String(describing: try r.object(ref)))")
        for path in paths { out.append("field \(key).\(path): \(String(describing: try r.field(ref, path: path)))") }
        out.append("top \(key): \(try r.topLevelFields(of: ref).sorted { $0.key < $1.key })")
        out.append("times \(key): \(try r.fieldTimes(of: ref))")
        out.append("holders \(key): \(try r.holders(of: ref).sorted())")
        for file in files { out.append("holds \(file) \(key): \(try r.holds(file, ref))") }
    }

    private static func dump(_ r: any SyncStoreReader, _ out: inout [String]) throws {
        for key in 0..<Int64(objects) { try read(key, r, &out) }
        for file in files {
            out.append("client \(file): \(String(describing: try r.client(file)))")
            out.append("held by \(file): \(try r.heldObjects(by: file, after: 0, limit: 100).map(\.ref).sorted())")
        }
    }
}
