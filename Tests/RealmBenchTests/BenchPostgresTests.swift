import Foundation
import XCTest

@testable import RealmBench

/// Where `sync_integrate_postgres` finds its server: a URL it cannot use skips the row naming why,
/// instead of failing the benchmark run.
final class BenchPostgresTests: XCTestCase {
    func testAnUnusableServerURLSkipsTheRowNamingTheVariable() throws {
        setenv(BenchPostgres.environmentVariable, "mysql://nobody@127.0.0.1/db", 1)
        defer { unsetenv(BenchPostgres.environmentVariable) }
        let context = BenchContext(folder: FileManager.default.temporaryDirectory, scale: 0.01, runs: 1, minTime: 0)
        XCTAssertThrowsError(try BenchPostgres(context)) { error in
            XCTAssertTrue(error is WorkloadSkipped, "\(error)")
            XCTAssertTrue("\(error)".contains("$REALMHOST_BENCH_POSTGRES_URL"), "\(error)")
            XCTAssertTrue("\(error)".contains("not a postgres://"), "\(error)")
        }
    }

    func testTheWorkloadIsInTheCatalogAfterSyncIntegrate() throws {
        let names = Catalog.names
        let sqlite = try XCTUnwrap(names.firstIndex(of: "sync_integrate"))
        XCTAssertEqual(names.firstIndex(of: "sync_integrate_postgres"), sqlite + 1)
    }
}
