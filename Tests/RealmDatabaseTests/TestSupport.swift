import Foundation
import XCTest
@testable import RealmDatabase

/// A fresh temporary folder per test, removed afterwards.
class RealmTestCase: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("realmhost-tests-\(UUID().uuidString)", isDirectory: true)
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
            ObjectSchema(className: "DogToy", properties: [Property(name: "_id", type: .objectId, isPrimaryKey: true), Property(name: "name", type: .string)]),
            ObjectSchema(className: "Person", properties: [
                Property(name: "_id", type: .objectId, isPrimaryKey: true),
                Property(name: "firstName", type: .string),
                Property(name: "lastName", type: .string),
                Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
            ]),
            ObjectSchema(className: "Company", properties: [
                Property(name: "_id", type: .objectId, isPrimaryKey: true),
                Property(name: "companyName", type: .string),
                Property(name: "employees", type: .object, objectClassName: "Employee", collection: .list),
                Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
            ]),
            ObjectSchema(className: "Employee", properties: [
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
