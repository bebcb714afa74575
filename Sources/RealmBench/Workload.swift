import Foundation

/// One side of a comparison, set up for one run: `run` is timed; `check` runs afterwards (untimed)
/// and returns the checksum that must equal the other side's (by default, what `run` returned).
struct PreparedRun {
    let run: () throws -> Int64
    var check: (Int64) throws -> Int64 = { $0 }
    /// For a run that measures its own figure (a percentile of the latencies it timed, memory per
    /// session), read after it and reported instead of its wall time. nil: the run's wall time.
    var figure: (() throws -> RunFigure)? = nil
    /// Runs last, also after a failed run: stops what the run left running (servers, connections).
    var release: () -> Void = {}
}

/// The figure a run measured itself, and how many events it timed: the run's CPU time is reported
/// per event, so the CPU ratio still compares the two sides' cost of one event.
struct RunFigure {
    let value: Double
    let events: Int
}

/// What a row's figures count: seconds (times and latencies) or kilobytes (memory per session).
enum FigureUnit {
    case seconds
    case kilobytes

    /// The unit after a number (`3 s`, `100 KB`).
    var symbol: String { self == .seconds ? "s" : "KB" }

    /// A figure as the table shows it: seconds to 0.1 ms, kilobytes to 0.1 KB.
    func format(_ value: Double) -> String {
        self == .seconds ? Report.number(value, 4) : Report.number(value, 1) + " KB"
    }
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
    /// The largest figure ours may have (seconds, or kilobytes for a memory row), for a workload whose
    /// target is also absolute (nil: none).
    var maxFigure: Double? = nil
    var unit = FigureUnit.seconds
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
        SwiftMigration(), LuaMigration(), MigrateTenants(), SyncInsertBulk(), SyncIntegrate(), SyncIntegratePostgres(),
        SyncBootstrap(), SyncBootstrapPostgres(), SyncDownloadPending(), SyncCollectionEdit(),
        SyncObserveLatency(), SyncFanout(), SyncCatchup(), SyncIdleSession(), ServeReadCall(), ServeWriteCall(),
        ServeWatchLatency(), ServeIdleWatch(),
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
