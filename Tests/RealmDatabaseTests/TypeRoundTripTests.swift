import Foundation
import XCTest

@testable import RealmDatabase

/// Every property type, optional and required, alone and in lists, sets and maps: what is written
/// reads back identical, in the same instance and after reopening the file.
final class TypeRoundTripTests: RealmTestCase {
    /// Sample values per type, edge cases included.
    nonisolated(unsafe) static let samples: [PropertyType: [RealmValue]] = [
        .bool: [true, false],
        .int: [.int(Int64.max), .int(Int64.min), 0, -42],
        .float: [.float(1.5), .float(-0.25), .float(Float.greatestFiniteMagnitude), .float(.infinity)],
        .double: [.double(.pi), .double(-1e-300), .double(1e300), .double(-.infinity)],
        .string: ["", "héllo wörld", "🐶 dog", "quote ' and \" and \\", "line\nbreak", "nul\u{0}byte"],
        .data: [.data(Data()), .data(Data([0, 1, 2, 255])), .data(Data(repeating: 7, count: 4096))],
        .date: [
            .date(.epoch), .date(Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789)!),
            .date(Timestamp(seconds: -1, nanoseconds: -5)!), .date(Timestamp(seconds: -2_000_000_000, nanoseconds: 0)!),
        ],
        .decimal128: [
            .decimal128(Decimal128(string: "123456789.123456789")!), .decimal128(Decimal128(string: "-0.000001")!),
            .decimal128(Decimal128(string: "99999999999999999999999999999999")!),
        ],
        .objectId: [
            .objectId(ObjectId(string: "0123456789abcdef01234567")!),
            .objectId(ObjectId(string: "ffffffffffffffffffffffff")!),
        ],
        .uuid: [
            .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!),
        ],
    ]

    /// A value of another kind that no property of `type` accepts.
    static func wrongValue(for type: PropertyType) -> RealmValue {
        switch type {
        case .string: return 5
        default: return .string("not a \(type.rawValue)")
        }
    }

    private func reopened() throws -> Realm { try Realm(configuration: allTypesConfig()) }

    func testScalarsRoundTrip() throws {
        var expected = [Int64: [String: RealmValue]]()
        do {
            let realm = try Realm(configuration: allTypesConfig())
            try realm.write {
                for i in 0..<Self.samples.values.map(\.count).max()! {
                    var values = [String: RealmValue]()
                    for t in Self.scalarTypes {
                        let samples = Self.samples[t]!
                        values[t.rawValue] = samples[i % samples.count]
                        values["opt_" + t.rawValue] = samples[(i + 1) % samples.count]
                    }
                    values["pk"] = .int(Int64(i))
                    expected[Int64(i)] = values
                    let object = try realm.create("AllTypes", value: .dictionary(values))
                    for (name, value) in values {
                        XCTAssertEqual(try object[name], value, "\(name) in the writing transaction")
                    }
                }
            }
            try check(realm, expected)
        }
        try check(try reopened(), expected)
    }

    private func check(
        _ realm: Realm, _ expected: [Int64: [String: RealmValue]], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(try realm.objects("AllTypes").countObjects(), expected.count, file: file, line: line)
        for (pk, values) in expected {
            let object = try XCTUnwrap(
                try realm.object(ofType: "AllTypes", forPrimaryKey: .int(pk)), file: file, line: line)
            for (name, value) in values {
                XCTAssertEqual(try object[name], value, "\(name) of \(pk)", file: file, line: line)
            }
        }
    }

    func testOptionalsHoldNilAndRequiredRefuseIt() throws {
        let realm = try Realm(configuration: allTypesConfig())
        let object = try realm.write { try realm.create("AllTypes", value: ["pk": 1]) }
        for t in Self.scalarTypes {
            XCTAssertEqual(try object["opt_" + t.rawValue], .null, "opt_\(t) defaults to nil")
            XCTAssertNotEqual(try object[t.rawValue], .null, "\(t) has a non-nil default")
        }
        try realm.write {
            for t in Self.scalarTypes {
                let value = Self.samples[t]![0]
                try object.setValue(value, forKey: "opt_" + t.rawValue)
                XCTAssertEqual(try object["opt_" + t.rawValue], value)
                try object.setValue(nil, forKey: "opt_" + t.rawValue)
                XCTAssertEqual(try object["opt_" + t.rawValue], .null)
                assertRealmError(
                    try object.setValue(nil, forKey: t.rawValue), code: .invalidValue,
                    containing: ["AllTypes.\(t.rawValue)"])
            }
        }
        try realm.write {
            assertRealmError(
                try realm.create("AllTypes", value: ["pk": 2, "string": nil]), code: .invalidValue,
                containing: ["AllTypes.string"])
        }
    }

    func testValuesOfTheWrongTypeAreRefused() throws {
        let realm = try Realm(configuration: allTypesConfig())
        let object = try realm.write { try realm.create("AllTypes", value: ["pk": 1]) }
        let before = try object.dictionaryValue()
        try realm.write {
            for t in Self.scalarTypes {
                let wrong = Self.wrongValue(for: t)
                assertRealmError(
                    try object.setValue(wrong, forKey: t.rawValue), code: .invalidValue,
                    containing: ["AllTypes.\(t.rawValue)"])
                assertRealmError(try object.dynamicList("list_" + t.rawValue).append(wrong), code: .invalidValue)
            }
            assertRealmError(try object.setValue(.int(5), forKey: "link"), code: .invalidValue, containing: ["Target"])
            assertRealmError(try realm.create("AllTypes", value: ["pk": "text"]), code: .invalidValue)
        }
        for t in Self.scalarTypes { XCTAssertEqual(try object[t.rawValue], before[t.rawValue]) }
    }

    func testNumbersConvertWithoutLoss() throws {
        let realm = try Realm(configuration: allTypesConfig())
        let object = try realm.write {
            try realm.create("AllTypes", value: ["pk": 1, "double": 3, "int": .double(4), "float": 2, "decimal128": 7])
        }
        XCTAssertEqual(try object["double"], .double(3))
        XCTAssertEqual(try object["int"], .int(4))
        XCTAssertEqual(try object["float"], .float(2))
        XCTAssertEqual(try object["decimal128"], .decimal128(Decimal128(Int64(7))))
        try realm.write {
            assertRealmError(try object.setValue(.double(4.5), forKey: "int"), code: .invalidValue)
        }
        XCTAssertEqual(try object["int"], .int(4))
    }

    func testCollectionsOfEveryTypeRoundTrip() throws {
        var expected = [String: RealmValue]()
        for t in Self.scalarTypes {
            let samples = Self.samples[t]!
            let n = t.rawValue
            expected["list_" + n] = .list(samples + [samples[0]])  // duplicates kept, order kept
            expected["optList_" + n] = .list([.null, samples[1], .null])
            expected["map_" + n] = .dictionary(
                Dictionary(uniqueKeysWithValues: samples.enumerated().map { ("k\($0.offset)", $0.element) }))
            expected["optMap_" + n] = .dictionary(["some": samples[0], "none": .null])
        }
        do {
            let realm = try Realm(configuration: allTypesConfig())
            var values = expected
            values["pk"] = 1
            for t in Self.scalarTypes { values["set_" + t.rawValue] = .list(Self.samples[t]! + Self.samples[t]!) }
            try realm.write { try realm.create("AllTypes", value: .dictionary(values)) }
        }
        let realm = try reopened()
        let object = try XCTUnwrap(try realm.object(ofType: "AllTypes", forPrimaryKey: 1))
        for (name, value) in expected {
            XCTAssertEqual(try object[name], value, name)
        }
        for t in Self.scalarTypes {
            // A set holds each value once; its order is not part of the contract.
            let set = try object.dynamicMutableSet("set_" + t.rawValue)
            XCTAssertEqual(set.count, Self.samples[t]!.count, "set_\(t)")
            for value in Self.samples[t]! { XCTAssertTrue(try set.contains(value), "set_\(t) contains \(value)") }
        }
    }

    func testMixedHoldsEveryKindOfValueAndKeepsItsType() throws {
        var values: [RealmValue] = [
            .null, true, 1, .float(1.5), .double(1.5), .double(1), "one", .data(Data([1])),
            .date(Timestamp(seconds: 5, nanoseconds: 6)!), .decimal128(Decimal128(string: "1.25")!),
            .objectId(ObjectId(string: "0123456789abcdef01234567")!),
            .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        ]
        do {
            let realm = try Realm(configuration: allTypesConfig())
            try realm.write {
                let target = try realm.create("Target", value: ["id": "t", "value": 1])
                values.append(.object(target))
                for (i, v) in values.enumerated() {
                    try realm.create("AllTypes", value: ["pk": .int(Int64(i)), "mixed": v])
                }
                try realm.create(
                    "AllTypes",
                    value: [
                        "pk": 100, "mixedList": .list(values),
                        "mixedMap": .dictionary(
                            Dictionary(
                                uniqueKeysWithValues: values.enumerated().map { ("k\($0.offset)", $0.element) })),
                    ])
            }
        }
        let realm = try reopened()
        let target = try XCTUnwrap(try realm.object(ofType: "Target", forPrimaryKey: "t"))
        values[values.count - 1] = .object(target)
        for (i, v) in values.enumerated() {
            let stored = try realm.object(ofType: "AllTypes", forPrimaryKey: .int(Int64(i)))?["mixed"]
            XCTAssertEqual(stored, v, "mixed \(v)")
            XCTAssertEqual(stored?.typeName, v.typeName, "mixed keeps the kind of \(v)")
        }
        let holder = try XCTUnwrap(try realm.object(ofType: "AllTypes", forPrimaryKey: 100))
        XCTAssertEqual(try holder["mixedList"], .list(values))
        XCTAssertEqual(try holder["mixedList"].listValue?.map(\.typeName), values.map(\.typeName))
        let map = try XCTUnwrap(try holder["mixedMap"].dictionaryValue)
        for (i, v) in values.enumerated() {
            XCTAssertEqual(map["k\(i)"], v)
            XCTAssertEqual(map["k\(i)"]?.typeName, v.typeName)
        }
        // Nested collections are not mixed values.
        try realm.write {
            assertRealmError(try holder.setValue([1, 2], forKey: "mixed"), code: .invalidValue)
        }
    }

    func testMixedLinkBecomesNilWhenTheObjectIsDeleted() throws {
        let realm = try Realm(configuration: allTypesConfig())
        let (target, holder) = try realm.write { () -> (DynamicObject, DynamicObject) in
            let target = try realm.create("Target", value: ["id": "t"])
            return (
                target,
                try realm.create(
                    "AllTypes", value: ["pk": 1, "mixed": .object(target), "mixedList": [.object(target), 5]])
            )
        }
        XCTAssertEqual(try holder["mixed"], .object(target))
        try realm.write { try realm.delete(target) }
        XCTAssertEqual(try holder["mixed"], .null)
        XCTAssertEqual(try holder["mixedList"], [5])
    }

    func testLinksRoundTrip() throws {
        do {
            let realm = try Realm(configuration: allTypesConfig())
            try realm.write {
                let a = try realm.create("Target", value: ["id": "a", "value": 1])
                let b = try realm.create("Target", value: ["id": "b", "value": 2])
                try realm.create(
                    "AllTypes",
                    value: [
                        "pk": 1, "link": .object(a), "links": [.object(b), .object(a), .object(b)],
                        "linkSet": [.object(a), .object(b), .object(a)], "linkMap": ["x": .object(a), "none": nil],
                    ])
            }
        }
        let realm = try reopened()
        let object = try XCTUnwrap(try realm.object(ofType: "AllTypes", forPrimaryKey: 1))
        XCTAssertEqual(try object["link"].objectValue?["id"], "a")
        XCTAssertEqual(try object["links"].listValue?.map { try $0.objectValue?["id"] }, ["b", "a", "b"])
        XCTAssertEqual(
            Set(try object["linkSet"].listValue!.map { try $0.objectValue!["id"].stringValue! }), ["a", "b"])
        XCTAssertEqual(try object.dynamicMutableSet("linkSet").count, 2)
        let map = try XCTUnwrap(try object["linkMap"].dictionaryValue)
        XCTAssertEqual(map.keys.sorted(), ["none", "x"])
        XCTAssertEqual(try map["x"]?.objectValue?["id"], "a")
        XCTAssertEqual(map["none"], .null)
    }
}
