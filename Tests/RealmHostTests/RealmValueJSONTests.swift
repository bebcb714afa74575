import Foundation
import RealmDatabase
import RealmHost
import XCTest

/// The RealmValue <-> JSON codec shared by export, import and the REPL.
final class RealmValueJSONTests: XCTestCase {
    let schema = Schema([])

    /// Writes `value` as export does, parses the text back and decodes it as `property`.
    func roundTrip(_ value: RealmValue, _ property: Property) throws -> RealmValue {
        let text = try RealmValueJSON.encode(value, style: .exact, property: property).text()
        let parsed = try JSONValue.parse(Data(text.utf8))
        return try RealmValueJSON.decode(parsed, as: property, schema: schema, links: RealmValueJSON.Links(), at: "T.p")
    }

    func property(_ type: PropertyType, _ collection: CollectionKind = .none) -> Property {
        Property(name: "p", type: type, isOptional: true, collection: collection)
    }

    func testEveryValueTypeRoundTrips() throws {
        let date = try XCTUnwrap(Timestamp(seconds: -1, nanoseconds: -5))
        let decimal = try XCTUnwrap(Decimal128(string: "123.4500"))
        let oid = try XCTUnwrap(ObjectId(string: "600000000000000000000001"))
        let uuid = try XCTUnwrap(UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962"))
        let cases: [(RealmValue, Property)] = [
            (.null, property(.int)),
            (.bool(true), property(.bool)), (.bool(false), property(.bool)),
            (.int(Int64.min), property(.int)), (.int(Int64.max), property(.int)),
            (.float(1.25), property(.float)), (.float(-Float.infinity), property(.float)),
            (.double(0.1), property(.double)), (.double(-0.0), property(.double)),
            (.double(.infinity), property(.double)),
            (.double(1e300), property(.double)),
            (.string("héllo\n\"x\"\u{1}\\"), property(.string)),
            (.data(Data([0, 1, 255])), property(.data)),
            (.date(date), property(.date)),
            (.decimal128(decimal), property(.decimal128)),
            (.objectId(oid), property(.objectId)),
            (.uuid(uuid), property(.uuid)),
            (.double(3.5), property(.mixed)), (.date(date), property(.mixed)), (.int(7), property(.mixed)),
            (.bool(true), property(.mixed)), (.string("s"), property(.mixed)),
            (.list([3, 1, 3]), property(.int, .list)),
            (.list(["a", "b"]), property(.string, .set)),
            (.dictionary(["x": .double(1.5), "y": .double(-2)]), property(.double, .map)),
            (.list([.int(1), .string("two"), .bool(true), .decimal128(decimal), .null]), property(.mixed, .list)),
        ]
        for (value, property) in cases {
            let back = try roundTrip(value, property)
            XCTAssertEqual(back, value, "\(value) as \(property.type)")
            if case .double(let d) = value, d == 0 {
                XCTAssertEqual(back.description, value.description, "the sign of zero survives")
            }
        }
    }

    func testTrueAndOneAndOnePointFiveAreToldApartByType() throws {
        XCTAssertEqual(
            try JSONValue.parse(Data("[true, 1, 1.5, \"1\", null]".utf8)),
            .array([.bool(true), .int(1), .double(1.5), .string("1"), .null]))
        func decode(_ text: String, _ type: PropertyType) throws -> RealmValue {
            try RealmValueJSON.decode(
                try JSONValue.parse(Data(text.utf8)), as: property(type), schema: schema,
                links: RealmValueJSON.Links(), at: "Dog[3].weight")
        }
        XCTAssertEqual(try decode("true", .mixed), .bool(true))
        XCTAssertEqual(try decode("1", .mixed), .int(1))
        XCTAssertEqual(try decode("1.5", .mixed), .double(1.5))
        XCTAssertEqual(try decode("1", .double), .double(1))
        XCTAssertEqual(try decode("true", .bool), .bool(true))
        XCTAssertThrowsError(try decode("1", .bool), "1 is no bool")
        XCTAssertThrowsError(try decode("true", .int), "true is no int")
        XCTAssertThrowsError(try decode("1.5", .int), "1.5 is no int")
    }

    func testAValueOfTheWrongJSONTypeIsRefusedWithItsPath() throws {
        func refusal(_ text: String, _ type: PropertyType) -> String {
            do {
                let json = try JSONValue.parse(Data(text.utf8))
                let value = try RealmValueJSON.decode(
                    json, as: property(type), schema: schema,
                    links: RealmValueJSON.Links(), at: "Dog[3].weight")
                return "accepted as \(value)"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(refusal("true", .int), "at 'Dog[3].weight': expected int, found a boolean")
        XCTAssertEqual(refusal("1", .bool), "at 'Dog[3].weight': expected bool, found an integer")
        XCTAssertEqual(refusal("1.5", .int), "at 'Dog[3].weight': expected int, found a number")
        XCTAssertEqual(refusal("\"5\"", .double), "at 'Dog[3].weight': expected double, found a string")
        XCTAssertEqual(refusal("{\"$date\": \"x\"}", .date), "at 'Dog[3].weight': invalid $date value 'x'")
        XCTAssertEqual(
            refusal("{\"$date\": \"2020-01-01T00:00:00Z\"}", .int),
            "at 'Dog[3].weight': expected int, found a $date value")
    }

    func testTheReplAndExportWriteADateTheSameWay() throws {
        let date = RealmValue.date(try XCTUnwrap(Timestamp(seconds: 0, nanoseconds: 5)))
        let exact = try RealmValueJSON.encode(date, style: .exact).text()
        XCTAssertEqual(exact, "{\"$date\": \"1970-01-01T00:00:00.000000005Z\"}")
        XCTAssertEqual(try RealmValueJSON.encode(date, style: .readable).text(), exact)
        // The readable style writes finite doubles as numbers, the exact one keeps their text.
        XCTAssertEqual(try RealmValueJSON.encode(.double(2.5), style: .readable).text(), "2.5")
        XCTAssertEqual(try RealmValueJSON.encode(.double(2.5), style: .exact).text(), "{\"$double\": \"2.5\"}")
    }

    func testObjectsKeepTheirFieldOrderInText() {
        let object = JSONValue.object([.init("zeta", .int(1)), .init("alpha", .array([.int(2), .null]))])
        XCTAssertEqual(object.text(), "{\"zeta\": 1, \"alpha\": [2, null]}")
        XCTAssertEqual(object.text(.indented), "{\n  \"zeta\": 1,\n  \"alpha\": [\n    2,\n    null\n  ]\n}")
    }

    func testAMalformedImportNamesThePathAndLeavesTheRealmUnchanged() throws {
        let folder = try PluginFolder(
            plugin: """
                return { name = "dogs", schemaVersion = 1,
                  schema = { { name = "Dog", properties = { name = "string", weight = "double" } } } }
                """)
        let host = try folder.host()
        func dump(_ rows: String) -> Data {
            Data("{\"format\": \"realm-host-export-1\", \"objects\": {\"Dog\": [\(rows)]}}".utf8)
        }
        let good = "{\"$key\": 1, \"name\": \"Rex\", \"weight\": 30}"
        let cases = [
            (
                "\(good), {\"$key\": 2, \"name\": \"Max\", \"weight\": true}",
                "at 'Dog[1].weight': expected double, found a boolean"
            ),
            ("\(good), {\"$key\": 2, \"name\": 5}", "at 'Dog[1].name': expected string, found an integer"),
            ("\(good), {\"$key\": 2, \"colour\": \"red\"}", "at 'Dog[1]': 'Dog.colour' is not a property"),
            ("\(good), 7", "at 'Dog[1]': 'objects.Dog[1]' must be an object"),
        ]
        for (rows, expected) in cases {
            XCTAssertThrowsError(try host.importJSON(user: "alice", data: dump(rows))) { error in
                XCTAssertEqual("\(error)".contains("Invalid export file " + expected), true, "\(error)")
            }
        }
        XCTAssertThrowsError(try host.importJSON(user: "alice", data: Data("{\"format\": ".utf8))) { error in
            XCTAssertTrue("\(error)".contains("Invalid export file: not valid JSON"), "\(error)")
        }
        try host.withTenant("alice") { tenant in
            XCTAssertEqual(try tenant.realm.objects("Dog").countObjects(), 0, "nothing of a refused import is kept")
            XCTAssertFalse(tenant.realm.isInWriteTransaction)
        }
        try host.importJSON(user: "alice", data: dump(good))
        try host.withTenant("alice") { tenant in
            XCTAssertEqual(try tenant.realm.objects("Dog").countObjects(), 1)
            XCTAssertEqual(try tenant.realm.objects("Dog")[0].value(forKey: "weight"), .double(30))
        }
    }
}
