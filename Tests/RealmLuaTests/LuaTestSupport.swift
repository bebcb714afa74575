import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// A runtime over a temporary data folder, with DoggoDB's schema as the default configuration.
class LuaTestCase: XCTestCase {
    var folder: URL!
    var runtime: RealmLuaRuntime!
    var printed: [String] = []

    static let doggoSchemaLua = """
        {
          { name = "Dog", primaryKey = "_id", properties = {
              _id = "uuid", name = "string", breed = "string?", age = "int", weight = "double",
              favoriteToy = "DogToy?", tags = "string[]", nicknames = "string<>", attributes = "mixed{}",
              owners = { type = "linkingObjects", objectType = "Person", property = "dogs" } } },
          { name = "DogToy", primaryKey = "_id", properties = { _id = "objectId", name = "string" } },
          { name = "Person", primaryKey = "_id", properties = {
              _id = "objectId", firstName = "string", lastName = "string", dogs = "Dog[]", address = "Address?" } },
          { name = "Address", embedded = true, properties = { street = "string", city = "string" } },
          { name = "Company", primaryKey = "_id", properties = {
              _id = "objectId", companyName = "string", employees = "Employee[]", dogs = "Dog[]" } },
          { name = "Employee", properties = { name = "string", dogs = "Dog[]" } },
        }
        """

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "realmlua-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        runtime = try RealmLuaRuntime(
            userName: "default", folder: folder,
            defaultConfiguration: Realm.Configuration(fileURL: folder.appendingPathComponent("default.realm")))
        runtime.output = { [unowned self] in printed.append($0) }
        try run(
            "local c = Realm.Configuration.defaultConfiguration; c.schema = \(Self.doggoSchemaLua); "
                + "Realm.Configuration.defaultConfiguration = c"
        )
    }

    override func tearDownWithError() throws {
        runtime = nil
        try? FileManager.default.removeItem(at: folder)
    }

    @discardableResult
    func run(_ code: String, file: StaticString = #filePath, line: UInt = #line) throws -> [LuaValue] {
        try runtime.execute(code, chunkName: "=test")
    }

    /// Runs code expected to fail; returns the error message.
    func failure(_ code: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            try runtime.execute(code, chunkName: "=test")
            XCTFail("expected an error from: \(code)", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }
}
