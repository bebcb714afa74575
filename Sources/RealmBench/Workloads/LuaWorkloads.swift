import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua

/// `lua_insert_bulk`: a Lua loop appending 100,000 dogs in one write, against the same appends
/// through the Swift API (target: at most 3×). Both sides append the same pre-generated values;
/// the Lua side reads them from a Lua table built before timing.
struct LuaInsertBulk: Workload {
    let name = "lua_insert_bulk"
    let target = 3.0

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let n = context.scaled(100_000)
        let values = DogValues.batch(n)
        return [
            Comparison(
                name: name, target: target, baseline: "Swift API", size: n, warmUpSize: n,
                ours: { size in
                    let url = try Fixtures.freshEmptyRealm(context, name)
                    let runtime = try RealmLuaRuntime(
                        userName: "bench", folder: context.folder,
                        defaultConfiguration: Fixtures.configuration(url, schema: BenchSchema.schema()))
                    let realm = try Realm(configuration: Fixtures.configuration(url, schema: BenchSchema.schema()))
                    try runtime.bind(realm)
                    // The values as Lua tables, built before timing (as the Swift side's are).
                    let load = try runtime.state.load(
                        """
                        local names, ages, breeds, weights = ...
                        local dogs = {}
                        for i = 1, #names do
                          dogs[i] = { name = names[i], age = ages[i], breed = breeds[i] or nil, weight = weights[i] }
                        end
                        return function()
                          realm:write(function()
                            local results = realm:objects("Dog")
                            for i = 1, #dogs do results:append(dogs[i]) end
                          end)
                        end
                        """, chunkName: "=lua_insert_bulk")
                    let slice = values.prefix(size)
                    let columns: [LuaValue] = [
                        .plainTable(LuaTable(array: slice.map { .string($0.name) })),
                        .plainTable(LuaTable(array: slice.map { .integer($0.age) })),
                        .plainTable(LuaTable(array: slice.map { $0.breed.map { .string($0) } ?? .boolean(false) })),
                        .plainTable(LuaTable(array: slice.map { .number($0.weight) })),
                    ]
                    guard case .function(let insert)? = try runtime.state.call(load, columns).first else {
                        throw WorkloadSkipped(reason: "the Lua chunk returned no function")
                    }
                    return PreparedRun(
                        run: {
                            try runtime.call(insert)
                            return Int64(size)
                        }, check: { _ in Int64(try realm.objects("Dog").countObjects()) })
                },
                raw: { size in
                    let realm = try Realm(
                        configuration: Fixtures.configuration(
                            try Fixtures.freshEmptyRealm(context, name), schema: BenchSchema.schema()))
                    return PreparedRun(
                        run: {
                            try realm.write {
                                let results = try realm.objects("Dog")
                                for dog in values.prefix(size) { try results.append(dog.realmValue) }
                            }
                            return Int64(size)
                        }, check: { _ in Int64(try realm.objects("Dog").countObjects()) })
                })
        ]
    }
}
