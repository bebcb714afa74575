import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua

/// Walks every method and field of every host type the Lua API registers (read from the bindings
/// themselves: `LuaState.registeredTypeNames` and `members(ofType:)`), and the API's globals, with
/// boundary arguments. An input is the body of one call, e.g.
/// `local r = R["List/li"] return r:move(math.mininteger, 0/0)`, run as
/// `return pcall(function() <input> end)` in a runtime holding `BindingFixture`'s receivers.
/// Each call must return or raise a Lua error: a crash or a hang ends the run with the input
/// written out. The fixture is rebuilt every 1 000 inputs (calls may delete or close things).
final class BindingTarget: FuzzTarget {
    let name = "binding"
    let dictionary = [
        "math.mininteger", "math.maxinteger", "math.huge", "-math.huge", "0/0", "-0.0", "R[\"Object/deleted\"]",
        ":", ".", "(", ")", ", ", "nil", "{}", "\"\"",
    ]
    let seeds = ["local r = R[\"Realm/live\"] return r:objects(\"All\"):count()"]
    /// Percent of inputs made by the generator rather than mutated from the corpus.
    let generatedPercent = 97

    let root: URL
    var world: BindingWorld
    /// Generated inputs not to run (known crashes, to explore past them): each pattern is
    /// substrings joined by `&&`, all of which the input contains.
    let avoid: [String]
    /// Calls per `Type.member`, for the coverage report.
    var calls: [String: Int] = [:]
    var skipped = 0

    init(avoid: [String]) throws {
        let base =
            FileManager.default.fileExists(atPath: "/dev/shm")
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        root = base.appendingPathComponent("realm-fuzz-binding-\(getpid())", isDirectory: true)
        self.avoid = avoid
        world = try BindingWorld(root: root, generation: 0)
    }

    deinit {
        world.close()
        try? FileManager.default.removeItem(at: root)
    }

    func maintain(after inputs: Int) {
        world.close()
        do {
            world = try BindingWorld(root: root, generation: inputs)
        } catch {
            FileHandle.standardError.write(Data("realm-fuzz binding: cannot rebuild the fixture: \(error)\n".utf8))
            exit(2)
        }
    }

    func generate(_ rng: inout FuzzRandom) -> [UInt8]? {
        let (key, code) = BindingCalls.make(&rng, world: world)
        calls[key, default: 0] += 1
        return Array(code.utf8)
    }

    func isAvoided(_ code: String) -> Bool {
        avoid.contains { pattern in pattern.components(separatedBy: "&&").allSatisfy(code.contains) }
    }

    func run(_ input: [UInt8]) -> Outcome {
        let body = text(input)
        if !avoid.isEmpty, isAvoided(body) {
            skipped += 1
            return .rejected
        }
        defer { world.runtime.rollbackOpenWrites() }
        do {
            let results = try world.runtime.execute("return pcall(function() \(body)\nend)", chunkName: "=call")
            if case .boolean(true)? = results.first { return .accepted }
            return .rejected
        } catch {
            return isCleanError(error) ? .rejected : .failure("call \(body.debugDescription): \(describe(error))")
        }
    }

    /// Members reached and missed, per type.
    func report() -> String {
        var lines = [String]()
        var total = 0
        var reached = 0
        for (type, members) in world.members.sorted(by: { $0.key < $1.key }) {
            let names = members.methods + members.fields
            let missed = names.filter { (calls["\(type).\($0)"] ?? 0) == 0 }
            total += names.count
            reached += names.count - missed.count
            if !missed.isEmpty { lines.append("  \(type): never called: \(missed.joined(separator: ", "))") }
        }
        let types = world.members.count
        let uncovered = world.typesWithoutReceiver
        lines.insert(
            "realm-fuzz binding coverage: \(types) types, \(reached)/\(total) members called, "
                + "\(world.globalCallables.count) API globals, \(skipped) avoided, "
                + "types without a receiver: \(uncovered.isEmpty ? "none" : uncovered.joined(separator: ", "))",
            at: 0)
        return lines.joined(separator: "\n")
    }
}
