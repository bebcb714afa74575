import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// A test-only host type: its methods count their calls, so a test can tell whether completion
/// ran them.
private final class Probe {
    var calls = 0
}

/// Completion reads the bindings' own tables and never runs what it completes after.
final class LuaCompletionTests: LuaTestCase {
    func testMembersComeFromTheBindings() throws {
        try run("realm = Realm() dogs = realm:objects('Dog') dog = dogs:append{ name = 'Rex' }")
        let realmMethods = runtime.memberNames(of: "realm", methodsOnly: true)
        let expected = ["objects", "object", "write", "create", "observe"]
        XCTAssertTrue(expected.allSatisfy(realmMethods.contains), "\(realmMethods)")
        XCTAssertTrue(runtime.memberNames(of: "realm", methodsOnly: false).contains("schemaVersion"))
        // Results' methods, and for a list of objects the query verbs it shares with Results.
        XCTAssertTrue(runtime.memberNames(of: "dogs", methodsOnly: true).contains("sorted"))
        XCTAssertTrue(runtime.memberNames(of: "dog.owners", methodsOnly: true).contains("where"))
        // An object's fields and its class's properties; a link followed by the schema.
        let fields = runtime.memberNames(of: "dog", methodsOnly: false)
        XCTAssertTrue(["className", "favoriteToy", "tags"].allSatisfy(fields.contains), "\(fields)")
        XCTAssertEqual(runtime.objectSchema(ofReceiver: "dog.favoriteToy")?.className, "DogToy")
        XCTAssertTrue(runtime.memberNames(of: "dog.tags", methodsOnly: true).contains("insert"))
        XCTAssertTrue(runtime.globalNames().contains("Realm") && runtime.globalNames().contains("dogs"))
    }

    /// Calls are followed by their declared result types, without being made.
    func testMethodResultsAreFollowedWithoutCalls() throws {
        try run("realm = Realm()")
        let methods = runtime.memberNames(of: "realm:objects(\"Dog\"):where(\"age > 1\")", methodsOnly: true)
        XCTAssertTrue(methods.contains("sorted") && methods.contains("freeze"), "\(methods)")
        let sorted = runtime.objectSchema(ofReceiver: "realm:objects('Person'):sorted('firstName')")
        XCTAssertEqual(sorted?.className, "Person")
        // create would write: completing after it must not create anything.
        let objectFields = runtime.memberNames(of: "realm:create(\"Dog\", { name = 'X' })", methodsOnly: false)
        XCTAssertTrue(objectFields.contains("breed"), "\(objectFields)")
        XCTAssertEqual(try run("return #realm:objects('Dog')").first?.integerValue, 0)
    }

    /// `x:freeze():` and `x:thaw():` are not evaluated: no frozen realm (a pinned version) is
    /// made, no live one opened.
    func testFreezeAndThawReceiversAreNotEvaluated() throws {
        try run("realm = Realm() dogs = realm:objects('Dog')")
        let probe = Probe()
        try runtime.state.registerType(
            Probe.self, name: "Probe",
            metatable: LuaMetatable(methods: [
                "freeze": { ctx in
                    try ctx.userdata(1, as: Probe.self).calls += 1
                    return 0
                },
                "thaw": { ctx in
                    try ctx.userdata(1, as: Probe.self).calls += 1
                    return 0
                },
            ]))
        try runtime.state.setGlobal("probe", .userdata(try runtime.state.makeUserdata(probe)))
        _ = runtime.memberNames(of: "probe:freeze()", methodsOnly: true)
        _ = runtime.memberNames(of: "probe:thaw():freeze()", methodsOnly: false)
        XCTAssertEqual(probe.calls, 0)
        // On the real types the result is still known: Results, then a Realm.
        XCTAssertTrue(runtime.memberNames(of: "dogs:freeze()", methodsOnly: true).contains("thaw"))
        XCTAssertTrue(runtime.memberNames(of: "realm:freeze():thaw()", methodsOnly: true).contains("objects"))
        XCTAssertEqual(try run("return realm.isFrozen, dogs.isFrozen").map(\.boolValue), [false, false])
    }

    /// A field read through a script's `__index` is not made (it could write).
    func testScriptMetamethodsAreNotRun() throws {
        try run(
            """
            hits = 0
            lazy = setmetatable({ known = { a = 1 } }, {
              __index = function(t, k) hits = hits + 1 return { b = 2 } end })
            """)
        XCTAssertEqual(runtime.memberNames(of: "lazy.known", methodsOnly: false), ["a"])
        XCTAssertEqual(runtime.memberNames(of: "lazy.other", methodsOnly: false), [])
        XCTAssertEqual(try run("return hits").first?.integerValue, 0)
    }

    /// A method added to a binding completes with no other edit.
    func testANewBindingCompletes() throws {
        try runtime.state.registerType(
            Probe.self, name: "Probe",
            metatable: LuaMetatable(
                methods: ["bark": { _ in 0 }], fields: ["volume": { ctx in try ctx.returning(.integer(11)) }]))
        try runtime.state.setGlobal("probe", .userdata(try runtime.state.makeUserdata(Probe())))
        XCTAssertEqual(runtime.memberNames(of: "probe", methodsOnly: true), ["bark"])
        XCTAssertEqual(runtime.memberNames(of: "probe", methodsOnly: false), ["volume"])
        XCTAssertEqual(try run("return probe.volume").first?.integerValue, 11)
    }
}
