// swift-tools-version: 6.1
import PackageDescription

// RealmHost: per-user object databases ("realms") on SQLite, scripted in Lua 5.4.
// Dependencies point one way (downwards). Two towers, Lua's and sync's, joined at the top by small
// adapters, as swift-nio joins its protocol modules:
//
//                  realm-host (RealmHostCLI)          realm-bench  realm-fuzz  RealmCrashWriter
//                 /           |           \
//        RealmServe     RealmHostNet       RealmSyncPostgres    (RealmHostNet: the host's sync
//              \        /         \              |              sessions over the wire)
//               RealmHost         RealmSyncNet    |
//               /       \                  \      |
//         RealmLua       `------------->  RealmSync             (sync without a network)
//          /     \                            |
//   LuaSandbox    `--------------------->  RealmDatabase        (no Lua, no network)
//        |                                  /          \
//   CLuaShim -> CLua                   CSQLite      RealmQuery   (the Realm Query Language)
//                                                       |
//                                                   RealmValues  (Timestamp, ObjectId, Decimal128)
//
// RealmQuery (the Realm Query Language: lexer, parser, syntax tree, comparisons) and RealmValues
// (Timestamp, ObjectId, Decimal128, the stored forms) sit below the database: RealmDatabase
// translates queries to SQL, RealmSync's views evaluate them in Swift, with the same comparisons.
// RealmSync (changesets, clocks, client and server engines, the SQLite sync store, the in-memory
// transport) sits on RealmDatabase and knows no Lua; RealmHost reads the plugins' `sync` tables
// into its `SyncRules` and syncs tenants through its `SyncSessionTransport` seam. RealmSyncNet puts
// the engine on the network (Hummingbird server, swift-websocket client, jwt-kit tokens, zlib) and
// knows no host: RealmHostNet's `NetSyncTransport` is the host's seam over its client, and
// realm-host wires it in. RealmSyncPostgres (the central store on postgres-nio) sits on RealmSync
// beside the wire. Only realm-host and realm-bench build the network and PostgreSQL packages, so
// RealmSync and the Lua tower stay free of them.
//
// RealmTestSupport (the query fuzzer, SplitMix64, the sync workload) sits beside the executables,
// over RealmDatabase and RealmSync; it is no product. SyncStoreConformance (Tests/) holds the sync
// engine's cases that run on both stores and the harness the sync tests share. Every module a target
// imports is listed in its dependencies, and no other (RealmHostCLITests' ModuleImportsTests checks).
let package = Package(
    name: "RealmHost",
    // Synchronization (Mutex, Atomic) needs macOS 15.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RealmDatabase", targets: ["RealmDatabase"]),
        .library(name: "RealmSync", targets: ["RealmSync"]),
        .library(name: "RealmSyncNet", targets: ["RealmSyncNet"]),
        .library(name: "RealmLua", targets: ["RealmLua"]),
        .library(name: "RealmHost", targets: ["RealmHost"]),
        .executable(name: "realm-host", targets: ["RealmHostCLI"]),
        .executable(name: "realm-bench", targets: ["RealmBench"]),
        .executable(name: "realm-fuzz", targets: ["RealmFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // No traits: swift-configuration and full Foundation are not needed (a shorter first build).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // Already under the four above; named for the modules RealmSyncNet imports itself.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The central store on PostgreSQL (issue 18): RealmSyncPostgres only.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // realm-host serve's /metrics (RealmServe only).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // System libraries (Debian: libsqlite3-dev, liblua5.4-dev, libedit-dev).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .systemLibrary(name: "CEdit", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),
        // Deflate for wire frames (Debian: zlib1g-dev).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The heap's bytes in use (glibc's mallinfo2), for realm-bench's memory-per-session row.
        .target(name: "CMallocInfo"),
        // Lua's API macros as functions, the capped allocator, the hook and the error trampoline.
        .target(name: "CLuaShim", dependencies: ["CLua"]),

        // Realm's value types (Timestamp, ObjectId, Decimal128) and their stored forms (SQLiteValue, MixedTag).
        .target(name: "RealmValues"),
        // The Realm Query Language: lexer, parser, syntax tree, and the comparisons both the local
        // queries (as SQL functions) and the sync views (in Swift) evaluate with.
        .target(name: "RealmQuery", dependencies: ["RealmValues"]),
        // The object database: schema, configurations, transactions, objects, queries. No Lua.
        .target(name: "RealmDatabase", dependencies: ["CSQLite", "RealmValues", "RealmQuery"]),
        // Sandboxed Lua states: allocator cap, budgets, safe globals, errors. Knows nothing of realms.
        .target(name: "LuaSandbox", dependencies: ["CLuaShim"]),
        // The bindings of LUA-API.md: realms, objects, results, migrations, subscriptions, plugins in Lua.
        .target(name: "RealmLua", dependencies: ["RealmDatabase", "LuaSandbox"]),
        // Sync without a network: changesets, clocks, the client and server engines, the SQLite store,
        // the in-memory transport of the simulation (docs/SYNC.md).
        .target(name: "RealmSync", dependencies: ["RealmDatabase", "RealmQuery", "RealmValues", "CSQLite"]),
        // The engine on the network: wire frames, tokens, the WebSocket server and client.
        .target(
            name: "RealmSyncNet",
            dependencies: [
                "RealmSync", "RealmDatabase", "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The adapter that joins the two towers: RealmHost's `SyncSessionTransport` (the seam through
        // which tenants' realms sync) over RealmSyncNet's client. realm-host wires it in.
        .target(name: "RealmHostNet", dependencies: ["RealmHost", "RealmSync", "RealmSyncNet"]),
        // The sync store on PostgreSQL (postgres-nio, bridged to the synchronous SyncStore protocol).
        .target(
            name: "RealmSyncPostgres",
            dependencies: [
                "RealmSync", "RealmDatabase",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `realm-host serve`: the app API (functions, objects, watches) and the operators' listener over
        // HTTP and WebSocket, in front of RealmHost's tenants (docs/SERVE.md).
        .target(
            name: "RealmServe",
            dependencies: [
                "RealmHost", "RealmLua", "RealmDatabase", "LuaSandbox",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // Tenants, per-user configurations, plugins, the realm cache.
        .target(name: "RealmHost", dependencies: ["RealmDatabase", "RealmLua", "LuaSandbox", "RealmSync"]),
        .executableTarget(
            name: "RealmHostCLI",
            dependencies: [
                "RealmHost", "RealmLua", "RealmDatabase", "LuaSandbox", "CEdit", "RealmSync", "RealmSyncNet",
                "RealmHostNet", "RealmSyncPostgres", "RealmServe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "RealmBench",
            dependencies: [
                "RealmDatabase", "RealmLua", "RealmHost", "LuaSandbox", "CSQLite", "RealmSync", "RealmSyncNet",
                "RealmSyncPostgres", "CMallocInfo", "RealmServe", "RealmTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // A writer the crash-safety tests kill with SIGKILL at random moments.
        .executableTarget(name: "RealmCrashWriter", dependencies: ["RealmDatabase", "RealmHost"]),
        // Seeded mutation fuzzing of the query language, schema and plugin loaders and JSON import (issue 6).
        .executableTarget(
            name: "RealmFuzz",
            dependencies: [
                "RealmDatabase", "RealmHost", "RealmLua", "LuaSandbox", "CSQLite", "RealmSync", "RealmSyncNet",
                "RealmTestSupport",
            ]
        ),
        // The query-language fuzzer, the seeded generator, random sync samples and the sync simulation's workload,
        // shared by realm-fuzz and the tests.
        .target(name: "RealmTestSupport", dependencies: ["RealmDatabase", "RealmSync"]),
        // The sync engine's store conformance cases (Swift Testing, each case on SQLite and on PostgreSQL)
        // and the harness they share with the XCTest targets below: fixtures, the simulation, the oracle.
        .target(
            name: "SyncStoreConformance",
            dependencies: ["RealmSync", "RealmDatabase", "RealmSyncPostgres", "RealmTestSupport"],
            path: "Tests/SyncStoreConformance"
        ),

        .testTarget(
            name: "RealmDatabaseTests", dependencies: ["RealmDatabase", "RealmQuery", "CSQLite", "RealmTestSupport"]
        ),
        .testTarget(
            name: "RealmSyncTests",
            dependencies: ["RealmSync", "RealmDatabase", "RealmTestSupport", "CSQLite", "SyncStoreConformance"]
        ),
        // On 127.0.0.1 only: a real server, real clients, real SQLite stores.
        .testTarget(
            name: "RealmSyncNetTests",
            dependencies: [
                "RealmSyncNet", "RealmSync", "RealmDatabase", "RealmTestSupport",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Hosts that sync: tenants' flexible-sync realms and the Lua API against a server on 127.0.0.1.
        .testTarget(
            name: "RealmHostSyncTests",
            dependencies: [
                "RealmHost", "RealmHostNet", "RealmSyncNet", "RealmSync", "RealmDatabase", "LuaSandbox",
            ]
        ),
        // What is PostgreSQL's own (started by .ci/postgres): its schema, restarts, the simulation on it,
        // and differential tests against the SQLite store. The shared cases run in SyncStoreConformance.
        .testTarget(
            name: "RealmSyncPostgresTests",
            dependencies: [
                "RealmSyncPostgres", "RealmSync", "RealmDatabase", "RealmTestSupport", "SyncStoreConformance",
            ]
        ),
        .testTarget(name: "LuaSandboxTests", dependencies: ["LuaSandbox"]),
        .testTarget(name: "RealmLuaTests", dependencies: ["RealmLua", "RealmDatabase", "LuaSandbox"]),
        .testTarget(
            name: "RealmHostTests", dependencies: ["RealmHost", "RealmDatabase", "LuaSandbox", "RealmSync"]
        ),
        // Spawns the built realm-host; the sync-server tests talk to it with RealmSyncNet's client (some
        // on a PostgreSQL store: SyncStoreConformance's TestPostgres).
        .testTarget(
            name: "RealmHostCLITests",
            dependencies: [
                "RealmHost", "RealmHostCLI", "RealmSyncNet", "RealmSync", "RealmDatabase", "RealmSyncPostgres",
                "RealmTestSupport", "SyncStoreConformance",
            ]
        ),
        // realm-host serve through a real HTTP client and WebSocket on 127.0.0.1.
        .testTarget(
            name: "RealmServeTests",
            dependencies: [
                "RealmServe", "RealmHost", "RealmDatabase", "RealmTestSupport", "RealmSyncNet", "RealmHostNet",
                "RealmSync",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // realm-bench's own logic (percentiles, the observers' barrier, the runner, the report), no timings.
        .testTarget(name: "RealmBenchTests", dependencies: ["RealmBench"]),
        // Proof under faults, hostile scripts and load (issue 6).
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["RealmHost", "RealmLua", "RealmDatabase", "LuaSandbox", "CSQLite", "RealmTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
