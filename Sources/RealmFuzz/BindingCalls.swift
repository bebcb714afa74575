import LuaSandbox

/// The calls the binding target makes: a receiver from `R`, one of its type's members (or a
/// property, an index, an operator), 0–3 arguments from the boundary pool. Each call is Lua source,
/// so that a crashing one is written out as is and replays on a fresh fixture.
enum BindingCalls {
    /// Numbers at and past every edge a conversion can have.
    static let numbers = [
        "math.mininteger", "math.maxinteger", "math.huge", "-math.huge", "0/0", "-0.0", "0", "1", "-1", "2", "3",
        "2^53", "2^63", "-2^63", "1e308", "-1e308", "0.5", "math.maxinteger + 0.0", "math.mininteger + 0.0",
        "4294967296", "-2147483649", "2147483648", "5e-324", "math.maxinteger // 1000", "math.mininteger // 1000",
        "253402300800", "-62135596801", "1e18", "-1e18", "math.mininteger + 1", "math.maxinteger - 1",
    ]
    /// Strings: empty, huge, NUL, invalid UTF-8, and the words the API knows.
    static let strings = [
        "\"\"", "string.rep(\"x\", 1 << 20)", "\"\\0\"", "\"\\255\\254\"", "\"x\"", "\"é\"", "\"All\"", "\"Link\"",
        "\"Emb\"", "\"Nope\"", "\"i > $0\"", "\"TRUEPREDICATE\"", "\"i == $0 SORT(i DESC) LIMIT(1)\"", "\"((\"",
        "\"li.@sum > $0\"", "\"@links.@count > 0\"", "\"all\"", "\"modified\"", "\"error\"",
        "\"2024-01-01T00:00:00Z\"", "\"99999999-01-01T00:00:00Z\"", "\"-99999-12-31T23:59:59Z\"",
        "\"000000000000000000000001\"", "\"3B241101-E2BB-4255-8CAF-4136C566A962\"", "\"1e6144\"", "\"-1E-6176\"",
        "\"NaN\"", "\"-Inf\"", "\"9\" .. string.rep(\"9\", 200)", "\"0x7fffffffffffffff\"", "\"1.5\"",
        "\"fuzz.realm\"", "\"../other/other.realm\"", "\"/etc/passwd\"", "\"a\"",
    ]
    /// Other values: tables (empty, cyclic, deep, with a raising metatable), functions, threads,
    /// values of the API's types made with boundary arguments.
    static let others = [
        "nil", "true", "false", "{}", "{ 1, 2, 3 }", "{ math.maxinteger, math.mininteger }", "{ 0/0, math.huge }",
        "{ { \"i\", false } }", "{ i = math.maxinteger }", "{ _id = math.mininteger }", "{ name = \"x\", where = 3 }",
        "(function() local t = {} t.t = t t[1] = t return t end)()",
        "(function() local t = {} for _ = 1, 300 do t = { t } end return t end)()",
        "setmetatable({}, { __index = function() error(\"index\") end, __len = function() error(\"len\") end })",
        "function() end", "function() error(\"boom\") end", "function(...) return ... end",
        "function() return math.huge end", "coroutine.create(function() end)",
        "ObjectId()", "UUID()", "Date()", "Date(math.maxinteger)", "Date(-math.huge)", "Date(0/0)",
        "Date(math.mininteger, -1)", "Decimal128(\"1e6144\")", "Decimal128(\"NaN\")", "Data(\"\")",
        "Object(\"All\", {})", "Object(\"Link\", { n = 1 })",
    ]

    /// One call: its coverage key (`Type.member`) and its Lua source.
    static func make(_ rng: inout FuzzRandom, world: BindingWorld) -> (String, String) {
        var prefix = ""
        if rng.chance(8) { prefix = "R[\"Realm/live\"]:beginWrite() " }
        if rng.chance(6) {
            let (key, code) = globalCall(&rng, world: world)
            return (key, prefix + code)
        }
        let receiver = rng.pick(world.receivers)
        let (member, expression) = memberCall(&rng, receiver: receiver, world: world)
        let key = "\(receiver.type).\(member)"
        switch receiver.key {
        case "Migration/active":
            return (key, prefix + "return withMigration(function(r) \(expression) end)")
        case "MutableSubscriptionSet/active":
            return (key, prefix + "return withSubscriptions(function(r) \(expression) end)")
        default:
            return (key, prefix + "local r = R[\"\(receiver.key)\"] \(expression)")
        }
    }

    /// `Date(…)`, `Realm.Configuration.defaultConfiguration = …`, `return Realm.Configuration`.
    static func globalCall(_ rng: inout FuzzRandom, world: BindingWorld) -> (String, String) {
        let name = rng.pick(world.globalCallables)
        let dotted = name.split(separator: ".").count > 2
        switch rng.below(10) {
        case 0: return ("global.\(name)", "return \(name)")
        case 1 where dotted: return ("global.\(name)", "\(name) = \(argument(&rng, world: world))")
        default: return ("global.\(name)", "return \(name)(\(arguments(&rng, world: world)))")
        }
    }

    /// A member of the receiver's type (method, field), a property, an index or an operator.
    static func memberCall(
        _ rng: inout FuzzRandom, receiver: (key: String, type: String), world: BindingWorld
    ) -> (String, String) {
        let members = world.members[receiver.type] ?? LuaTypeMembers(methods: [], fields: [])
        let a = argument(&rng, world: world)
        let roll = rng.below(100)
        if roll < 50, let m = members.methods.randomElement(using: &rng) {
            return (m, "return r:\(m)(\(arguments(&rng, world: world)))")
        }
        if roll < 56, let m = members.methods.randomElement(using: &rng) {
            // Called with another value as `self`.
            return (m, "return r.\(m)(\(a)\(arguments(&rng, world: world, leadingComma: true)))")
        }
        if roll < 66, let f = members.fields.randomElement(using: &rng) {
            return (f, rng.chance(80) ? "return r.\(f)" : "r.\(f) = \(a)")
        }
        if roll < 78 {
            let p = rng.pick(world.properties(of: receiver.key) + ["nope", "className", "realm"])
            return ("." + p, rng.chance(50) ? "return r.\(p)" : "r.\(p) = \(a)")
        }
        if roll < 88 {
            return ("[]", rng.chance(50) ? "return r[\(a)]" : "r[\(a)] = \(argument(&rng, world: world))")
        }
        return operatorCall(&rng, argument: a)
    }

    static func operatorCall(_ rng: inout FuzzRandom, argument a: String) -> (String, String) {
        rng.pick([
            ("#", "return #r"), ("tostring", "return tostring(r)"), ("==", "return r == \(a)"),
            ("<", "return r < \(a)"), ("<=", "return \(a) <= r"), ("pairs", "for k, v in pairs(r) do end"),
            ("ipairs", "for i, v in ipairs(r) do end"), ("..", "return r .. \(a)"), ("call", "return r(\(a))"),
            ("unm", "return -r"), ("+", "return r + \(a)"), ("close", "local c <close> = r"),
        ])
    }

    static func arguments(_ rng: inout FuzzRandom, world: BindingWorld, leadingComma: Bool = false) -> String {
        let count = rng.below(4)
        guard count > 0 else { return "" }
        let list = (0..<count).map { _ in argument(&rng, world: world) }.joined(separator: ", ")
        return leadingComma ? ", " + list : list
    }

    /// One argument: a boundary value, a word the API knows, another receiver, a property table.
    static func argument(_ rng: inout FuzzRandom, world: BindingWorld) -> String {
        switch rng.below(100) {
        case 0..<30: return rng.pick(numbers)
        case 30..<50: return rng.pick(strings)
        case 50..<62: return "\"" + rng.pick(world.allProperties) + "\""
        case 62..<77: return rng.pick(others)
        case 77..<90: return "R[\"\(rng.pick(world.receivers).key)\"]"
        default:
            let value = rng.chance(50) ? rng.pick(numbers) : rng.pick(others + strings)
            return "{ \(rng.pick(world.allProperties)) = \(value) }"
        }
    }
}
