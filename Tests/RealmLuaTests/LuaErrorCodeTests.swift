import Foundation
import LuaSandbox
import RealmDatabase
import XCTest

@testable import RealmLua

/// Errors raised by the API reach scripts as values with `code`, `message` and a `tostring` that
/// carries the position, and reach the host with the Swift error inside.
final class LuaErrorCodeTests: LuaTestCase {
    /// Runs `setup`, then `provoke` under pcall on line 2 of chunk "test"; checks the error value.
    func assertError(
        _ code: String, _ messagePart: String, setup: String = "", _ provoke: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let r = try run(
            """
            realm = Realm() \(setup)
            local ok, e = pcall(function() \(provoke) end)
            return ok, e.code, e.message, e.other, tostring(e), e.code == nil and e or nil
            """)
        XCTAssertEqual(r[0].boolValue, false, "no error from: \(provoke)", file: file, line: line)
        XCTAssertEqual(r[1].stringValue, code, "code of: \(provoke) (\(r[4]))", file: file, line: line)
        XCTAssertTrue(r[2].stringValue?.contains(messagePart) == true, "message: \(r[2])", file: file, line: line)
        XCTAssertTrue(r[3].isNil, "e.other must be nil", file: file, line: line)
        let text = r[4].stringValue ?? ""
        let provokeLine = 2 + setup.filter { $0 == "\n" }.count
        XCTAssertTrue(
            text.hasPrefix("test:\(provokeLine): "), "tostring gives the position: \(text)",
            file: file, line: line)
        XCTAssertTrue(
            text.hasSuffix(r[2].stringValue ?? "?"), "tostring ends with the message: \(text)",
            file: file, line: line)
    }

    // realm:create needs a write, as Realm's (issue 13).
    static let rex = "dog = realm:write(function() return realm:create('Dog', { name = 'Rex' }) end)"
    static let subscribe =
        "realm.subscriptions:update(function(s) s:append(QuerySubscription('Dog', { name = 'd' })) end)"
    static let toy =
        "id = ObjectId('000000000000000000000001') "
        + "realm:write(function() realm:create('DogToy', { _id = id, name = 'A' }) end)"

    func testObjectAlreadyExists() throws {
        try assertError(
            "ObjectAlreadyExists", "existing primary key value",
            setup: Self.toy,
            "realm:write(function() realm:create('DogToy', { _id = id, name = 'B' }) end)")
    }

    func testInvalidQuery() throws {
        try assertError("InvalidQuery", "Invalid query 'age >>> 1'", "realm:objects('Dog'):where('age >>> 1')")
    }

    func testWrongTransactionState() throws {
        try assertError("WrongTransactionState", "non-existing write transaction", "realm:commitWrite()")
    }

    func testNoSuchTable() throws {
        try assertError("NoSuchTable", "Nope", "realm:objects('Nope')")
    }

    func testInvalidProperty() throws {
        try assertError(
            "InvalidProperty", "does not exist on object type 'Dog'",
            setup: Self.rex, "return dog.nope")
    }

    func testInvalidatedObject() throws {
        try assertError(
            "InvalidatedObject", "deleted or invalidated",
            setup: "realm:write(function() dog = realm:create('Dog', { name = 'Gone' }) realm:delete(dog) end)",
            "return dog.name")
    }

    func testModifyPrimaryKey() throws {
        try assertError(
            "ModifyPrimaryKey", "Primary key can't be changed", setup: Self.rex,
            "dog._id = UUID()")
    }

    func testFrozenObject() throws {
        try assertError(
            "FrozenObject", "frozen", setup: Self.rex + " dog = dog:freeze()",
            "dog.name = 'Max'")
    }

    func testIndexOutOfBounds() throws {
        try assertError(
            "IndexOutOfBounds", "Index 4 is out of bounds", setup: Self.rex,
            "dog.tags:remove(5)")
    }

    func testInvalidArgument() throws {
        try assertError(
            "InvalidArgument", "Invalid value 'old' of type 'string'", setup: Self.rex,
            "dog.age = 'old'")
    }

    func testSubscriptionFailed() throws {
        try assertError(
            "SubscriptionFailed", "already exists",
            setup: Self.subscribe, Self.subscribe)
    }

    func testObjectManagedByAnotherRealm() throws {
        try assertError(
            "ObjectManagedByAnotherRealm", "another Realm",
            setup: """
                c = Realm.Configuration{ inMemoryIdentifier = 'other' }
                other = Realm(c)
                dog = other:write(function() return other:create('Dog', { name = 'Rex' }) end)
                """,
            "realm:write(function() realm:add(dog) end)")
    }

    /// A script matches on `e.code`; an uncaught error still reads as it did (the position and
    /// the message), and the host gets the RealmError with its code.
    /// Every database error code has a published name of its own (a new code without one would
    /// reach scripts as its Swift name, which nobody documented).
    func testEveryDatabaseErrorCodeHasAName() {
        for code in RealmError.Code.allCases {
            XCTAssertNotNil(ScriptErrorCode.names[code], "no script name for RealmError.Code.\(code)")
        }
        XCTAssertEqual(
            Set(ScriptErrorCode.names.values).count, ScriptErrorCode.names.count - 1, "only InvalidDatabase is shared")
    }

    func testHostKeepsTheSwiftError() throws {
        do {
            try runtime.execute("realm = Realm()\nrealm:commitWrite()", chunkName: "=script")
            XCTFail("expected an error")
        } catch let error as LuaError {
            XCTAssertEqual(error.message, "script:2: Can't commit a non-existing write transaction")
            XCTAssertEqual((error.underlying as? RealmError)?.code, .wrongTransactionState)
        }
    }

    /// Errors that are not the database's stay strings (string methods keep working on them).
    func testOtherErrorsStayStrings() throws {
        let r = try run(
            """
            local ok, e = pcall(function() error("plain") end)
            local ok2, e2 = pcall(function() Realm():objects(42, 1, 2) end)
            return type(e), e:upper()
            """)
        XCTAssertEqual(r[0].stringValue, "string")
        XCTAssertEqual(r[1].stringValue, "TEST:1: PLAIN")
    }
}
