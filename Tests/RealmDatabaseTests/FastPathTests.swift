import Foundation
import RealmTestSupport
import XCTest

@testable import RealmDatabase

/// The fast paths of the hot loops: streaming reads straight from the statement (`RowCursor`,
/// objects reused when the loop body keeps none), inserts bound straight into the prepared
/// statement, slot lookup by name bits, and the run-length key sets of change logs. Each test
/// checks a behaviour the fast path could break.
final class FastPathTests: RealmTestCase {
    private func schema() -> Schema {
        Schema([
            ObjectSchema(
                className: "Item",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "count", type: .int, defaultValue: 7),
                    Property(name: "note", type: .string, isOptional: true),
                    Property(name: "any", type: .mixed),
                    Property(name: "next", type: .object, objectClassName: "Item"),
                    Property(name: "tags", type: .string, collection: .list),
                    Property(name: "a_property_with_a_name_longer_than_fifteen_bytes", type: .int, defaultValue: 1),
                ])
        ])
    }

    private func openRealm() throws -> Realm {
        var config = Realm.Configuration(fileURL: fileURL())
        config.schema = schema()
        return try Realm(configuration: config)
    }

    private func fill(_ realm: Realm, _ n: Int) throws {
        try realm.write {
            for i in 0..<n { try realm.create("Item", value: ["name": .string("item \(i)"), "count": .int(Int64(i))]) }
        }
    }

    // MARK: Streaming reads

    func testObjectsKeptFromAStreamingLoopKeepTheirOwnValues() throws {
        let realm = try openRealm()
        try fill(realm, 50)
        var kept = [DynamicObject]()
        var seen = [String]()
        try realm.objects("Item").forEach { item in
            seen.append(try item["name"].stringValue ?? "?")
            if try item["count"].intValue! % 10 == 0 { kept.append(item) }
        }
        XCTAssertEqual(seen, (0..<50).map { "item \($0)" })
        // Read after the loop moved on (and ended): each is still its own object.
        XCTAssertEqual(try kept.map { try $0["count"].intValue! }, [0, 10, 20, 30, 40])
        XCTAssertEqual(
            try kept.map { try $0["name"].stringValue! }, ["item 0", "item 10", "item 20", "item 30", "item 40"])
        XCTAssertEqual(Set(kept.compactMap(\.objectKey)).count, 5)
    }

    func testAnObjectNotKeptIsNotAliasedByTheNext() throws {
        let realm = try openRealm()
        try fill(realm, 3)
        var previous: ObjectIdentifier?
        var sameHandleAsPrevious = 0
        var keys = [Int64]()
        try realm.objects("Item").forEach { item in
            // Not kept: the loop may hand the same instance back for the next row, which must
            // then read the next row's values.
            if previous == ObjectIdentifier(item) { sameHandleAsPrevious += 1 }
            previous = ObjectIdentifier(item)
            keys.append(item.objectKey!)
            XCTAssertEqual(try item["count"].intValue, Int64(keys.count - 1))
        }
        XCTAssertEqual(keys.count, 3)
        XCTAssertEqual(Set(keys).count, 3)
        XCTAssertEqual(sameHandleAsPrevious, 2, "an object the body did not keep is reused")
    }

    func testAWriteInsideTheLoopIsSeenByTheCurrentObject() throws {
        let realm = try openRealm()
        try fill(realm, 5)
        var after = [Int64]()
        try realm.objects("Item").forEach { item in
            try item.setValue(.int(100), forKey: "count", mode: .implicit)
            // The statement's columns are stale now; the object must read the committed value.
            after.append(try item["count"].intValue!)
        }
        XCTAssertEqual(after, Array(repeating: 100, count: 5))
        XCTAssertEqual(try realm.objects("Item").sum(ofProperty: "count").intValue, 500)
    }

    func testEveryKindOfPropertyReadsTheSameInsideAndOutsideTheLoop() throws {
        let realm = try openRealm()
        try realm.write {
            let first = try realm.create(
                "Item", value: ["name": "first", "note": "n", "any": .double(2.5), "tags": .list(["a", "b"])])
            try realm.create("Item", value: ["name": "second", "any": .object(first), "next": .object(first)])
            try realm.create("Item", value: ["name": "third", "any": .string("text")])
        }
        let names = [
            "name", "count", "note", "any", "next", "tags", "a_property_with_a_name_longer_than_fifteen_bytes",
        ]
        var inLoop = [[String]]()
        var handles = [DynamicObject]()
        try realm.objects("Item").forEach { item in
            inLoop.append(try names.map { "\(try item.value(forKey: $0))" })
            handles.append(item)
        }
        let afterwards = try handles.map { item in try names.map { "\(try item.value(forKey: $0))" } }
        XCTAssertEqual(inLoop, afterwards)
        XCTAssertEqual(inLoop.count, 3)
        XCTAssertEqual(inLoop[0][1], "7", "the default of an omitted property")
        XCTAssertEqual(inLoop[0][6], "1")
        XCTAssertEqual(try handles[1]["next"].objectValue?["name"].stringValue, "first")
        XCTAssertEqual(try handles[1]["any"].objectValue?["name"].stringValue, "first")
        XCTAssertEqual(try handles[2]["any"].stringValue, "text")
    }

    func testALoopLeftEarlyDoesNotKeepTheRealmOnItsSnapshot() throws {
        let realm = try openRealm()
        try fill(realm, 10)
        struct Stop: Error {}
        var kept: DynamicObject?
        XCTAssertThrowsError(
            try realm.objects("Item").forEach { item in
                kept = item
                throw Stop()
            })
        // Another instance commits; the first must see it although an object of the stopped
        // loop is still alive.
        let other = try Realm(configuration: realm.configuration)
        try other.write { try other.create("Item", value: ["name": "from elsewhere"]) }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 11)
        XCTAssertEqual(try kept?["name"].stringValue, "item 0")
    }

    func testUnknownPropertyInTheLoopIsTheUsualError() throws {
        let realm = try openRealm()
        try fill(realm, 1)
        try realm.objects("Item").forEach { item in
            assertRealmError(try item.value(forKey: "nope"), "Property 'nope' does not exist on object type 'Item'.")
        }
    }

    func testNamesThatAreNotInlineStringsAreFound() throws {
        let realm = try openRealm()
        try fill(realm, 1)
        let object = try XCTUnwrap(realm.objects("Item").first)
        // Built at run time, so its storage differs from the schema's copy of the name.
        let long = ["a_property", "with_a_name", "longer_than_fifteen_bytes"].joined(separator: "_")
        XCTAssertEqual(try object.value(forKey: long).intValue, 1)
        let short = String("xcount".dropFirst())
        XCTAssertEqual(try object.value(forKey: short).intValue, 0)
    }

    // MARK: Inserts

    func testCreateFillsDefaultsAndRejectsUnknownNamesBeforeWriting() throws {
        let realm = try openRealm()
        try realm.write {
            let item = try realm.create("Item", value: ["name": "only a name"])
            XCTAssertEqual(try item["count"].intValue, 7)
            XCTAssertTrue(try item["note"].isNull)
            XCTAssertTrue(try item["any"].isNull)
            // An unknown name fails even when a nested value would create an object first.
            assertRealmError(
                try realm.create("Item", value: ["next": ["name": "nested"], "bogus": 1]),
                "Property 'bogus' does not exist on object type 'Item'.")
            // So does a bad plain value.
            XCTAssertThrowsError(try realm.create("Item", value: ["next": ["name": "nested"], "count": "many"]))
        }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
    }

    func testNestedObjectsOfTheSameClassAreCreatedInPropertyOrder() throws {
        let realm = try openRealm()
        try realm.write {
            // `next` and `any` both create an Item while the outer Item is being inserted: the
            // prepared INSERT is reused by the nested inserts, so the outer one binds after them.
            let outer = try realm.create(
                "Item",
                value: [
                    "name": "outer", "count": 1,
                    "any": .object(DynamicObject(className: "Item", value: ["name": "in any"])),
                    "next": .dictionary(["name": "in next", "next": .dictionary(["name": "deepest"])]),
                ])
            XCTAssertEqual(try outer["name"].stringValue, "outer")
            XCTAssertEqual(try outer["count"].intValue, 1)
            XCTAssertEqual(try outer["next"].objectValue?["name"].stringValue, "in next")
            XCTAssertEqual(try outer["next"].objectValue?["next"].objectValue?["name"].stringValue, "deepest")
        }
        // Keys follow creation order: `any` (declared before `next`) first, then next's chain.
        var names = [String]()
        try realm.objects("Item").forEach { names.append(try $0["name"].stringValue!) }
        XCTAssertEqual(names, ["in any", "deepest", "in next", "outer"])
    }

    func testAFailedInsertDoesNotLeakItsBindingsIntoTheNext() throws {
        let realm = try openRealm()
        try realm.write {
            try realm.create("Item", value: ["name": "a", "note": "kept?", "count": 3])
            XCTAssertThrowsError(
                try realm.create("Item", value: ["name": "b", "note": "bad", "count": "not a number"]))
            let c = try realm.create("Item", value: ["name": "c"])
            XCTAssertTrue(try c["note"].isNull, "note must be the default, not a value bound for an earlier insert")
            XCTAssertEqual(try c["count"].intValue, 7)
        }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 2)
    }

    func testChangeLogRecordsBulkInsertsAndDeletes() throws {
        let realm = try openRealm()
        try realm.beginWrite()
        for i in 0..<1000 { try realm.create("Item", value: ["name": .string("\(i)")]) }
        // Deleting one just inserted removes it from the insertions: it never existed outside.
        let last = try XCTUnwrap(realm.objects("Item").last)
        try realm.delete(last)
        let log = try XCTUnwrap(realm.transaction)
        realm.cancelWrite()
        let inserted = try XCTUnwrap(log.classes["Item"]?.insertions)
        XCTAssertEqual(inserted.count, 999)
        XCTAssertEqual(Array(inserted), Array(inserted).sorted())
        XCTAssertEqual(log.classes["Item"]?.deletions.isEmpty, true)
        XCTAssertEqual(log.highestInsertedKeys["Item"], last.objectKey, "the deleted key still counts as given out")
        // Cancelled keys are never given out again.
        try realm.write { try realm.create("Item", value: ["name": "after"]) }
        XCTAssertGreaterThan(try XCTUnwrap(realm.objects("Item").first?.objectKey), try XCTUnwrap(last.objectKey))
    }
}

/// `KeySet` against `Set<Int64>` on random operations, plus its run representation.
final class KeySetTests: XCTestCase {
    func testBehavesLikeASetOnRandomOperations() {
        let seed = TestSeed.make("KeySet random operations")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<50 {
            var keys = KeySet()
            var reference = Set<Int64>()
            for _ in 0..<400 {
                let key = Int64.random(in: 0..<60, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0, 1: XCTAssertEqual(keys.insert(key), reference.insert(key).inserted, "seed \(seed)")
                default: XCTAssertEqual(keys.remove(key), reference.remove(key) != nil, "seed \(seed)")
                }
                XCTAssertEqual(keys.count, reference.count, "seed \(seed)")
            }
            XCTAssertEqual(Array(keys), reference.sorted(), "seed \(seed)")
            XCTAssertEqual(keys.ranges.flatMap { Array($0) }, reference.sorted(), "ranges (seed \(seed))")
            XCTAssertTrue(
                zip(keys.ranges, keys.ranges.dropFirst()).allSatisfy { $0.upperBound + 1 < $1.lowerBound },
                "ranges are disjoint and not adjacent (seed \(seed))")
            for key in Int64(-1)...61 { XCTAssertEqual(keys.contains(key), reference.contains(key), "seed \(seed)") }
            XCTAssertEqual(
                keys, KeySet(reference.shuffled(using: &generator)),
                "equal sets compare equal whatever the insertion order (seed \(seed))")
        }
    }

    func testAscendingInsertsFormOneRun() {
        var keys = KeySet()
        for key in Int64(1)...100_000 { keys.insert(key) }
        XCTAssertEqual(keys.count, 100_000)
        XCTAssertEqual(keys.description, "[1...100000]")
        keys.remove(50_000)
        XCTAssertEqual(keys.description, "[1...49999, 50001...100000]")
        keys.insert(50_000)
        XCTAssertEqual(keys.description, "[1...100000]")
    }

    func testAnyOrderStaysFast() {
        // Deletions come in a query's sort order: descending keys with gaps, 200,000 of them.
        // Kept as runs alone, each would shift every run after it: quadratic, minutes here.
        var keys = KeySet()
        for key in stride(from: Int64(400_000), to: 0, by: -2) { keys.insert(key) }
        XCTAssertEqual(keys.count, 200_000)
        XCTAssertTrue(keys.contains(2) && keys.contains(400_000) && !keys.contains(3))
        XCTAssertEqual(keys.first(where: { _ in true }), 2)
        XCTAssertTrue(keys.remove(1000))
        XCTAssertFalse(keys.contains(1000))
        XCTAssertEqual(keys.count, 199_999)
        // A scattered key past the last run after removals is still found, not added twice.
        var small: KeySet = [1, 2, 3, 10]
        small.insert(5)  // out of order
        small.remove(10)
        small.remove(3)  // the last run now ends at 2, below 5
        XCTAssertFalse(small.insert(5))
        XCTAssertEqual(Array(small), [1, 2, 5])
        XCTAssertEqual(small, [1, 2, 5])
        XCTAssertEqual(small.hashValue, KeySet([5, 2, 1]).hashValue)
    }

    func testUnion() {
        var a: KeySet = [1, 2, 3, 10]
        a.formUnion([3, 4, 11, 20])
        XCTAssertEqual(Array(a), [1, 2, 3, 4, 10, 11, 20])
        XCTAssertEqual(a.description, "[1...4, 10...11, 20]")
    }
}
