import Foundation
import RealmDatabase
import RealmHost
import XCTest

final class ExportImportTests: XCTestCase {
    func testEveryTypeRoundTripsExactly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "realmhost-json-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plugins = folder.appendingPathComponent("plugins/all")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        try """
        return { name = "all", schemaVersion = 1, schema = {
          { name = "All", primaryKey = "id", properties = {
              id = "objectId", b = "bool", i = "int", f = "float", d = "double", s = "string", data = "data",
              date = "date",
              dec = "decimal128", u = "uuid", m = "mixed", mlink = "mixed", oi = "int?", os = "string?",
              ints = "int[]", strs = "string<>", map = "double{}", link = "Other?", links = "Other[]", addr = "Addr?",
              addrs = "Addr[]", mixes = "mixed[]" } },
          { name = "Other", properties = { name = "string", back = "All?" } },
          { name = "Addr", embedded = true, properties = { city = "string", other = "Other?" } },
        } }
        """.write(to: plugins.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        let host = try TenantHost(
            options: HostOptions(dataFolder: folder.appendingPathComponent("data"), pluginFolders: [plugins]))
        try host.withTenant("alice") { t in
            try t.runtime.execute(
                """
                realm:write(function()
                  local o1 = realm:create("Other", { name = "one" })
                  local o2 = realm:create("Other", { name = "two" })
                  local a = realm:create("All", {
                    b = true, i = -9007199254740993, f = 1.25, d = 0.1, s = "héllo\\n\\"x\\"",
                    data = Data("\\0\\1\\255"),
                    date = Date(-1, -5), dec = Decimal128("123.4500"), u = UUID("3B241101-E2BB-4255-8CAF-4136C566A962"),
                    m = 3.5, mlink = o2, oi = nil, os = "set",
                    ints = { 3, 1, 3 }, strs = { "a", "b" }, map = { x = 1.5, y = -0.0 },
                    link = o1, links = { o2, o1, o2 }, addr = { city = "Paris", other = o1 },
                    addrs = { { city = "A" }, { city = "B", other = o2 } },
                    mixes = { 1, "two", true, Decimal128("3"), o1 } })
                  o1.back = a
                end)
                """, chunkName: "=seed")
        }
        let dump = try host.exportJSON(user: "alice")
        try host.importJSON(user: "bob", data: dump)
        let second = try host.exportJSON(user: "bob")
        // The same content, up to renumbered keys: compare the dumps with keys mapped by order.
        let a = try JSONSerialization.jsonObject(with: dump) as! [String: Any]
        let b = try JSONSerialization.jsonObject(with: second) as! [String: Any]
        XCTAssertEqual(
            NSDictionary(dictionary: a["schema"] as! [String: Any]),
            NSDictionary(dictionary: b["schema"] as! [String: Any]))
        XCTAssertEqual(
            String(
                decoding: try JSONSerialization.data(withJSONObject: a["objects"]!, options: .sortedKeys), as: UTF8.self
            ),
            String(
                decoding: try JSONSerialization.data(withJSONObject: b["objects"]!, options: .sortedKeys), as: UTF8.self
            ))
        try host.withTenant("bob") { t in
            let r = try t.runtime.execute(
                """
                local a = realm:objects("All")[1]
                return a.i, a.d, a.s, tostring(a.date), a.date.nanoseconds, tostring(a.dec), #a.links, a.links[1].name,
                       a.addr.other.name, a.mlink.name, a.link.back.s, tostring(a.data) == "\\0\\1\\255",
                       a.map.y, -- -0.0 is stored as 0 (SQLite REAL)
                       #realm:objects("Other")
                """, chunkName: "=check")
            XCTAssertEqual(
                r.map(\.description),
                [
                    "-9007199254740993", "0.1", "\"héllo\\n\\\"x\\\"\"", "\"1969-12-31T23:59:58.999999995Z\"", "-5",
                    "\"123.45\"", "3", "\"two\"", "\"one\"", "\"two\"", "\"héllo\\n\\\"x\\\"\"", "true", "0.0", "2",
                ])
        }
        XCTAssertThrowsError(try host.importJSON(user: "bob", data: dump)) {
            XCTAssertTrue("\($0)".contains("needs an empty realm"), "\($0)")
        }
        XCTAssertThrowsError(try host.importJSON(user: "carol", data: Data("{\"format\": 1}".utf8))) {
            XCTAssertTrue("\($0)".contains("Invalid export file"), "\($0)")
        }
    }
}
