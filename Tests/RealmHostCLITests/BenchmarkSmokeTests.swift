import Foundation
import XCTest

/// `realm-bench` at a tiny scale: every workload runs on both sides, they agree on what they read
/// and wrote (a checksum mismatch is reported in the JSON), and each line has the documented
/// fields. No timing is asserted: figures come from release runs (docs/BENCHMARKS.md).
final class BenchmarkSmokeTests: XCTestCase {
    func testEveryWorkloadRunsAndBothSidesAgree() throws {
        let binary = CLI.binary.deletingLastPathComponent().appendingPathComponent("realm-bench")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            return XCTFail("realm-bench is not built next to realm-host (\(binary.path))")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "realm-bench-smoke-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--json", "--scale", "0.001", "--runs", "1", "--min-time", "0", "--dir", folder.path]
        // The *_postgres rows run on the tests' PostgreSQL when there is one (else it starts its own).
        var environment = ProcessInfo.processInfo.environment
        if let url = environment["REALMHOST_TEST_POSTGRES_URL"], !url.isEmpty {
            environment["REALMHOST_BENCH_POSTGRES_URL"] = url
        }
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let rows = try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
        let names = rows.compactMap { $0["workload"] as? String }
        XCTAssertEqual(
            names,
            [
                "insert_bulk", "append_implicit", "open", "read_all", "query_count/plain", "query_count/indexed",
                "query_list", "lua_insert_bulk", "swift_migration", "lua_migration", "migrate_tenants",
                "migrate_tenants/jobs=1", "sync_insert_bulk", "sync_integrate", "sync_integrate_postgres",
                "sync_bootstrap", "sync_bootstrap_postgres", "sync_download_pending", "sync_collection_edit",
                "sync_observe_latency/p50", "sync_observe_latency/p99", "sync_fanout/p99", "sync_catchup",
                "sync_idle_session", "serve_read_call", "serve_read_call/p99", "serve_write_call",
                "serve_watch_latency/p50",
                "serve_watch_latency/p99", "serve_idle_watch",
            ])
        for row in rows {
            let name = row["workload"] as? String ?? "?"
            XCTAssertNil(row["mismatch"], "\(name): both sides must read and write the same data")
            XCTAssertNil(row["skipped"], "\(name) was skipped")
            for key in ["ours_s", "baseline_s", "ratio", "peak_rss_mb", "target"] {
                XCTAssertNotNil(row[key] as? Double, "\(name): \(key)")
            }
            XCTAssertNotNil(row["baseline"] as? String, name)
        }
        // The memory row's figures are kilobytes and say so; a row in seconds names no unit.
        let idle = try XCTUnwrap(rows.first { $0["workload"] as? String == "sync_idle_session" })
        XCTAssertEqual(idle["unit"] as? String, "KB")
        XCTAssertEqual(idle["target_kb"] as? Double, 100)
        let catchup = try XCTUnwrap(rows.first { $0["workload"] as? String == "sync_catchup" })
        XCTAssertNil(catchup["unit"])
        XCTAssertEqual(catchup["target_s"] as? Double, 2)
    }
}
