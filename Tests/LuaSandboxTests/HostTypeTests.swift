import LuaSandbox
import XCTest

private final class Owl {
    let name: String
    init(name: String) { self.name = name }
}

private final class Lamp {}

private struct Hoot: Error, CustomStringConvertible {
    let code: String
    var description: String { "hoot \(code)" }
}

/// Listing a host type's members, finding a userdata's object whatever its type, and structured
/// error values for Swift errors.
final class HostTypeTests: XCTestCase {
    func makeState() throws -> LuaState {
        let state = try LuaState()
        try state.registerType(
            Owl.self, name: "Owl",
            metatable: LuaMetatable(
                methods: ["hoot": { ctx in throw Hoot(code: try ctx.userdata(1, as: Owl.self).name) }],
                fields: ["name": { ctx in try ctx.returning(.string(try ctx.userdata(1, as: Owl.self).name)) }],
                index: { ctx in try ctx.returning(ctx.argument(2) == .integer(1) ? "first" : .nil) },
                indexKeys: ["wise"]))
        try state.registerType(Lamp.self, name: "Lamp", metatable: LuaMetatable())
        return state
    }

    func testMembersAreListedAndFieldsServed() throws {
        let state = try makeState()
        XCTAssertEqual(state.members(ofType: "Owl"), LuaTypeMembers(methods: ["hoot"], fields: ["name", "wise"]))
        XCTAssertNil(state.members(ofType: "Dove"))
        try state.setGlobal("owl", .userdata(try state.makeUserdata(Owl(name: "Hedwig"))))
        let r = try state.execute("return owl.name, owl[1], owl.other", chunkName: "=t")
        XCTAssertEqual(r, [.string("Hedwig"), .string("first"), .nil])
    }

    func testHostObjectFindsAnyRegisteredType() throws {
        let state = try makeState()
        let owl = Owl(name: "Hedwig")
        let lamp = Lamp()
        guard case .userdata(let owlRef) = LuaValue.userdata(try state.makeUserdata(owl)),
            case .userdata(let lampRef) = LuaValue.userdata(try state.makeUserdata(lamp))
        else { return XCTFail() }
        XCTAssertTrue(try state.hostObject(owlRef) === owl)
        XCTAssertTrue(try state.hostObject(lampRef) === lamp)
        XCTAssertEqual(try state.hostTypeName(lampRef), "Lamp")
        // A script's own userdata-like values are not host objects.
        guard
            case .table(let table)? = try state.execute(
                "return setmetatable({}, { __name = 'Owl' })",
                chunkName: "=t"
            ).first
        else { return XCTFail() }
        XCTAssertNotNil(table)
    }

    /// `errorValue` turns a Swift error into the raised value; the Swift error stays in the LuaError.
    func testErrorValueGivesStructuredErrors() throws {
        let state = try makeState()
        state.errorValue = { error, position in
            guard let hoot = error as? Hoot else { return nil }
            return .plainTable(LuaTable(fields: ["code": .string(hoot.code), "where": .string(position)]))
        }
        try state.setGlobal("owl", .userdata(try state.makeUserdata(Owl(name: "Hedwig"))))
        let r = try state.execute(
            """
            local ok, e = pcall(function() owl:hoot() end)
            return ok, e.code, e["where"]
            """, chunkName: "=t")
        XCTAssertEqual(r, [.boolean(false), .string("Hedwig"), .string("t:1: ")])
        do {
            try state.execute("owl:hoot()", chunkName: "=t")
            XCTFail("expected an error")
        } catch let error as LuaError {
            XCTAssertEqual((error.underlying as? Hoot)?.code, "Hedwig")
        }
    }
}
