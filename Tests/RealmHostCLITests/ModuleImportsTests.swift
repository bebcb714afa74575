import Foundation
import XCTest

/// The module graph as Package.swift declares it is the graph the code has: every module a file
/// imports is one its target lists (SwiftPM lets a target import what a dependency brings along,
/// which is how a lower module comes to lean on an upper one unseen), every module a library target
/// lists is imported, and the two towers stay apart below their adapters (docs/ARCHITECTURE.md).
final class ModuleImportsTests: XCTestCase {
    /// Modules of the toolchain and the system, which no target lists.
    private static let toolchain: Set<String> = [
        "Foundation", "FoundationEssentials", "Dispatch", "Synchronization", "XCTest", "Testing", "Glibc", "Musl",
        "Darwin",
    ]

    /// What each lower module must never import, whatever its target lists: the values know nothing
    /// above them, the query language no database and no SQLite, the database no Lua and no sync,
    /// the sync engine no Lua, no host and no network, the wire and the PostgreSQL store no host and
    /// no Lua.
    private static let forbidden: [String: Set<String>] = [
        "RealmValues": ["RealmQuery", "RealmDatabase", "CSQLite", "RealmSync", "RealmLua", "LuaSandbox"],
        "RealmQuery": ["RealmDatabase", "CSQLite", "RealmSync", "RealmLua", "LuaSandbox", "RealmHost"],
        "RealmDatabase": ["RealmLua", "LuaSandbox", "RealmSync", "RealmHost", "RealmSyncNet", "RealmServe"],
        "LuaSandbox": ["RealmDatabase", "RealmSync", "RealmHost"],
        "RealmSync": [
            "RealmLua", "LuaSandbox", "RealmHost", "RealmSyncNet", "RealmServe", "Hummingbird", "NIOCore",
            "PostgresNIO",
        ],
        "RealmSyncNet": ["RealmHost", "RealmLua", "LuaSandbox", "RealmServe", "RealmSyncPostgres"],
        "RealmSyncPostgres": ["RealmHost", "RealmLua", "LuaSandbox", "RealmSyncNet", "RealmServe"],
        "RealmHost": ["RealmSyncNet", "RealmServe", "RealmSyncPostgres", "Hummingbird", "NIOCore"],
    ]

    func testEveryImportIsDeclaredAndEveryLowerModuleKeepsToItsLayer() throws {
        let targets = try Self.manifestTargets()
        XCTAssertGreaterThan(targets.count, 10, "the manifest lists the package's targets")
        var problems: [String] = []
        for target in targets where target.isSwift {
            let imports = try Self.imports(under: CLI.repository.appendingPathComponent(target.path))
            for module in imports.subtracting(target.dependencies).subtracting(Self.toolchain)
            where module != target.name {
                problems.append("\(target.name) imports \(module), which its target in Package.swift does not list")
            }
            for module in imports.intersection(Self.forbidden[target.name] ?? []) {
                problems.append("\(target.name) imports \(module), a module above its layer")
            }
            guard target.kind == "regular" else { continue }
            for module in target.dependencies.subtracting(imports) {
                problems.append("\(target.name) lists \(module) in Package.swift but imports it nowhere")
            }
        }
        XCTAssertEqual(problems, [], problems.joined(separator: "\n"))
    }

    private struct Target {
        let name: String
        let kind: String
        let path: String
        let dependencies: Set<String>
        /// C and system-library targets have no Swift imports to check.
        let isSwift: Bool
    }

    /// The targets as SwiftPM reads Package.swift (`swift package dump-package`). Its own scratch
    /// path: `swift test` holds the lock of `.build` while the tests run.
    private static func manifestTargets() throws -> [Target] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-package-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        process.arguments = ["swift", "package", "--scratch-path", scratch.path, "dump-package"]
        process.currentDirectoryURL = CLI.repository
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "swift package dump-package")
        let manifest = try JSONDecoder().decode(Manifest.self, from: data)
        return manifest.targets.map { target in
            let folder = target.type == "test" ? "Tests" : "Sources"
            let path = target.path ?? "\(folder)/\(target.name)"
            let hasSwift =
                FileManager.default.enumerator(atPath: CLI.repository.appendingPathComponent(path).path)?
                .contains { ($0 as? String)?.hasSuffix(".swift") == true } ?? false
            return Target(
                name: target.name, kind: target.type, path: path,
                dependencies: Set(target.dependencies.compactMap(\.name)),
                isSwift: target.type != "system" && hasSwift)
        }
    }

    /// The modules imported by the Swift files under `folder` (`import X`, `@testable import X`,
    /// `import struct X.Y`).
    private static func imports(under folder: URL) throws -> Set<String> {
        var modules: Set<String> = []
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                var words = line.split(separator: " ").map(String.init)
                while let first = words.first,
                    first.hasPrefix("@") || ["public", "package", "internal"].contains(first)
                {
                    words.removeFirst()
                }
                guard words.first == "import", words.count >= 2 else { continue }
                let path =
                    words.count >= 3 && ["struct", "class", "enum", "func", "protocol"].contains(words[1])
                    ? words[2] : words[1]
                modules.insert(String(path.split(separator: ".")[0]))
            }
        }
        return modules
    }

    /// The parts of `swift package dump-package`'s JSON read here.
    private struct Manifest: Decodable {
        struct Target: Decodable {
            let name: String
            let type: String
            let path: String?
            let dependencies: [Dependency]
        }
        /// `{"byName": ["X", null]}`, `{"target": ["X", null]}` or `{"product": ["X", "package", …]}`.
        struct Dependency: Decodable {
            let name: String?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                let key = container.allKeys.first
                var values = try key.map { try container.nestedUnkeyedContainer(forKey: $0) }
                name = try values?.decodeIfPresent(String.self)
            }

            struct Key: CodingKey {
                let stringValue: String
                var intValue: Int? { nil }
                init?(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
        }
        let targets: [Target]
    }
}
