import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// Lists, sets and maps of links between synced objects. The server keeps a link by reference
/// whether or not its object exists; a replica keeps one to an object it lacks as Realm keeps an
/// unresolved link (out of a list or set, null in a map), shows it in its dump, and restores it
/// when the object comes (realm-core's test_unresolved_links.cpp: `Unresolved_LinkList`,
/// `Unresolved_LinkSet`, `Unresolved_Dictionary`).
final class LinkCollectionSyncTests: XCTestCase {
    private var folder: ClientTestFolder!
    private let wall = ManualWallClock.clientStart()

    override func setUpWithError() throws { folder = try ClientTestFolder() }
    override func tearDown() { folder = nil }

    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "id", type: .string, isPrimaryKey: true),
                    Property(name: "friend", type: .object, objectClassName: "Person", isOptional: true),
                    Property(name: "friends", type: .object, objectClassName: "Person", collection: .list),
                    Property(name: "pals", type: .object, objectClassName: "Person", collection: .set),
                    Property(
                        name: "contacts", type: .object, objectClassName: "Person", isOptional: true, collection: .map),
                    Property(name: "tags", type: .string, collection: .list),
                    Property(name: "anything", type: .mixed, isOptional: true),
                    Property(name: "things", type: .mixed, isOptional: true, collection: .list),
                    Property(name: "bag", type: .mixed, isOptional: true, collection: .set),
                    Property(name: "named", type: .mixed, isOptional: true, collection: .map),
                ], primaryKey: "id")
        ])
    }

    private func configuration(_ name: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: folder.url.appendingPathComponent(name + ".realm"), schema: Self.schema)
    }

    private func client(_ name: String) throws -> SyncClient {
        try SyncClient(configuration: configuration(name), user: "u", wallClock: wall)
    }

    // MARK: Reading

    private func person(_ client: SyncClient, _ id: String) throws -> DynamicObject? {
        try client.realm.object(ofType: "Person", forPrimaryKey: .string(id))
    }

    private func id(_ value: RealmValue) throws -> String {
        guard case .object(let linked) = value else { return "\(value)" }
        return try linked.value(forKey: "id").stringValue ?? "?"
    }

    /// What the realm shows of p's collections: friends in order, pals sorted, contacts by key.
    private func shown(_ client: SyncClient, _ owner: String = "p") throws -> String {
        guard let p = try person(client, owner) else { return "no \(owner)" }
        let friends = try p.dynamicList("friends").values().map(id)
        let pals = try p.dynamicMutableSet("pals").values().map(id).sorted()
        let entries = try p.dynamicMap("contacts").entries()
        let contacts = try entries.keys.sorted().map { "\($0)=\(try id(entries[$0] ?? .null))" }
        return "friends \(friends) pals \(pals) contacts \(contacts)"
    }

    // MARK: Hand-made downloads

    private func remote(_ serverVersion: UInt64, _ instructions: [Instruction]) -> IntegratedChangeset {
        IntegratedChangeset(
            serverVersion: serverVersion,
            origin: Changeset(
                clientVersion: serverVersion, basedOnServerVersion: serverVersion - 1,
                clock: HLCTimestamp(milliseconds: 10 + serverVersion, counter: 0), clientFileID: 9,
                instructions: instructions))
    }

    private func receive(_ client: SyncClient, _ serverVersion: UInt64, _ instructions: [Instruction]) throws {
        _ = try client.receive(
            .download(
                session: 1, downloadCursor: serverVersion, uploadAcknowledged: client.uploadAcknowledged,
                changesets: [remote(serverVersion, instructions)]))
    }

    private func element(_ index: UInt32) -> ElementID {
        ElementID(clock: HLCTimestamp(milliseconds: 11, counter: 0), clientFileID: 9, index: index)
    }

    private let q = ref("q")
    private let p = ref("p")

    /// p links q from every kind of field (q created first, as a commit records them).
    private var pLinkingQ: [Instruction] {
        [
            .create(q, fields: []), .create(p, fields: [SyncField("friend", .link(q))]),
            .listInsert(
                p, field: "friends", element: element(0), position: FractionalPosition.between(nil, nil),
                value: .link(q)),
            .setAdd(p, field: "pals", value: .link(q)),
            .mapPut(p, field: "contacts", key: "k", value: .link(q)),
        ]
    }

    /// The canonical form of p as the server keeps it, with q's entries.
    private func assertServerForm(_ client: SyncClient, file: StaticString = #filePath, line: UInt = #line) throws {
        let fields = try client.canonicalState().objects[p]
        let byName = Dictionary((fields ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(byName["friend"], .link(q), file: file, line: line)
        XCTAssertEqual(byName["friends"], .list([.link(q)]), file: file, line: line)
        XCTAssertEqual(byName["pals"], .list([.link(q)]), file: file, line: line)
        XCTAssertEqual(byName["contacts"], .map([SyncField("k", .link(q))]), file: file, line: line)
    }

    /// p's field `name` as the dump shows it.
    private func dumped(_ client: SyncClient, _ name: String) throws -> SyncValue? {
        try client.canonicalState().objects[p]?.first { $0.name == name }?.value
    }

    // MARK: Tests

    /// A mixed field holding a link keeps it unresolved as a to-one field does (Realm's mixed links
    /// are links): null in the realm and the link in the dump while the object is missing, back
    /// when it is created, recording nothing; a local write of the field replaces the waiting link.
    func testAMixedFieldKeepsALinkToAMissingObjectUntilTheObjectComes() throws {
        let b = try client("b")
        try b.identify(as: 1)
        try receive(b, 1, [.create(q, fields: []), .create(p, fields: [SyncField("anything", .link(q))])])
        XCTAssertEqual(try id(try person(b, "p")?.value(forKey: "anything") ?? .null), "q")
        try receive(b, 2, [.erase(q)])
        XCTAssertEqual(try person(b, "p")?.value(forKey: "anything").isNull, true, "the realm reads null")
        XCTAssertEqual(try dumped(b, "anything"), .link(q), "the dump shows the server's link")
        try receive(b, 3, [.create(q, fields: [])])
        XCTAssertEqual(try id(try person(b, "p")?.value(forKey: "anything") ?? .null), "q")
        // A remote write of a link to an object not here yet waits the same way.
        let z = ref("z")
        try receive(b, 4, [.set(p, path: ["anything"], value: .link(z))])
        XCTAssertEqual(try dumped(b, "anything"), .link(z))
        try receive(b, 5, [.create(z, fields: [])])
        XCTAssertEqual(try id(try person(b, "p")?.value(forKey: "anything") ?? .null), "z")
        XCTAssertEqual(try b.storedHistory(), [], "hiding and restoring record nothing")
        // A local write replaces the waiting link: the object coming back does not overwrite it.
        try receive(b, 6, [.erase(z)])
        try b.realm.write { try person(b, "p")?.setValue(.int(7), forKey: "anything") }
        XCTAssertEqual(try dumped(b, "anything"), .int(7))
        try receive(b, 7, [.create(z, fields: [])])
        XCTAssertEqual(try person(b, "p")?.value(forKey: "anything").intValue, 7)
    }

    /// Writing null over a map key whose link waits for its object (the realm reads null there)
    /// is recorded as Realm records it, and replaces the link: the object coming back does not
    /// bring it back.
    func testWritingNullOverAWaitingMapLinkIsRecordedAndReplacesIt() throws {
        let b = try client("b")
        try b.identify(as: 1)
        try receive(b, 1, pLinkingQ)
        try receive(b, 2, [.erase(q)])
        XCTAssertEqual(try dumped(b, "contacts"), .map([SyncField("k", .link(q))]))
        try b.realm.write { try person(b, "p")?.dynamicMap("contacts").setValue(.null, forKey: "k") }
        XCTAssertEqual(try b.lastInstructions(), [.mapPut(p, field: "contacts", key: "k", value: .null)])
        XCTAssertEqual(try dumped(b, "contacts"), .map([SyncField("k", .null)]))
        try receive(b, 3, [.create(q, fields: [])])
        XCTAssertEqual(try person(b, "p")?.dynamicMap("contacts").value(forKey: "k"), .null)
    }

    /// Collections of mixed values holding links keep them unresolved as collections of links do
    /// (realm-core's `Unresolved_Mixed`): out of the list and the set, null at the map key, in the
    /// dump as the server has them, back when the object comes, recording nothing.
    func testMixedCollectionsKeepALinkToAnErasedObjectUntilTheObjectComesBack() throws {
        let b = try client("b")
        try b.identify(as: 1)
        let first = FractionalPosition.between(nil, nil)
        try receive(
            b, 1,
            [
                .create(q, fields: []), .create(p, fields: []),
                .listInsert(p, field: "things", element: element(0), position: first, value: .int(1)),
                .listInsert(
                    p, field: "things", element: element(1), position: .between(first, nil), value: .link(q)),
                .setAdd(p, field: "bag", value: .link(q)), .setAdd(p, field: "bag", value: .string("s")),
                .mapPut(p, field: "named", key: "k", value: .link(q)),
            ])
        func mixed() throws -> String {
            guard let person = try person(b, "p") else { return "no p" }
            let things = try person.dynamicList("things").values().map(id)
            let bag = try person.dynamicMutableSet("bag").values().map(id).sorted()
            let named = try person.dynamicMap("named").entries().map { "\($0.key)=\(try id($0.value))" }.sorted()
            return "things \(things) bag \(bag) named \(named)"
        }
        XCTAssertEqual(try mixed(), #"things ["1", "q"] bag ["q", "s"] named ["k=q"]"#)
        let serverForm = try b.canonicalState().objects[p]
        try receive(b, 2, [.erase(q)])
        XCTAssertEqual(try mixed(), #"things ["1"] bag ["s"] named ["k=nil"]"#)
        XCTAssertEqual(try b.canonicalState().objects[p], serverForm, "the dump shows the server's links")
        try receive(b, 3, [.create(q, fields: [])])
        XCTAssertEqual(try mixed(), #"things ["1", "q"] bag ["q", "s"] named ["k=q"]"#)
        XCTAssertEqual(try b.storedHistory(), [], "hiding and restoring record nothing")
    }

    func testARemoteEraseHidesTheEntriesAndARemoteCreateRestoresThem() throws {
        let b = try client("b")
        try b.identify(as: 1)
        try receive(b, 1, pLinkingQ)
        XCTAssertEqual(try shown(b), #"friends ["q"] pals ["q"] contacts ["k=q"]"#)
        try receive(b, 2, [.erase(q)])
        // Realm's unresolved links: out of the list and the set, null in the map.
        XCTAssertEqual(try shown(b), #"friends [] pals [] contacts ["k=nil"]"#)
        try assertServerForm(b)
        XCTAssertEqual(try b.storedHistory(), [], "hiding records nothing")
        try receive(b, 3, [.create(q, fields: [])])
        XCTAssertEqual(try shown(b), #"friends ["q"] pals ["q"] contacts ["k=q"]"#)
        XCTAssertEqual(try id(try person(b, "p")?.value(forKey: "friend") ?? .null), "q")
        XCTAssertEqual(try b.storedHistory(), [], "restoring records nothing")
        try assertServerForm(b)
    }

    func testLinksToObjectsNotArrivedYetWaitAndALocalCreateRestoresThemWithoutAnInstruction() throws {
        let b = try client("b")
        try b.identify(as: 1)
        // p arrives before q (another class order, or q outside the view).
        try receive(b, 1, Array(pLinkingQ.dropFirst()))
        XCTAssertEqual(try shown(b), #"friends [] pals [] contacts ["k=nil"]"#)
        try assertServerForm(b)
        // A local write to the list puts its element among the hidden one's neighbours.
        try b.realm.write {
            let r = try b.realm.create("Person", value: ["id": .string("r")])
            try person(b, "p")?.dynamicList("friends").append(.object(r))
        }
        XCTAssertEqual(try shown(b), #"friends ["r"] pals [] contacts ["k=nil"]"#)
        // The user creates q here: the links the server holds come back, and only the create travels.
        try b.realm.write { _ = try b.realm.create("Person", value: ["id": .string("q")]) }
        XCTAssertEqual(try shown(b), #"friends ["q", "r"] pals ["q"] contacts ["k=q"]"#)
        let create = try b.lastInstructions()
        guard create.count == 1, case .create(q, _)? = create.first else { return XCTFail("\(create)") }
        // The next local edit of the collections diffs against them as they are now.
        try b.realm.write {
            try person(b, "p")?.dynamicList("friends").append(.object(try XCTUnwrap(person(b, "q"))))
            try person(b, "p")?.dynamicMap("contacts").setValue(.null, forKey: "j")
        }
        let last = try b.lastInstructions()
        XCTAssertEqual(last.count, 2, "\(last)")
        XCTAssertEqual(last.first, .mapPut(p, field: "contacts", key: "j", value: .null))
        guard case .listInsert(p, "friends", _, _, .link(q))? = last.last else { return XCTFail("\(last)") }
    }

    func testRemoteWritesOfHiddenEntriesMoveThemAndALocalClearDropsThem() throws {
        let b = try client("b")
        try b.identify(as: 1)
        try receive(b, 1, pLinkingQ)
        try receive(b, 2, [.erase(q)])
        // The server erases the hidden list element and removes the set's value: gone for good.
        try receive(
            b, 3,
            [
                .listErase(p, field: "friends", element: element(0)), .setRemove(p, field: "pals", value: .link(q)),
                .mapPut(p, field: "contacts", key: "k", value: .null),
            ])
        try receive(b, 4, [.create(q, fields: [])])
        XCTAssertEqual(try shown(b), #"friends [] pals [] contacts ["k=nil"]"#)
        try receive(b, 5, [.erase(q)])
        // A local clear empties the list whole, hidden elements too (Realm's clear does).
        try receive(
            b, 6,
            [
                .listInsert(
                    p, field: "friends", element: element(1), position: FractionalPosition.between(nil, nil),
                    value: .link(q))
            ])
        try b.realm.write {
            let s = try b.realm.create("Person", value: ["id": .string("s")])
            try person(b, "p")?.dynamicList("friends").append(.object(s))
        }
        try b.realm.write { try person(b, "p")?.dynamicList("friends").removeAll() }
        XCTAssertEqual(try b.lastInstructions(), [.listClear(p, field: "friends")])
        try receive(b, 7, [.create(q, fields: [])])
        XCTAssertEqual(try shown(b), #"friends [] pals [] contacts ["k=nil"]"#)
    }

    /// A file from before sets and maps kept unresolved links had a table of to-one links only
    /// (`_sync_unresolved`): opening it moves them.
    func testAnOlderFilesUnresolvedLinksAreKept() throws {
        do {
            let b = try client("b")
            try b.identify(as: 1)
            try receive(b, 1, [.create(p, fields: [SyncField("friend", .link(q))])])
            try b.realm.write {
                try b.realm.executeSQL(
                    """
                    CREATE TABLE _sync_unresolved (class TEXT NOT NULL, key INTEGER NOT NULL, field TEXT NOT NULL,
                    ref BLOB NOT NULL, PRIMARY KEY (class, key, field)) WITHOUT ROWID
                    """)
                try b.realm.executeSQL(
                    "INSERT INTO _sync_unresolved SELECT class, key, field, ref FROM _sync_unresolved_link")
                try b.realm.executeSQL("DROP TABLE _sync_unresolved_link")
            }
        }
        let b = try client("b")
        let fields = try b.canonicalState().objects[p] ?? []
        XCTAssertEqual(fields.first { $0.name == "friend" }?.value, .link(q))
        try receive(b, 2, [.create(q, fields: [])])
        XCTAssertEqual(try id(try person(b, "p")?.value(forKey: "friend") ?? .null), "q")
        XCTAssertTrue(try b.realm.querySQL("SELECT 1 FROM sqlite_master WHERE name = '_sync_unresolved'").isEmpty)
    }

    // MARK: Through a server

    /// The issue's divergence: one device deletes q while another, offline, adds q to p's list, set
    /// and map; the server keeps those entries. Every replica keeps them unresolved, and when q is
    /// created again everyone shows them, as the server does.
    func testEntriesAddedConcurrentlyWithADeleteComeBackEverywhereWhenTheObjectIsCreatedAgain() throws {
        let store = try SQLiteSyncStore(
            path: folder.url.appendingPathComponent("server.sqlite").path, historySalt: 42, schema: Self.schema)
        let server = try SyncServer(store: store, schema: Self.schema, wallClock: wall) { 7 }
        let transport = InMemoryTransport(server: server) { 7 }
        let a = try client("a")
        let b = try client("b")
        let c = try client("c")
        let (ai, bi) = (transport.addClient(a), transport.addClient(b))
        _ = transport.connect(ai)
        _ = transport.connect(bi)
        try a.realm.write {
            _ = try a.realm.create("Person", value: ["id": .string("p")])
            _ = try a.realm.create("Person", value: ["id": .string("q")])
        }
        try transport.settle([ai, bi])
        transport.drop(bi)
        wall.advance(5)
        try a.realm.write { try a.realm.delete(try XCTUnwrap(person(a, "q"))) }
        try transport.settle([ai])
        wall.advance(5)
        try b.realm.write {
            let p = try XCTUnwrap(person(b, "p"))
            let q = try XCTUnwrap(person(b, "q"))
            try p.dynamicList("friends").append(.object(q))
            try p.dynamicMutableSet("pals").insert(.object(q))
            try p.dynamicMap("contacts").setValue(.object(q), forKey: "k")
            try p.dynamicList("tags").append(.string("t"))
        }
        _ = transport.connect(bi)
        try transport.settle([ai, bi])
        XCTAssertEqual(try shown(a), #"friends [] pals [] contacts ["k=nil"]"#)
        XCTAssertEqual(try shown(b), #"friends [] pals [] contacts ["k=nil"]"#)
        // A device bootstrapping now keeps them unresolved too.
        let ci = transport.addClient(c)
        _ = transport.connect(ci)
        try transport.settle([ai, bi, ci])
        XCTAssertEqual(try shown(c), #"friends [] pals [] contacts ["k=nil"]"#)
        try assertReplicasEqualTheServer(server, [a, b, c])

        wall.advance(5)
        try c.realm.write { _ = try c.realm.create("Person", value: ["id": .string("q")]) }
        try transport.settle([ai, bi, ci])
        for replica in [a, b, c] { XCTAssertEqual(try shown(replica), #"friends ["q"] pals ["q"] contacts ["k=q"]"#) }
        try assertReplicasEqualTheServer(server, [a, b, c])
    }
}
