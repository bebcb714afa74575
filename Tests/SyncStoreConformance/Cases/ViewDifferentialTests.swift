import Foundation
import RealmDatabase
import RealmTestSupport
import Testing

@testable import RealmSync

/// The three evaluations of a view query must agree: the local query engine
/// (`realm.objects(C).filter(q)`), the evaluator on the objects' `SyncValue`s, and the SQLite sync
/// store's `existingObjects(matching:)` after integrating the same objects.
@Suite struct ViewDifferentialTests {
    /// Thing { _id: int (pk), i: int, oi: int?, d: double, od: double?, f: float, s: string,
    /// os: string?, b: bool, ob: bool?, t: date, ot: date? }.
    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Thing",
                properties: [
                    Property(name: "_id", type: .int),
                    Property(name: "i", type: .int), Property(name: "oi", type: .int, isOptional: true),
                    Property(name: "d", type: .double), Property(name: "od", type: .double, isOptional: true),
                    Property(name: "f", type: .float),
                    Property(name: "s", type: .string), Property(name: "os", type: .string, isOptional: true),
                    Property(name: "b", type: .bool), Property(name: "ob", type: .bool, isOptional: true),
                    Property(name: "t", type: .date), Property(name: "ot", type: .date, isOptional: true),
                ], primaryKey: "_id")
        ])
    }

    private let folder: ClientTestFolder

    init() throws { folder = try ClientTestFolder() }

    @Test(arguments: StoreKind.available)
    func testLocalEngineEvaluatorAndStoreAgreeOnRandomQueries(on kind: StoreKind) throws {
        let seed = TestSeed.make("ViewDifferentialTests.random")
        var random = SplitMix64(seed: seed)
        let objects = (0..<80).map { id in ViewRandomData.object(Int64(id), random: &random) }
        let realm = try Realm(
            configuration: Realm.Configuration(
                fileURL: folder.url.appendingPathComponent("local.realm"), schema: Self.schema))
        try realm.write {
            for fields in objects {
                _ = try realm.create("Thing", value: .dictionary(fields.mapValues(ViewRandomData.realmValue)))
            }
        }
        let fixture = try ServerFixture(on: kind, schema: Self.schema)
        try fixture.clients(1)
        try fixture.integrate(
            changeset(
                1, 1, clock: serverTestNow - 10,
                objects.map { fields in
                    let key = fields["_id"].flatMap { SyncPrimaryKey($0) } ?? .int(-1)
                    return .create(ObjectRef("Thing", key), fields: fields.map { SyncField($0.key, $0.value) })
                }))
        let queryable = Set(Self.schema["Thing"]?.properties.map(\.name) ?? [])
        var informative = 0
        for round in 0..<300 {
            let query = ViewRandomData.predicate(depth: 3, random: &random)
            let context = "seed \(seed), round \(round): \(query)"
            let predicate = try ViewQueryCompiler.compile(
                query, className: "Thing", schema: Self.schema, queryable: queryable, allowsUser: false)
            let local = Set(
                try realm.objects("Thing").filter(query).map { object -> Int64 in
                    guard case .int(let id) = try object.value(forKey: "_id") else { return -1 }
                    return id
                })
            let evaluated = Set(
                objects.filter { fields in
                    predicate.matches(ViewSubject(creator: "u") { fields[$0] ?? .null }, user: "u")
                }.compactMap { fields -> Int64? in
                    guard case .int(let id)? = fields["_id"] else { return nil }
                    return id
                })
            let stored = Set(
                try fixture.store.read { reader in
                    try reader.existingObjects(ofClass: "Thing", matching: predicate, user: "u", after: 0, limit: 1000)
                }.compactMap { row -> Int64? in
                    guard case .int(let id) = row.ref.primaryKey else { return nil }
                    return id
                })
            #expect(evaluated == local, "evaluator vs local engine, \(context)")
            #expect(stored == local, "store vs local engine, \(context)")
            if evaluated != local || stored != local { return }
            if !local.isEmpty && local.count < objects.count { informative += 1 }
        }
        // Most queries split the objects: the agreement is not that of empty or full sets.
        #expect(informative > 150, "seed \(seed)")
    }

    @Test(arguments: StoreKind.available)
    func testAFieldNeverWrittenReadsAsItsDefaultInTheStore(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind, schema: Self.schema)
        let ref = ObjectRef("Thing", .int(1))
        try fixture.store.write { transaction in
            try transaction.writeObject(ref, StoredObject(exists: true, erasedAt: 0, erasedBy: 0, creator: "u"))
        }
        let queryable = Set(Self.schema["Thing"]?.properties.map(\.name) ?? [])
        for (query, matches) in [
            ("i == 0", true), ("oi == nil", true), ("s == ''", true), ("b == false", true), ("i == 1", false),
            ("t == 1970-01-01@00:00:00", true), ("os BEGINSWITH ''", false),
        ] {
            let predicate = try ViewQueryCompiler.compile(
                query, className: "Thing", schema: Self.schema, queryable: queryable, allowsUser: false)
            let found = try fixture.store.read {
                try $0.existingObjects(ofClass: "Thing", matching: predicate, user: "u", after: 0, limit: 10)
            }
            #expect(found.map(\.ref) == (matches ? [ref] : []), "\(query)")
        }
    }

    @Test(arguments: StoreKind.available)
    func testCreatedByUserMatchesTheCreatorInStoreAndEvaluator(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind, schema: Self.schema)
        try fixture.store.write { transaction in
            for (key, creator) in [(1, "ann"), (2, "bob")] {
                try transaction.writeObject(
                    ObjectRef("Thing", .int(Int64(key))),
                    StoredObject(exists: true, erasedAt: 0, erasedBy: 0, creator: creator))
            }
        }
        let found = try fixture.store.read {
            try $0.existingObjects(ofClass: "Thing", matching: .createdByUser, user: "bob", after: 0, limit: 10)
        }
        #expect(found.map(\.ref) == [ObjectRef("Thing", .int(2))])
        #expect(ViewPredicate.createdByUser.matches(ViewSubject(creator: "bob") { _ in .null }, user: "bob"))
        #expect(!(ViewPredicate.createdByUser.matches(ViewSubject(creator: "ann") { _ in .null }, user: "bob")))
    }
}
