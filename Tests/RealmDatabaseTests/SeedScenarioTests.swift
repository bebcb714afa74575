import Foundation
import XCTest

@testable import RealmDatabase

/// The seed scenarios (shared/seed-scenarios.md), through the Swift API.
final class SeedScenarioTests: RealmTestCase {
    func testPerUserRealmFromDefaultConfiguration() throws {
        var defaultConfig = doggoConfig("default")
        defaultConfig.fileURL = folder.appendingPathComponent("default.realm")
        var config = defaultConfig
        config.fileURL!.deleteLastPathComponent()
        config.fileURL!.appendPathComponent("GordonCole")
        config.fileURL!.appendPathExtension("realm")
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.configuration.fileURL?.lastPathComponent, "GordonCole.realm")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("GordonCole.realm").path))
        try realm.write { try realm.create("Dog", value: ["name": "Bandido"]) }
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 1)
    }

    func testMigrationAddsFavoriteTreat() throws {
        do {
            let realm = try Realm(configuration: doggoConfig(version: 1))
            try realm.write {
                try realm.create("Dog", value: ["name": "Maui", "weight": 20])
                try realm.create("Dog", value: ["name": "Lita", "weight": 30])
            }
        }
        // Same version, new property: refused with Realm's message.
        var sameVersion = doggoConfig(version: 1)
        sameVersion.schema = Self.doggoSchema(version: 2)
        XCTAssertThrowsError(try Realm(configuration: sameVersion)) { error in
            XCTAssertEqual(
                (error as? RealmError)?.message,
                "Migration is required due to the following errors:\n- Property 'Dog.favoriteTreat' has been added.")
        }
        var config = doggoConfig(version: 2)
        var calls = 0
        config.migrationBlock = { migration, oldVersion in
            XCTAssertEqual(oldVersion, 1)
            calls += 1
            try migration.enumerateObjects(ofType: "Dog") { old, new in
                XCTAssertNil(old?.objectSchema?["favoriteTreat"])
                let name = try old!["name"].stringValue ?? ""
                try new!.setValue(.string(name == "Maui" ? "bone" : "kibble"), forKey: "favoriteTreat")
            }
        }
        let realm = try Realm(configuration: config)
        XCTAssertEqual(calls, 1)
        XCTAssertEqual(realm.schemaVersion, 2)
        let treats = try realm.objects("Dog").sorted(byKeyPath: "name").map { try $0["favoriteTreat"] }
        XCTAssertEqual(treats, ["kibble", "bone"])
    }

    func testAppendDogToPersonDogs() throws {
        let realm = try Realm(configuration: doggoConfig())
        let person = try realm.write { try realm.create("Person", value: ["firstName": "Dale", "lastName": "Cooper"]) }
        let dogs = try person.dynamicList("dogs")
        // Implicit write: no write block.
        try dogs.append(.object(DynamicObject(className: "Dog", value: ["name": "Diane"])))
        XCTAssertEqual(dogs.count, 1)
        XCTAssertEqual(try dogs[0].objectValue?["name"], "Diane")
        let owners = try dogs[0].objectValue!.linkingObjects("owners")
        XCTAssertEqual(owners.count, 1)
        XCTAssertEqual(try owners[0]["firstName"], "Dale")
    }

    func testObjectManagedElsewhereIsCopiedWithCreate() throws {
        let other = try Realm(configuration: doggoConfig("other"))
        let wubba = try other.write { try other.create("DogToy", value: ["name": "Wubba"]) }
        let realm = try Realm(configuration: doggoConfig())
        let dogs = try realm.objects("Dog")
        XCTAssertThrowsError(try dogs.append(.object(wubba.freeze()))) { error in
            XCTAssertEqual(
                (error as? RealmError)?.message,
                "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        }
        XCTAssertThrowsError(try realm.write { try realm.add(wubba) }) { error in
            XCTAssertEqual(
                (error as? RealmError)?.message,
                "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        }
        let dog = try realm.write {
            try realm.create("Dog", value: ["name": "Maui", "favoriteToy": .object(wubba)], update: .modified)
        }
        XCTAssertEqual(try dog["favoriteToy"].objectValue?["name"], "Wubba")
        XCTAssertEqual(try realm.objects("DogToy").countObjects(), 1)
        XCTAssertTrue(dog.realm === realm)
    }

    func testFrozenCompanyThawedAndWritten() throws {
        let realm = try Realm(configuration: doggoConfig())
        try realm.write {
            try realm.create(
                "Company",
                value: [
                    "companyName": "MongoDB",
                    "employees": [["name": "Dachary"], ["name": "Chris"]],
                    "dogs": [["name": "Maui"], ["name": "Ben"]],
                ])
        }
        let frozenCompany = try realm.objects("Company").freeze()[0]
        XCTAssertTrue(frozenCompany.isFrozen)
        XCTAssertThrowsError(try frozenCompany.setValue("x", forKey: "companyName"))
        let thawedRealm = try frozenCompany.realm!.thaw()
        let company = try XCTUnwrap(try frozenCompany.thaw())
        let employee = try company.dynamicList("employees").filter("name == $0", "Dachary")[0]
        let dog = try company.dynamicList("dogs").filter("name == $0", "Maui")[0]
        try thawedRealm.write { try employee.dynamicList("dogs").append(.object(dog)) }
        XCTAssertEqual(try employee.dynamicList("dogs")[0].objectValue?["name"], "Maui")
        // The frozen company still sees the old version.
        let frozenEmployee = try frozenCompany.dynamicList("employees")[0].objectValue!
        XCTAssertEqual(try frozenEmployee.dynamicList("dogs").count, 0)
    }
}
