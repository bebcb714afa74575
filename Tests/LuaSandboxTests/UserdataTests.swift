import LuaSandbox
import XCTest

final class Dog {
    var name: String
    var age: Int64
    init(name: String, age: Int64 = 1) {
        self.name = name
        self.age = age
    }
}

final class Cat {}

/// Host objects as userdata: methods, metamethods, type checks, protection, release.
final class UserdataTests: XCTestCase {
    func makeState() throws -> LuaState {
        let state = try LuaState()
        let metatable = LuaMetatable(
            methods: [
                "bark": { ctx in
                    let dog = try ctx.userdata(1, as: Dog.self)
                    return try ctx.returning(.string("\(dog.name) says woof"))
                },
                "birthday": { ctx in
                    try ctx.userdata(1, as: Dog.self).age += 1
                    return 0
                },
            ],
            index: { ctx in
                let dog = try ctx.userdata(1, as: Dog.self)
                switch try ctx.string(2) {
                case "name": return try ctx.returning(.string(dog.name))
                case "age": return try ctx.returning(.integer(dog.age))
                default: return try ctx.returning(.nil)
                }
            },
            newIndex: { ctx in
                let dog = try ctx.userdata(1, as: Dog.self)
                guard try ctx.string(2) == "name" else {
                    throw ctx.error("Dog has no writable property '\(try ctx.string(2))'")
                }
                dog.name = try ctx.string(3)
                return 0
            },
            metamethods: [
                "__tostring": { ctx in try ctx.returning(.string("Dog(\(try ctx.userdata(1, as: Dog.self).name))")) },
                "__eq": { ctx in
                    try ctx.returning(.boolean(ctx.userdata(1, as: Dog.self) === ctx.userdata(2, as: Dog.self)))
                },
                "__lt": { ctx in
                    try ctx.returning(.boolean(ctx.userdata(1, as: Dog.self).age < ctx.userdata(2, as: Dog.self).age))
                },
                "__le": { ctx in
                    try ctx.returning(.boolean(ctx.userdata(1, as: Dog.self).age <= ctx.userdata(2, as: Dog.self).age))
                },
                "__len": { ctx in try ctx.returning(.integer(Int64(ctx.userdata(1, as: Dog.self).name.count))) },
                "__call": { ctx in try ctx.returning(.string("called with \(ctx.argumentCount - 1) arguments")) },
            ])
        try state.registerType(Dog.self, name: "Dog", metatable: metatable)
        try state.registerType(Cat.self, name: "Cat", metatable: LuaMetatable())
        try state.register("Dog") { ctx in
            try ctx.push(userdata: Dog(name: ctx.string(1), age: ctx.optionalInteger(2) ?? 1))
            return 1
        }
        try state.register("Cat") { ctx in
            try ctx.push(userdata: Cat())
            return 1
        }
        return state
    }

    func testMethodsPropertiesAndMetamethods() throws {
        let state = try makeState()
        let code = """
            local d = Dog('Rex', 3)
            d:birthday()
            d.name = 'Max'
            local e = Dog('Bo', 7)
            return d:bark(), d.age, tostring(d), #d, d == d, d == e, d < e, e <= d, d(1, 2), d.unknown
            """
        let values = try state.execute(code, chunkName: "=t")
        XCTAssertEqual(
            values,
            [
                "Max says woof", .integer(4), "Dog(Max)", .integer(3), true, false, true, false,
                "called with 2 arguments", .nil,
            ])
    }

    func testSwiftObjectRoundTrip() throws {
        let state = try makeState()
        let dog = Dog(name: "Laika")
        try state.setGlobal("laika", .userdata(state.makeUserdata(dog)))
        let result = try state.eval("return laika")
        guard case .userdata(let ref) = result else { return XCTFail("expected userdata, got \(result)") }
        XCTAssertTrue(try state.object(ref, as: Dog.self) === dog)
        XCTAssertNil(try state.object(ref, as: Cat.self))
        try state.execute("laika.name = 'Laika II'", chunkName: "=t")
        XCTAssertEqual(dog.name, "Laika II")
    }

    func testTypeErrorsNameTheExpectedType() throws {
        let state = try makeState()
        try state.register("walk") { ctx in
            _ = try ctx.userdata(1, as: Dog.self)
            return 0
        }
        XCTAssertEqual(
            expectLuaError { try state.execute("walk('x')", chunkName: "=t") }?.message,
            "t:1: bad argument #1 to 'walk' (Dog expected, got string)")
        XCTAssertEqual(
            expectLuaError { try state.execute("walk(Cat())", chunkName: "=t") }?.message,
            "t:1: bad argument #1 to 'walk' (Dog expected, got Cat)")
        XCTAssertEqual(
            expectLuaError { try state.execute("local d = Dog('a') d.bark(42)", chunkName: "=t") }?.message,
            "t:1: bad argument #1 to 'bark' (Dog expected, got number)")
        XCTAssertEqual(
            expectLuaError { try state.execute("local d = Dog('a') d.age = 3", chunkName: "=t") }?.message,
            "t:1: Dog has no writable property 'age'")
    }

    func testScriptsCannotReachOrChangeHostMetatables() throws {
        let state = try makeState()
        XCTAssertEqual(try state.eval("return getmetatable(Dog('a'))"), "Dog")
        XCTAssertNotNil(expectLuaError { try state.execute("setmetatable(Dog('a'), {})", chunkName: "=t") })
        XCTAssertNotNil(expectLuaError { try state.execute("getmetatable(Dog('a')).__index = nil", chunkName: "=t") })
        // Methods still work afterwards.
        XCTAssertEqual(try state.eval("return Dog('Rex'):bark()"), "Rex says woof")
    }

    func testGcReleasesTheSwiftObject() throws {
        let state = try makeState()
        weak var weakDog: Dog?
        do {
            let dog = Dog(name: "Temp")
            weakDog = dog
            try state.setGlobal("temp", .userdata(state.makeUserdata(dog)))
        }
        XCTAssertNotNil(weakDog, "Lua holds the object")
        try state.execute("temp = nil", chunkName: "=t")
        state.collectGarbage()
        XCTAssertNil(weakDog, "collected userdata must release the Swift object")
    }

    func testClosingTheStateReleasesObjectsAndClosures() throws {
        var state: LuaState? = try makeState()
        weak var weakDog: Dog?
        weak var weakCaptured: Cat?
        do {
            let dog = Dog(name: "Kept")
            weakDog = dog
            try state?.setGlobal("kept", .userdata(state!.makeUserdata(dog)))
            let captured = Cat()
            weakCaptured = captured
            try state?.register("holder") { _ in
                _ = captured
                return 0
            }
        }
        XCTAssertNotNil(weakDog)
        XCTAssertNotNil(weakCaptured)
        state = nil
        XCTAssertNil(weakDog, "closing the state releases host objects")
        XCTAssertNil(weakCaptured, "closing the state releases registered closures")
    }

    func testExplicitCloseMakesTheStateInert() throws {
        let state = try makeState()
        let table = try state.newTable()
        state.close()
        XCTAssertTrue(state.isClosed)
        XCTAssertNotNil(expectLuaError { try state.execute("return 1", chunkName: "=t") })
        XCTAssertNotNil(expectLuaError { try state.get(table, "x") })
    }

    func testRegistrationRules() throws {
        let state = try makeState()
        XCTAssertNotNil(expectLuaError { try state.registerType(Dog.self, name: "Dog2", metatable: LuaMetatable()) })
        final class Other {}
        XCTAssertNotNil(expectLuaError { try state.registerType(Other.self, name: "Dog", metatable: LuaMetatable()) })
        XCTAssertNotNil(
            expectLuaError {
                try state.registerType(
                    Other.self, name: "Other", metatable: LuaMetatable(metamethods: ["__gc": { _ in 0 }]))
            })
        final class Unregistered {}
        XCTAssertNotNil(expectLuaError { try state.makeUserdata(Unregistered()) })
    }
}
