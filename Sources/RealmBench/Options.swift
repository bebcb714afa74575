import Foundation

/// The command line, parsed by hand: a handful of flags does not need a parser dependency.
struct Options {
    var json = false
    var only: [String]?
    var scale = 1.0
    var runs = 5
    var minTime = 5.0
    var dir: String?
    var keep = false
    /// Tenants `migrate_tenants` migrates at once (nil: one per core, as `realm-host migrate`).
    var jobs: Int?

    static let usage = """
        usage: realm-bench [--json] [--only NAME[,NAME…]] [--scale F] [--runs N] [--min-time S] [--dir PATH] [--keep]
               [--jobs N]

        Runs each workload through RealmDatabase and the same work through raw SQLite C calls,
        and reports the time ratio ours/raw against this round's target.

          --json         one JSON object per workload row on stdout (progress goes to stderr)
          --only NAMES   comma-separated workloads: \(Catalog.names.joined(separator: ", "))
                         (a row name such as query_count/indexed selects that row's workload)
          --scale F      multiply every count by F (e.g. 0.1 for a quick run)
          --runs N       measured runs per side at least, best counts (default 5; plus one warm-up)
          --min-time S   more runs, up to 50, until each side has run S seconds in all (default 5):
                         short workloads get more tries at their best time on a noisy machine
          --dir PATH     where to put the temporary folder (default: the system temp folder)
          --keep         keep the temporary folder (default: removed afterwards)
          --jobs N       tenants migrate_tenants migrates at once (default: one per core); its
                         migrate_tenants/jobs=1 row always runs them one at a time
        """

    /// Parses arguments (without the program name). Throws a message for the user on bad input.
    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let v = rest.popFirst(), !v.hasPrefix("--") else { throw OptionsError("\(flag) needs a value") }
            return v
        }
        while let arg = rest.popFirst() {
            // Accept --flag=value as well as --flag value.
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                rest.insert(String(arg[arg.index(after: eq)...]), at: rest.startIndex)
                rest.insert(String(arg[..<eq]), at: rest.startIndex)
                continue
            }
            switch arg {
            case "--json": json = true
            case "--keep": keep = true
            case "--only":
                let names = try value(arg).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                for name in names where !Catalog.names.contains(Options.workloadName(name)) {
                    throw OptionsError("unknown workload '\(name)' (known: \(Catalog.names.joined(separator: ", ")))")
                }
                only = names.map(Options.workloadName)
            case "--scale":
                guard let f = Double(try value(arg)), f > 0, f.isFinite else {
                    throw OptionsError("--scale needs a positive number")
                }
                scale = f
            case "--runs":
                guard let n = Int(try value(arg)), n >= 1 else {
                    throw OptionsError("--runs needs a whole number ≥ 1")
                }
                runs = n
            case "--min-time":
                guard let t = Double(try value(arg)), t >= 0, t.isFinite else {
                    throw OptionsError("--min-time needs a number of seconds ≥ 0")
                }
                minTime = t
            case "--dir": dir = try value(arg)
            case "--jobs":
                guard let n = Int(try value(arg)), n >= 1 else { throw OptionsError("--jobs needs a whole number ≥ 1") }
                jobs = n
            case "-h", "--help": throw OptionsError(nil)
            default: throw OptionsError("unknown argument '\(arg)'")
            }
        }
    }

    /// `query_count/indexed` → `query_count`.
    static func workloadName(_ name: String) -> String {
        String(name.split(separator: "/", maxSplits: 1).first ?? Substring(name))
    }
}

/// A bad command line: the message (nil for `--help`) and then the usage are printed.
struct OptionsError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}
