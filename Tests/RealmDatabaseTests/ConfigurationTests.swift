import Foundation
import XCTest

@testable import RealmDatabase

/// Realm.Configuration: its fields, the default configuration and where it points, and how each
/// field changes what opening does.
final class ConfigurationTests: RealmTestCase {
    private var savedDefault: Realm.Configuration!
    private var savedDataEnv: String?

    override func setUpWithError() throws {
        try super.setUpWithError()
        savedDefault = Realm.Configuration.defaultConfiguration
        savedDataEnv = ProcessInfo.processInfo.environment["REALM_HOST_DATA"]
    }

    override func tearDownWithError() throws {
        Realm.Configuration.defaultConfiguration = savedDefault
        if let savedDataEnv { setenv("REALM_HOST_DATA", savedDataEnv, 1) } else { unsetenv("REALM_HOST_DATA") }
        try super.tearDownWithError()
    }

    // MARK: Fields

    func testDefaultsOfANewConfiguration() {
        let config = Realm.Configuration()
        XCTAssertEqual(config.schemaVersion, 0)
        XCTAssertNil(config.migrationBlock)
        XCTAssertFalse(config.deleteRealmIfMigrationNeeded)
        XCTAssertFalse(config.readOnly)
        XCTAssertNil(config.schema)
        XCTAssertNil(config.objectTypes)
        XCTAssertNil(config.maximumNumberOfActiveVersions)
        XCTAssertNil(config.inMemoryIdentifier)
        XCTAssertEqual(config.fileURL?.lastPathComponent, "default.realm")
    }

    func testFileURLAndInMemoryIdentifierExcludeEachOther() {
        var config = Realm.Configuration(fileURL: fileURL("a"))
        XCTAssertEqual(config.fileURL, fileURL("a"))
        XCTAssertNil(config.inMemoryIdentifier)

        config.inMemoryIdentifier = "scratch"
        XCTAssertEqual(config.inMemoryIdentifier, "scratch")
        XCTAssertNil(config.fileURL, "setting inMemoryIdentifier clears fileURL")

        config.fileURL = fileURL("b")
        XCTAssertEqual(config.fileURL, fileURL("b"))
        XCTAssertNil(config.inMemoryIdentifier, "setting fileURL clears inMemoryIdentifier")

        let memory = Realm.Configuration(fileURL: fileURL("c"), inMemoryIdentifier: "m")
        XCTAssertNil(memory.fileURL)
        XCTAssertEqual(memory.inMemoryIdentifier, "m")
    }

    func testConfigurationIsAValue() throws {
        var a = doggoConfig("a")
        var b = a
        b.fileURL = fileURL("b")
        b.schemaVersion = 7
        b.readOnly = true
        XCTAssertEqual(a.fileURL, fileURL("a"))
        XCTAssertEqual(a.schemaVersion, 1)
        XCTAssertFalse(a.readOnly)
        // Changing a configuration after opening does not change the open realm's.
        let realm = try Realm(configuration: a)
        a.schemaVersion = 9
        XCTAssertEqual(realm.configuration.schemaVersion, 1)
        XCTAssertEqual(realm.configuration.fileURL, fileURL("a"))
    }

    // MARK: The default configuration

    func testDefaultConfigurationIsDefaultRealmInTheDataFolder() {
        let url = Realm.Configuration.defaultConfiguration.fileURL
        XCTAssertEqual(url?.lastPathComponent, "default.realm")
        XCTAssertEqual(
            Realm.Configuration.defaultDataFolder.standardizedFileURL.path,
            url?.deletingLastPathComponent().standardizedFileURL.path)
        if ProcessInfo.processInfo.environment["REALM_HOST_DATA"] == nil {
            XCTAssertEqual(url?.deletingLastPathComponent().lastPathComponent, "data")
            XCTAssertEqual(
                url?.deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL.path,
                URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path)
        }
    }

    func testDataFolderComesFromTheEnvironment() {
        let data = folder.appendingPathComponent("somewhere", isDirectory: true)
        setenv("REALM_HOST_DATA", data.path, 1)
        XCTAssertEqual(Realm.Configuration.defaultDataFolder.standardizedFileURL.path, data.standardizedFileURL.path)
        XCTAssertEqual(
            Realm.Configuration().fileURL?.standardizedFileURL.path,
            data.appendingPathComponent("default.realm").standardizedFileURL.path)
    }

    func testSettingTheDefaultConfigurationChangesLaterOpensOnly() throws {
        Realm.Configuration.defaultConfiguration = doggoConfig("first")
        let first = try Realm()
        XCTAssertEqual(first.configuration.fileURL, fileURL("first"))
        try first.write { try first.create("Dog", value: ["name": "Rex"]) }

        Realm.Configuration.defaultConfiguration = doggoConfig("second")
        let second = try Realm()
        XCTAssertEqual(second.configuration.fileURL, fileURL("second"))
        XCTAssertEqual(try second.objects("Dog").countObjects(), 0)
        // The realm already open is unaffected.
        XCTAssertEqual(first.configuration.fileURL, fileURL("first"))
        XCTAssertEqual(try first.objects("Dog").countObjects(), 1)
        XCTAssertEqual(Realm.Configuration.defaultConfiguration.fileURL, fileURL("second"))
    }

    /// shared/seed-scenarios.md §1, verbatim, on a fresh data folder: the default configuration's
    /// folder need not exist yet.
    func testPerUserSnippetAsWrittenOnAFreshDataFolder() throws {
        let data = folder.appendingPathComponent("data", isDirectory: true)
        setenv("REALM_HOST_DATA", data.path, 1)
        Realm.Configuration.defaultConfiguration = Realm.Configuration()
        Realm.Configuration.defaultConfiguration.schema = Self.doggoSchema()
        Realm.Configuration.defaultConfiguration.schemaVersion = 1

        let username = "GordonCole"
        var config = Realm.Configuration.defaultConfiguration
        config.fileURL!.deleteLastPathComponent()
        config.fileURL!.appendPathComponent(username)
        config.fileURL!.appendPathExtension("realm")
        let realm = try Realm(configuration: config)
        try realm.write { try realm.create("Dog", value: ["name": "Bandido"]) }

        XCTAssertTrue(FileManager.default.fileExists(atPath: data.appendingPathComponent("GordonCole.realm").path))
        // The default realm itself opens in the same folder, separate from the user's.
        let defaultRealm = try Realm()
        XCTAssertEqual(defaultRealm.configuration.fileURL?.lastPathComponent, "default.realm")
        XCTAssertEqual(try defaultRealm.objects("Dog").countObjects(), 0)
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: data.appendingPathComponent("default.realm").path))
    }

    // MARK: In memory

    func testInMemoryRealmIsSharedWhileOpenAndGoneAfter() throws {
        var config = Realm.Configuration(inMemoryIdentifier: "mem-\(UUID().uuidString)")
        config.schema = Self.doggoSchema()
        do {
            let a = try Realm(configuration: config)
            try a.write { try a.create("Dog", value: ["name": "Rex"]) }
            let b = try Realm(configuration: config)
            XCTAssertEqual(try b.objects("Dog").countObjects(), 1)
            try b.write { try b.create("Dog", value: ["name": "Fido"]) }
            XCTAssertEqual(try a.objects("Dog").countObjects(), 2)
        }
        XCTAssertEqual(folderContents(), [], "an in-memory realm writes no file")
        let again = try Realm(configuration: config)
        XCTAssertEqual(try again.objects("Dog").countObjects(), 0, "the data is gone once every instance is closed")
    }

    func testInMemoryRealmsWithDifferentIdentifiersAreSeparate() throws {
        var a = Realm.Configuration(inMemoryIdentifier: "a-\(UUID().uuidString)")
        a.schema = Self.doggoSchema()
        var b = a
        b.inMemoryIdentifier = "b-\(UUID().uuidString)"
        let ra = try Realm(configuration: a)
        let rb = try Realm(configuration: b)
        try ra.write { try ra.create("Dog", value: ["name": "Rex"]) }
        XCTAssertEqual(try rb.objects("Dog").countObjects(), 0)
    }

    // MARK: schemaVersion, schema, objectTypes

    func testSchemaVersionIsStored() throws {
        do {
            let realm = try Realm(configuration: doggoConfig(version: 3))
            XCTAssertEqual(realm.schemaVersion, 3)
        }
        // Opening without a schema reads the stored one, and the stored version.
        let dynamic = try Realm(configuration: Realm.Configuration(fileURL: fileURL("doggo")))
        XCTAssertEqual(dynamic.schemaVersion, 3)
        XCTAssertEqual(dynamic.schema.classNames.sorted(), ["Company", "Dog", "DogToy", "Employee", "Person"])
    }

    func testMigrationBlockDoesNotRunForANewFileOrTheSameVersion() throws {
        var config = doggoConfig(version: 4)
        var calls = 0
        config.migrationBlock = { _, _ in calls += 1 }
        _ = try Realm(configuration: config)
        XCTAssertEqual(calls, 0, "a new file is created at the configured version without a migration")
        _ = try Realm(configuration: config)
        XCTAssertEqual(calls, 0, "the same version does not migrate")
    }

    func testObjectTypesRestrictTheClasses() throws {
        var config = doggoConfig()
        config.objectTypes = ["DogToy"]
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.schema.classNames, ["DogToy"])
        assertRealmError(try realm.objects("Dog"), "Object type 'Dog' is not managed by the Realm.")
        try realm.write { try realm.create("DogToy", value: ["name": "Ball"]) }

        // Classes reached through links come along.
        var persons = doggoConfig()
        persons.objectTypes = ["Person"]
        let personRealm = try Realm(configuration: persons)
        XCTAssertEqual(Set(personRealm.schema.classNames), ["Person", "Dog", "DogToy"])

        // The hidden classes stay in the file, untouched, for a configuration that lists them.
        let full = try Realm(configuration: doggoConfig())
        XCTAssertEqual(try full.objects("DogToy").countObjects(), 1)
        try full.write { try full.create("Company", value: ["companyName": "Acme"]) }
        XCTAssertEqual(try full.objects("Company").countObjects(), 1)
    }

    func testObjectTypesNamingAnUnknownClassFails() {
        var config = doggoConfig()
        config.objectTypes = ["Cat"]
        assertRealmError(try Realm(configuration: config), code: .schemaValidation, containing: ["Cat"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileURL("doggo").path))
    }

    // MARK: readOnly

    func testReadOnlyNeedsAnExistingFile() {
        var config = doggoConfig()
        config.readOnly = true
        assertRealmError(try Realm(configuration: config), code: .fileNotFound, containing: [fileURL("doggo").path])
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileURL("doggo").path))
    }

    func testReadOnlyReadsAndRefusesEveryWrite() throws {
        do {
            let realm = try Realm(configuration: doggoConfig())
            try realm.write { try realm.create("Dog", value: ["name": "Rex", "weight": 9]) }
        }
        let before = fileState(fileURL("doggo"))
        var config = doggoConfig()
        config.readOnly = true
        do {
            let realm = try Realm(configuration: config)
            let dog = try XCTUnwrap(try realm.objects("Dog").first)
            XCTAssertEqual(try dog["name"], "Rex")
            assertRealmError(try realm.write {}, "Can't perform transactions on read-only Realms.")
            assertRealmError(try realm.beginWrite(), "Can't perform transactions on read-only Realms.")
            XCTAssertThrowsError(try dog.setValue("Max", forKey: "name", mode: .implicit))
            XCTAssertThrowsError(try realm.objects("Dog").append(["name": "Fido"]))
            XCTAssertEqual(try dog["name"], "Rex")
        }
        let after = fileState(fileURL("doggo"))
        XCTAssertEqual(before.bytes, after.bytes)
        XCTAssertEqual(before.modified, after.modified)
    }

    func testReadOnlyDoesNotMigrate() throws {
        _ = try Realm(configuration: doggoConfig(version: 1))
        let before = fileState(fileURL("doggo"))
        var config = doggoConfig(version: 2)
        config.readOnly = true
        var ran = false
        config.migrationBlock = { _, _ in ran = true }
        assertRealmError(
            try Realm(configuration: config), "Provided schema version 2 does not equal last set version 1.")
        XCTAssertFalse(ran)
        var sameVersion = doggoConfig(version: 1)
        sameVersion.schema = Self.doggoSchema(version: 2)
        sameVersion.readOnly = true
        assertRealmError(
            try Realm(configuration: sameVersion),
            "Migration is required due to the following errors:\n- Property 'Dog.favoriteTreat' has been added.")
        XCTAssertEqual(fileState(fileURL("doggo")).bytes, before.bytes)
    }

    func testReadOnlyWithAClassTheFileLacks() throws {
        do {
            let realm = try Realm(configuration: doggoConfig())
            try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        }
        var config = doggoConfig()
        config.readOnly = true
        config.schema!.objectSchemas.append(
            ObjectSchema(className: "Cat", properties: [Property(name: "name", type: .string)]))
        let realm = try Realm(configuration: config)
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 1)
        XCTAssertEqual(
            try realm.objects("Cat").countObjects(), 0, "a class missing from a read-only file reads as empty")
    }

    // MARK: deleteRealmIfMigrationNeeded

    func testDeleteRealmIfMigrationNeededOnASchemaChange() throws {
        do {
            let realm = try Realm(configuration: doggoConfig(version: 1))
            try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        }
        var config = doggoConfig(version: 1)
        config.schema = Self.doggoSchema(version: 2)
        config.deleteRealmIfMigrationNeeded = true
        var ran = false
        config.migrationBlock = { _, _ in ran = true }
        let realm = try Realm(configuration: config)
        XCTAssertFalse(ran)
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 0)
        XCTAssertNotNil(realm.schema["Dog"]?["favoriteTreat"])
        try realm.write { try realm.create("Dog", value: ["name": "Fido", "favoriteTreat": "bone"]) }
        XCTAssertEqual(try realm.objects("Dog").first?["favoriteTreat"], "bone")
    }

    func testDeleteRealmIfMigrationNeededOnAVersionBump() throws {
        do {
            let realm = try Realm(configuration: doggoConfig(version: 1))
            try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        }
        var config = doggoConfig(version: 2)
        config.deleteRealmIfMigrationNeeded = true
        var ran = false
        config.migrationBlock = { _, _ in ran = true }
        do {
            let realm = try Realm(configuration: config)
            XCTAssertFalse(ran, "the file is recreated instead of migrated")
            XCTAssertEqual(try realm.objects("Dog").countObjects(), 0)
            XCTAssertEqual(realm.schemaVersion, 2)
            try realm.write { try realm.create("Dog", value: ["name": "Fido"]) }
        }
        // Nothing to migrate any more: the data stays.
        let again = try Realm(configuration: config)
        XCTAssertEqual(try again.objects("Dog").countObjects(), 1)
    }

    func testDeleteRealmIfMigrationNeededKeepsDataWhenNothingIsNeeded() throws {
        do {
            let realm = try Realm(configuration: doggoConfig(version: 1))
            try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        }
        var config = doggoConfig(version: 1)
        config.deleteRealmIfMigrationNeeded = true
        // A new class needs no migration either.
        config.schema!.objectSchemas.append(
            ObjectSchema(className: "Cat", properties: [Property(name: "name", type: .string)]))
        let realm = try Realm(configuration: config)
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 1)
        XCTAssertEqual(try realm.objects("Cat").countObjects(), 0)
    }

    func testDeleteRealmIfMigrationNeededRecreatesRemovedClassesToo() throws {
        do {
            let realm = try Realm(configuration: doggoConfig(version: 1))
            try realm.write { try realm.create("Company", value: ["companyName": "Acme"]) }
        }
        var config = doggoConfig(version: 2)
        config.deleteRealmIfMigrationNeeded = true
        config.schema!.objectSchemas.removeAll { $0.className == "Company" }
        _ = try Realm(configuration: config)
        // The file was recreated: the old class's data is gone with it.
        let full = try Realm(configuration: doggoConfig(version: 2))
        XCTAssertEqual(try full.objects("Company").countObjects(), 0)
    }
}
