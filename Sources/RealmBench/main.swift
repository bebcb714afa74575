import Foundation

// realm-bench: each workload through RealmDatabase and through raw SQLite, same machine, same
// run, reported as the ratio ours/raw against this round's target. See docs/BENCHMARKS.md.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("realm-bench: " + message + "\n").utf8))
    exit(1)
}

// The clients of `serve_idle_watch`, started by the bench itself as a process of their own.
if CommandLine.arguments.dropFirst().first == WatchClientsProcess.flag {
    WatchClientsProcess.main(Array(CommandLine.arguments.dropFirst(2)))
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch let error as OptionsError {
    if let message = error.message { FileHandle.standardError.write(Data(("realm-bench: " + message + "\n\n").utf8)) }
    print(Options.usage)
    exit(error.message == nil ? 0 : 2)
}

// A fresh folder for this run's files, inside --dir or the system's temporary folder.
let parent = options.dir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
let folder = parent.appendingPathComponent(
    "realm-bench-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))", isDirectory: true)
do {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
} catch {
    fail("cannot create the temporary folder \(folder.path): \(error)")
}

let context = BenchContext(
    folder: folder, scale: options.scale, runs: options.runs, minTime: options.minTime, jobs: options.jobs)
context.log(
    "files in \(folder.path); scale \(options.scale); \(options.runs) runs per side; memory: \(MemoryProbe.method)")
let runner = Runner(context: context)
var measurements = [Measurement]()

for workload in Catalog.workloads where options.only?.contains(workload.name) ?? true {
    var rows = [Measurement]()
    do {
        for comparison in try workload.comparisons(context) {
            do {
                rows.append(try runner.measure(comparison))
            } catch {
                rows.append(.skipped(comparison.name, target: comparison.target, reason: "\(error)"))
            }
        }
    } catch {
        rows.append(.skipped(workload.name, target: workload.target, reason: "\(error)"))
    }
    for row in rows {
        if options.json {
            print(Report.json(row))
            fflush(nil)  // a line per workload as soon as it is measured, even into a pipe
        }
        measurements.append(row)
    }
}

if !options.json { print(Report.table(measurements)) }

if options.keep {
    context.log("kept \(folder.path)")
} else {
    try? FileManager.default.removeItem(at: folder)
}
