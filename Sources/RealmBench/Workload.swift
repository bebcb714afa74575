import Foundation

/// One side of a comparison, set up for one run: `run` is timed; `check` runs afterwards (untimed)
/// and returns the checksum that must equal the other side's (by default, what `run` returned).
struct PreparedRun {
    let run: () throws -> Int64
    var check: (Int64) throws -> Int64 = { $0 }
}

/// Builds one side's run for a given size (the number of objects, opens, …). Everything done here
/// (creating files, opening connections) is outside the timing.
typealias SideBuilder = (_ size: Int) throws -> PreparedRun

/// A workload done twice, through RealmDatabase ("ours") and through the baseline, and compared.
struct Comparison {
    /// The row name (`insert_bulk`, `query_count/indexed`).
    let name: String
    /// The ratio ours/baseline this round aims for at most.
    let target: Double
    var baseline = "raw SQLite"
    /// The measured size.
    let size: Int
    /// The warm-up size (nil: no warm-up), run once per side before the measured runs.
    let warmUpSize: Int?
    /// The most seconds ours may take, for a workload whose target is also absolute (nil: none).
    var maxSeconds: Double? = nil
    let ours: SideBuilder
    let raw: SideBuilder
}

/// A named workload: turns the context (scale, folder, shared fixtures) into its comparisons.
protocol Workload: Sendable {
    /// The name `--only` selects, and the prefix of its rows' names.
    var name: String { get }
    /// The target ratio of its rows, for the skipped row when setting up fails.
    var target: Double { get }
    func comparisons(_ context: BenchContext) throws -> [Comparison]
}

/// Every workload, in the order they run and are reported.
enum Catalog {
    static let workloads: [any Workload] = [
        InsertBulk(), AppendImplicit(), Open(), ReadAll(), QueryCount(), QueryList(), LuaInsertBulk(),
        SwiftMigration(), LuaMigration(), MigrateTenants(), SyncInsertBulk(), SyncIntegrate(), SyncBootstrap(),
    ]
    static var names: [String] { workloads.map(\.name) }
}

/// Thrown by a workload whose precondition does not hold (a query the language cannot parse yet):
/// the run goes on and the workload gets a "skipped" row.
struct WorkloadSkipped: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// What the run knows and shares: options, the temporary folder and fixtures built once.
final class BenchContext {
    let folder: URL
    let scale: Double
    let runs: Int
    /// Measured seconds each side should reach in all; short workloads run more rounds for it.
    let minTime: Double
    /// Tenants migrated at once by `migrate_tenants` (nil: one per core).
    let jobs: Int?
    private var fileCounter = 0
    /// Fixture files by description, built on first use and shared by the workloads that read them.
    var fixtures: [String: URL] = [:]

    init(folder: URL, scale: Double, runs: Int, minTime: Double, jobs: Int? = nil) {
        self.folder = folder
        self.jobs = jobs
        self.scale = scale
        self.runs = runs
        self.minTime = minTime
    }

    /// A count scaled by `--scale`, never below `minimum`.
    func scaled(_ n: Int, minimum: Int = 1) -> Int { max(minimum, Int((Double(n) * scale).rounded())) }

    /// A path for a new file in the run's folder.
    func freshURL(_ stem: String) -> URL {
        fileCounter += 1
        return folder.appendingPathComponent("\(stem)-\(fileCounter).realm")
    }

    /// Progress goes to stderr, so `--json` output stays one object per line on stdout.
    func log(_ message: String) {
        FileHandle.standardError.write(Data(("realm-bench: " + message + "\n").utf8))
    }
}
