import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

@testable import RealmSync

final class CodecRoundTripTests: XCTestCase {
    let dog = ObjectRef("Dog", .int(7))

    static let values: [SyncValue] = [
        .null, .bool(false), .bool(true), .int(0), .int(-1), .int(.max), .int(.min),
        .float(.nan), .float(-0.0), .float(.infinity), .float(1.5),
        .double(.nan), .double(-0.0), .double(-.infinity), .double(.leastNonzeroMagnitude),
        .double(.greatestFiniteMagnitude),
        .string(""), .string("héllo 😀 e\u{301}"), .string("\u{0}"), .data(Data()), .data(Data([0, 255, 1])),
        .date(Timestamp(seconds: -5, nanoseconds: -7) ?? .epoch),
        .date(Timestamp(seconds: 253_402_300_799, nanoseconds: 999_999_999) ?? .epoch),
        .decimal(Decimal128(string: "-1.25E-300") ?? .zero), .decimal(.nan), .decimal(.negativeInfinity),
        .objectId(ObjectId(string: "0123456789abcdef01234567") ?? .generate()),
        .uuid(UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962") ?? UUID()),
        .link(ObjectRef("Person", .string("ann"))), .link(ObjectRef("P", .null)),
        .embedded([]), .list([]), .map([]),
        .embedded([
            SyncField("street", .string("Main")), SyncField("tags", .list([.int(1), .null])),
            SyncField("attrs", .map([SyncField("k", .bool(true))])),
        ]),
    ]

    func testEveryValueKindRoundTrips() throws {
        for value in Self.values {
            let bytes = SyncValueCodec.encode(value)
            XCTAssertEqual(try SyncValueCodec.decode(bytes), value, "\(value)")
            // NaN keeps its bit pattern (equality compares bits).
            if case .double(let d) = try SyncValueCodec.decode(bytes), d.isNaN {
                XCTAssertEqual(d.bitPattern, Double.nan.bitPattern)
            }
        }
    }

    func testNestingUpToTheLimitRoundTrips() throws {
        var value = SyncValue.int(1)
        for level in 0..<CodecFormat.maximumNesting {
            value =
                level % 3 == 0
                ? .embedded([SyncField("e", value)]) : level % 3 == 1 ? .list([value]) : .map([SyncField("k", value)])
        }
        XCTAssertEqual(try SyncValueCodec.decode(SyncValueCodec.encode(value)), value)
    }

    func testEveryInstructionKindRoundTrips() throws {
        let id = ElementID(clock: HLCTimestamp(milliseconds: 5, counter: 2), clientFileID: .max, index: .max)
        let p = FractionalPosition.between(.first, nil)
        let instructions: [Instruction] = [
            .create(dog, fields: [SyncField("name", .string("Rex")), SyncField("age", .int(3))]),
            .create(ObjectRef("Empty", .uuid(UUID())), fields: []),
            .erase(ObjectRef("Dog", .objectId(.generate()))),
            .set(dog, path: ["address", "street"], value: .string("Main")),
            .set(dog, path: ["owner"], value: .link(ObjectRef("Person", .string("ann")))),
            .listInsert(dog, field: "tags", element: id, position: p, value: .string("a")),
            .listErase(dog, field: "tags", element: id),
            .listMove(dog, field: "tags", element: id, position: .first),
            .listSet(dog, field: "tags", element: id, value: .null),
            .listClear(dog, field: "tags"),
            .setAdd(dog, field: "nicknames", value: .string("")),
            .setRemove(dog, field: "nicknames", value: .double(.nan)),
            .mapPut(dog, field: "attrs", key: "ü", value: .int(.min)),
            .mapRemove(dog, field: "attrs", key: ""),
        ]
        let changeset = Changeset(
            clientVersion: 3, basedOnServerVersion: .max, clock: HLCTimestamp(rawValue: .max), clientFileID: 0,
            instructions: instructions)
        let bytes = ChangesetCodec.encode(changeset)
        XCTAssertEqual(try ChangesetCodec.decode(bytes), changeset)
        XCTAssertEqual(ChangesetCodec.encode(changeset), bytes, "encoding is deterministic")
    }

    func testNamesAreInternedOncePerChangeset() {
        let one = Changeset(
            clientVersion: 1, basedOnServerVersion: 0, clock: .zero, clientFileID: 1,
            instructions: [.set(dog, path: ["averyveryverylongfieldname"], value: .null)])
        var many = one
        many.instructions = Array(repeating: one.instructions[0], count: 10)
        let growth = ChangesetCodec.encode(many).count - ChangesetCodec.encode(one).count
        // Each repeat costs its tag, indexes, key and value, not the names again.
        XCTAssertLessThan(growth, 9 * 10)
    }

    func testEveryMessageKindRoundTrips() throws {
        let changeset = Changeset(
            clientVersion: 1, basedOnServerVersion: 0, clock: .zero, clientFileID: 9,
            instructions: [.erase(dog)])
        let snapshot = ObjectSnapshot(
            object: dog, fields: [SyncField("name", .string("Rex"))],
            lists: [
                ListSnapshot(
                    field: "tags",
                    elements: [
                        ListSnapshot.Element(
                            id: ElementID(clock: .zero, clientFileID: 1, index: 0), position: .first, value: .int(1))
                    ])
            ],
            sets: [SetSnapshot(field: "s", values: [.int(1), .int(2)])],
            maps: [MapSnapshot(field: "m", entries: [SyncField("a", .null)])],
            times: SnapshotTimes(
                erasedAt: 3, erasedBy: 9,
                fields: [
                    .init(
                        path: ["spec", "color"], time: RealmSync.WriteTime(clock: .zero, clientFileID: 2), replacedAt: 4
                    )
                ],
                elements: [
                    .init(
                        field: "tags", id: ElementID(clock: .zero, clientFileID: 1, index: 0),
                        position: RealmSync.WriteTime(clock: HLCTimestamp(rawValue: 5), clientFileID: 1), value: .zero)
                ],
                entries: [
                    .init(field: "m", key: .string("b"), time: RealmSync.WriteTime(clock: .zero, clientFileID: 7))
                ]))
        let messages: [SyncMessage] = [
            .bind(session: 1, user: "alice", needsClientFileID: true),
            .ident(session: .max, clientFileID: 42, salt: .max),
            .identify(
                session: 2, clientFileID: 42, salt: 7, downloadCursor: 9, query: .allObjects(of: ["Dog", "Person"])),
            .upload(session: 1, changesets: [changeset, changeset]),
            .upload(session: 1, changesets: []),
            .download(
                session: 1, downloadCursor: 5, uploadAcknowledged: 3,
                changesets: [IntegratedChangeset(serverVersion: 5, origin: changeset, recipientClientVersion: 3)]),
            .bootstrap(
                session: 1, serverVersion: 5, latestClock: HLCTimestamp(rawValue: 77), uploadAcknowledged: 2,
                objects: [snapshot], isLast: true, progress: 1),
            .bootstrap(
                session: 1, serverVersion: 5, latestClock: .zero, uploadAcknowledged: 0, objects: [], isLast: false,
                progress: 0.25),
            .mark(session: 1, requestID: 77),
            .error(session: 1, code: .clockTooFarAhead, message: "clock 5 min ahead", tryAgain: false),
            .unbind(session: 0),
        ]
        for message in messages {
            XCTAssertEqual(try SyncMessageCodec.decode(SyncMessageCodec.encode(message)), message, "\(message)")
        }
    }

    /// What a commit records instruction by instruction (creates field by field) is the encoding of
    /// its `Changeset`, whatever the number of names (few: compared; many: hashed).
    func testChangesetsWrittenAsTheyAreMadeEncodeAsTheirChangeset() throws {
        let seed = TestSeed.make("CodecRoundTripTests.streamed")
        var samples = SyncSamples(seed: seed)
        let manyNames = (0..<40).map { Instruction.set(dog, path: ["field\($0)"], value: .int(Int64($0))) }
        for i in 0..<500 {
            var changeset = samples.changeset()
            if i % 2 == 1 { changeset.instructions += manyNames + changeset.instructions }
            var body = ChangesetBodyWriter()
            for instruction in changeset.instructions {
                guard case .create(let object, let fields) = instruction else {
                    body.append(instruction)
                    continue
                }
                body.beginCreate(object, fieldCount: fields.count)
                for field in fields { body.appendField(field.name, field.value) }
            }
            let data = ChangesetCodec.encodedData(changeset.metadata, body)
            XCTAssertEqual(data, Data(ChangesetCodec.encode(changeset)), "seed \(seed), changeset \(i)")
            XCTAssertEqual(try ChangesetCodec.decode(Array(data)), changeset, "seed \(seed), changeset \(i)")
        }
    }

    func testRandomChangesetsAndMessagesRoundTrip() throws {
        let seed = TestSeed.make("CodecRoundTripTests.random")
        var samples = SyncSamples(seed: seed)
        for i in 0..<2_000 {
            let changeset = samples.changeset()
            let bytes = ChangesetCodec.encode(changeset)
            XCTAssertEqual(try ChangesetCodec.decode(bytes), changeset, "seed \(seed), changeset \(i)")
            XCTAssertEqual(ChangesetCodec.encode(changeset), bytes, "seed \(seed): deterministic")
            let message = samples.message()
            XCTAssertEqual(
                try SyncMessageCodec.decode(SyncMessageCodec.encode(message)), message, "seed \(seed), message \(i)")
        }
    }
}
