import RealmDatabase
import Testing

@testable import RealmSync

/// Each kind of permission refusal (issue 16, "Permissions"): the refused object stays exactly as
/// stored, the other objects of the same changeset are integrated, the outcome carries the
/// compensating write with its reason, and the conflict log records it. Allowed writes stand.
@Suite struct CompensatingWriteTests {
    /// Asserts one compensating write for `ref` at `serverVersion` whose reason names each of `words`.
    private func assertCompensated(
        _ compensating: [CompensatingWrite], _ ref: ObjectRef, at serverVersion: UInt64, naming words: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(compensating.map(\.object) == [ref], sourceLocation: sourceLocation)
        #expect(compensating.first?.serverVersion == serverVersion, sourceLocation: sourceLocation)
        let reason = compensating.first?.reason ?? ""
        for word in words { #expect(reason.contains(word), "\(reason) lacks \(word)", sourceLocation: sourceLocation) }
    }

    /// Asserts the log's records for `ref` are the refusal of each instruction, lost by alice (file 1).
    private func assertLogged(
        _ fixture: PermissionFixture, _ ref: ObjectRef, fields: [String?], reason: String?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let records = fixture.integrator.conflictLog.records.filter { $0.object == ref }
        #expect(records.map(\.field) == fields, sourceLocation: sourceLocation)
        for record in records {
            #expect(record.loserClientFileID == 1, sourceLocation: sourceLocation)
            #expect(record.loserUser == "alice", sourceLocation: sourceLocation)
            #expect(record.winnerClientFileID == nil, sourceLocation: sourceLocation)
            #expect(record.rule == reason, sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: StoreKind.available)
    func testAWriteOutsideTheSubscriptionsViewIsCompensated(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        try fixture.stage(changeset(1, 1, clock: 100, [createDog(1, owner: "alice", name: "fido")]))
        let before = try fixture.fields(dog(1))
        // Alice subscribes only to the dogs named rex: fido is hers, but outside her view.
        let writer = UploadWriter(user: "alice", view: ["Dog": equals("name", .string("rex")), "Toy": .constant(true)])
        let compensating = try fixture.upload(
            changeset(1, 2, basedOn: 1, clock: 200, [setName(dog(1), "rex"), .create(toy(5), fields: [])]), by: writer)
        assertCompensated(compensating, dog(1), at: 2, naming: ["write to Dog[1]", "outside the subscriptions' view"])
        #expect((try fixture.fields(dog(1))) == before, "the refused object stays exactly as stored")
        #expect((try fixture.fields(toy(5))) != nil, "the rest of the changeset stands")
        #expect((try fixture.kept(at: 2)) == [.create(toy(5), fields: [])], "the history keeps only what stood")
        #expect((try fixture.state.integrationLog().last?.changeset.instructions.count) == 2, "original as uploaded")
        assertLogged(fixture, dog(1), fields: ["name"], reason: compensating.first?.reason)
    }

    @Test(arguments: StoreKind.available)
    func testAWriteToAClassWithoutSubscriptionIsCompensated(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        let writer = UploadWriter(user: "alice", view: ["Dog": .constant(true)])
        let compensating = try fixture.upload(
            changeset(1, 1, clock: 100, [.create(toy(1), fields: []), createDog(1, owner: "alice")]), by: writer)
        assertCompensated(compensating, toy(1), at: 1, naming: ["create of Toy[1]", "outside the subscriptions' view"])
        #expect((try fixture.fields(toy(1))) == nil, "the refused create left nothing")
        #expect((try fixture.fields(dog(1))?["owner"]) == .string("alice"))
        #expect((try fixture.kept(at: 1)) == [createDog(1, owner: "alice")])
    }

    @Test(arguments: StoreKind.available)
    func testAWriteThatMovesTheObjectOutOfTheWritersWriteRuleIsCompensated(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        try fixture.stage(changeset(1, 1, clock: 100, [createDog(1, owner: "alice"), createDog(2, owner: "alice")]))
        let before = try fixture.fields(dog(1))
        // Renaming, then giving the dog away: both instructions on Dog 1 are undone.
        let compensating = try fixture.upload(
            changeset(
                1, 2, basedOn: 1, clock: 200,
                [
                    setName(dog(1), "gone"), setName(dog(2), "max"),
                    .set(dog(1), path: ["owner"], value: .string("bob")),
                ]),
            by: subscribedToAll("alice"))
        assertCompensated(compensating, dog(1), at: 2, naming: ["Dog[1]", "write rule \"owner == $user\""])
        #expect((try fixture.fields(dog(1))) == before)
        #expect((try fixture.fields(dog(2))?["name"]) == .string("max"))
        #expect((try fixture.kept(at: 2)) == [setName(dog(2), "max")])
        assertLogged(fixture, dog(1), fields: ["name", "owner"], reason: compensating.first?.reason)
    }

    /// Atlas keeps a write that moves an object out of the writer's view (the object then leaves
    /// its replica); realm-core's flx "writes work offline" relies on it. A create must still land
    /// in the view.
    @Test(arguments: StoreKind.available)
    func testAWriteThatMovesTheObjectOutOfTheWritersViewIsKept(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        try fixture.stage(changeset(1, 1, clock: 100, [createDog(1, owner: "alice", name: "rex")]))
        let writer = UploadWriter(user: "alice", view: ["Dog": equals("name", .string("rex"))])
        let compensating = try fixture.upload(
            changeset(1, 2, basedOn: 1, clock: 200, [setName(dog(1), "fido")]), by: writer)
        #expect(compensating == [])
        #expect((try fixture.fields(dog(1))?["name"]) == .string("fido"))
        #expect((try fixture.kept(at: 2)) == [setName(dog(1), "fido")])
        let outside = try fixture.upload(
            changeset(1, 3, basedOn: 2, clock: 300, [createDog(2, owner: "alice", name: "max")]), by: writer)
        assertCompensated(outside, dog(2), at: 3, naming: ["create of Dog[2] outside the subscriptions' view"])
    }

    @Test(arguments: StoreKind.available)
    func testADeleteWithoutWriteRightsIsCompensated(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        // Bob's dog is shared: alice reads it, but only bob may write it.
        try fixture.stage(changeset(2, 1, clock: 100, [createDog(3, owner: "bob", shared: true)]))
        let before = try fixture.fields(dog(3))
        let compensating = try fixture.upload(
            changeset(1, 1, basedOn: 1, clock: 200, [.erase(dog(3)), .create(toy(1), fields: [])]),
            by: subscribedToAll("alice"))
        assertCompensated(
            compensating, dog(3), at: 2, naming: ["delete of Dog[3] not allowed", "write rule \"owner == $user\""])
        #expect((try fixture.fields(dog(3))) == before, "the dog is still there, as it was")
        #expect((try fixture.fields(toy(1))) != nil)
        assertLogged(fixture, dog(3), fields: [nil], reason: compensating.first?.reason)
    }

    @Test(arguments: StoreKind.available)
    func testACreateCollidingWithAPrimaryKeyOutsideTheViewIsCompensated(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        // Bob's dog is not shared: alice cannot read it.
        try fixture.stage(changeset(2, 1, clock: 100, [createDog(4, owner: "bob", name: "bobs")]))
        let before = try fixture.fields(dog(4))
        let compensating = try fixture.upload(
            changeset(1, 1, basedOn: 1, clock: 200, [createDog(4, owner: "alice"), createDog(5, owner: "alice")]),
            by: subscribedToAll("alice"))
        assertCompensated(
            compensating, dog(4), at: 2, naming: ["create of Dog[4]: the primary key exists outside your view"])
        #expect((try fixture.fields(dog(4))) == before)
        #expect((try fixture.fields(dog(5))?["owner"]) == .string("alice"))
        assertLogged(fixture, dog(4), fields: [nil], reason: compensating.first?.reason)
    }

    @Test(arguments: StoreKind.available)
    func testAWriteByANonCreatorOnAClassWithoutRulesIsCompensated(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        try fixture.stage(
            changeset(2, 1, clock: 100, [.create(note(1), fields: [SyncField("text", .string("bob's"))])]))
        let before = try fixture.fields(note(1))
        let compensating = try fixture.upload(
            changeset(
                1, 1, basedOn: 1, clock: 200,
                [.set(note(1), path: ["text"], value: .string("alice's")), .create(note(2), fields: [])]),
            by: subscribedToAll("alice"))
        assertCompensated(compensating, note(1), at: 2, naming: ["Note[1]"])
        #expect((try fixture.fields(note(1))) == before)
        #expect((try fixture.fields(note(2))) != nil, "alice's own note is created")
        assertLogged(fixture, note(1), fields: ["text"], reason: compensating.first?.reason)
    }

    @Test(arguments: StoreKind.available)
    func testACreateTheWriteRuleRefusesIsCompensated(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        let compensating = try fixture.upload(
            changeset(1, 1, clock: 100, [createDog(10, owner: "bob")]), by: subscribedToAll("alice"))
        assertCompensated(
            compensating, dog(10), at: 1, naming: ["create of Dog[10] not allowed", "write rule \"owner == $user\""])
        #expect((try fixture.fields(dog(10))) == nil)
        #expect((try fixture.kept(at: 1)) == [])
    }

    @Test(arguments: StoreKind.available)
    func testAllowedWritesStand(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        try fixture.stage(changeset(2, 1, clock: 100, [.create(toy(1), fields: []), createDog(6, owner: "bob")]))
        let writes = changeset(
            1, 1, basedOn: 1, clock: 200,
            [
                setName(toy(1), "ball"),  // read true, write true: anyone writes it
                createDog(7, owner: "alice"), setName(dog(7), "luna"),  // her own dog
                .create(note(3), fields: [SyncField("text", .string("mine"))]),  // private: she creates it
            ])
        #expect((try fixture.upload(writes, by: subscribedToAll("alice"))) == [])
        // The creator writes her private note afterwards.
        let later = changeset(1, 2, basedOn: 2, clock: 300, [.set(note(3), path: ["text"], value: .string("edit"))])
        #expect((try fixture.upload(later, by: subscribedToAll("alice"))) == [])
        #expect((try fixture.kept(at: 2)) == writes.instructions)
        #expect((try fixture.fields(toy(1))?["name"]) == .string("ball"))
        #expect((try fixture.fields(dog(7))?["name"]) == .string("luna"))
        #expect((try fixture.fields(note(3))?["text"]) == .string("edit"))
        #expect(fixture.integrator.conflictLog.records == [])
    }

    @Test(arguments: StoreKind.available)
    func testAnUploadWithoutWriterIsRefusedWhenPermissionsAreSet(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind)
        let create = changeset(1, 1, clock: 100, [createDog(1, owner: "alice")])
        let unnamed = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [create])])
        guard case .refused(let error)? = unnamed.outcomes.first else {
            Issue.record("\(unnamed.outcomes)")
            return
        }
        #expect(error.message.contains("names no writer"), "\(error.message)")
        let impostor = try fixture.integrator.integrate([
            Upload(clientFileID: 1, changesets: [create], writer: subscribedToAll("bob"))
        ])
        guard case .refused(let mismatch)? = impostor.outcomes.first else {
            Issue.record("\(impostor.outcomes)")
            return
        }
        #expect(mismatch.code == .userMismatch)
        #expect((try fixture.fields(dog(1))) == nil)
        #expect((try fixture.state.latestServerVersion()) == 0)
    }

    @Test(arguments: StoreKind.available)
    func testTheRulesReadBackAsQueries(on kind: StoreKind) {
        #expect(
            PermissionRuleText.text(of: permissionTestRules.readRule("Dog")) == ("owner == $user OR shared == true"))
        #expect(
            PermissionRuleText.text(of: .not(.and([equals("name", .string("a")), .constant(false)])))
                == ("NOT (name == \"a\" AND FALSEPREDICATE)"))
    }
}
