import Foundation
import XCTest

@testable import RealmDatabase

/// A fresh temporary folder per test, removed afterwards.
class RealmTestCase: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "realmhost-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func fileURL(_ name: String = "test") -> URL { folder.appendingPathComponent(name + ".realm") }

    /// DoggoDB at schema version 1 (version 2 adds `Dog.favoriteTreat`).
    static func doggoSchema(version: Int = 1) -> Schema {
        var dogProperties = [
            Property(name: "_id", type: .uuid, isPrimaryKey: true),
            Property(name: "name", type: .string),
            Property(name: "breed", type: .string),
            Property(name: "weight", type: .int),
            Property(name: "favoriteToy", type: .object, objectClassName: "DogToy"),
            Property(name: "profileImageUrl", type: .string, isOptional: true),
            Property(name: "owners", type: .linkingObjects, objectClassName: "Person", linkOriginPropertyName: "dogs"),
        ]
        if version >= 2 { dogProperties.append(Property(name: "favoriteTreat", type: .string, defaultValue: "")) }
        return Schema([
            ObjectSchema(className: "Dog", properties: dogProperties),
            ObjectSchema(
                className: "DogToy",
                properties: [
                    Property(name: "_id", type: .objectId, isPrimaryKey: true), Property(name: "name", type: .string),
                ]),
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "_id", type: .objectId, isPrimaryKey: true),
                    Property(name: "firstName", type: .string),
                    Property(name: "lastName", type: .string),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                ]),
            ObjectSchema(
                className: "Company",
                properties: [
                    Property(name: "_id", type: .objectId, isPrimaryKey: true),
                    Property(name: "companyName", type: .string),
                    Property(name: "employees", type: .object, objectClassName: "Employee", collection: .list),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                ]),
            ObjectSchema(
                className: "Employee",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                ]),
        ])
    }

    func doggoConfig(_ name: String = "doggo", version: UInt64 = 1) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL(name))
        config.schema = Self.doggoSchema(version: Int(version))
        config.schemaVersion = version
        return config
    }
}

// MARK: - Helpers shared by the suites

/// Passes a value that is not `Sendable` (a configuration, a schema) to another thread. The tests
/// hand it over once and never share it while mutating, which is what makes this safe.
struct UncheckedSendable<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// A mutable box, to get a value back from another thread.
final class Box<T> {
    var value: T?
}

/// Asserts that `expression` throws a `RealmError` with exactly `message`.
func assertRealmError<T>(
    _ expression: @autoclosure () throws -> T, _ message: String,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertThrowsError(try expression(), file: file, line: line) { error in
        guard let error = error as? RealmError else {
            return XCTFail("expected a RealmError, got \(error)", file: file, line: line)
        }
        XCTAssertEqual(error.message, message, file: file, line: line)
    }
}

/// Asserts that `expression` throws a `RealmError` of `code` whose message contains every fragment.
func assertRealmError<T>(
    _ expression: @autoclosure () throws -> T, code: RealmError.Code, containing fragments: [String] = [],
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertThrowsError(try expression(), file: file, line: line) { error in
        guard let error = error as? RealmError else {
            return XCTFail("expected a RealmError, got \(error)", file: file, line: line)
        }
        XCTAssertEqual(error.code, code, "message: \(error.message)", file: file, line: line)
        for fragment in fragments {
            XCTAssertTrue(
                error.message.contains(fragment), "'\(error.message)' does not contain '\(fragment)'", file: file,
                line: line)
        }
    }
}

extension RealmTestCase {
    /// The element types of scalar properties and collections (everything but links and mixed).
    static let scalarTypes: [PropertyType] = [
        .bool, .int, .float, .double, .string, .data, .date, .decimal128, .objectId, .uuid,
    ]

    /// `AllTypes` (int primary key `pk`) with, per scalar type T: `T` (required), `opt_T`
    /// (optional), `list_T`, `optList_T` (optional elements), `set_T`, `map_T`, `optMap_T`; and
    /// `mixed`, `mixedList`, `mixedMap`, links to `Target` (`link`, `links`, `linkSet`, `linkMap`),
    /// embedded `Address`es (`address`, `addresses`, `addressMap`). `Target` has a string primary
    /// key `id`, an int `value` and the backlinks `parents` (through `AllTypes.link`) and
    /// `listParents` (through `AllTypes.links`). `Address` is embedded, with `street` and an
    /// embedded `geo` (`Geo`: `lat`, `lon`).
    static func allTypesSchema() -> Schema {
        var properties = [Property(name: "pk", type: .int, isPrimaryKey: true)]
        for t in scalarTypes {
            let n = t.rawValue
            properties += [
                Property(name: n, type: t),
                Property(name: "opt_" + n, type: t, isOptional: true),
                Property(name: "list_" + n, type: t, collection: .list),
                Property(name: "optList_" + n, type: t, isOptional: true, collection: .list),
                Property(name: "set_" + n, type: t, collection: .set),
                Property(name: "map_" + n, type: t, collection: .map),
                Property(name: "optMap_" + n, type: t, isOptional: true, collection: .map),
            ]
        }
        properties += [
            Property(name: "mixed", type: .mixed),
            Property(name: "mixedList", type: .mixed, collection: .list),
            Property(name: "mixedSet", type: .mixed, collection: .set),
            Property(name: "mixedMap", type: .mixed, collection: .map),
            Property(name: "link", type: .object, objectClassName: "Target"),
            Property(name: "links", type: .object, objectClassName: "Target", collection: .list),
            Property(name: "linkSet", type: .object, objectClassName: "Target", collection: .set),
            Property(name: "linkMap", type: .object, objectClassName: "Target", collection: .map),
            Property(name: "address", type: .object, objectClassName: "Address"),
            Property(name: "addresses", type: .object, objectClassName: "Address", collection: .list),
            Property(name: "addressMap", type: .object, objectClassName: "Address", collection: .map),
        ]
        return Schema([
            ObjectSchema(className: "AllTypes", properties: properties),
            ObjectSchema(
                className: "Target",
                properties: [
                    Property(name: "id", type: .string, isPrimaryKey: true),
                    Property(name: "value", type: .int, isIndexed: true),
                    Property(
                        name: "parents", type: .linkingObjects, objectClassName: "AllTypes",
                        linkOriginPropertyName: "link"),
                    Property(
                        name: "listParents", type: .linkingObjects, objectClassName: "AllTypes",
                        linkOriginPropertyName: "links"),
                ]),
            ObjectSchema(
                className: "Address",
                properties: [
                    Property(name: "street", type: .string),
                    Property(name: "geo", type: .object, objectClassName: "Geo"),
                ], isEmbedded: true),
            ObjectSchema(
                className: "Geo",
                properties: [
                    Property(name: "lat", type: .double),
                    Property(name: "lon", type: .double),
                ], isEmbedded: true),
        ])
    }

    func allTypesConfig(_ name: String = "alltypes", version: UInt64 = 0) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL(name))
        config.schema = Self.allTypesSchema()
        config.schemaVersion = version
        return config
    }

    /// A small schema for tests of results, notifications and transactions: `Item` (int primary
    /// key `id`, `name`, `score` int, `weight` double, optional `rating` double, `owner` link to
    /// `Person`) and `Person` (`name`, `items` list of Item).
    static func itemSchema() -> Schema {
        Schema([
            ObjectSchema(
                className: "Item",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "score", type: .int),
                    Property(name: "weight", type: .double),
                    Property(name: "rating", type: .double, isOptional: true),
                    Property(name: "owner", type: .object, objectClassName: "Person"),
                ]),
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "items", type: .object, objectClassName: "Item", collection: .list),
                ]),
        ])
    }

    func itemConfig(_ name: String = "items") -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL(name))
        config.schema = Self.itemSchema()
        return config
    }

    /// The bytes and modification date of a file (nil bytes when it does not exist).
    func fileState(_ url: URL) -> (bytes: Data?, modified: Date?) {
        let bytes = FileManager.default.contents(atPath: url.path)
        let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
        return (bytes, modified)
    }

    /// The names of the files in the test folder, sorted.
    func folderContents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}
