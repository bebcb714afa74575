import Foundation
import LuaSandbox
import RealmDatabase

/// `Realm.Configuration`: a value (reading `defaultConfiguration` or `realm.configuration` gives a
/// copy; assigning `Realm.Configuration.defaultConfiguration` changes what `Realm()` opens), and
/// `user:flexibleSyncConfiguration{ initialSubscriptions = …, rerunOnOpen = … }`.
extension RealmLuaRuntime {
    func registerConfiguration() throws {
        try registerConfigurationType()
        try registerUser()
        try installRealmGlobal()
    }

    private func registerConfigurationType() throws {
        unowned let runtime = self
        var t = BindingTable()
        for (name, read) in configurationReaders {
            t.field(name) { ctx in try ctx.returning(read(try ctx.userdata(1, as: ConfigurationBox.self))) }
        }
        try register(
            ConfigurationBox.self, name: "Configuration", t,
            newIndex: { ctx in
                let box = try ctx.userdata(1, as: ConfigurationBox.self)
                try runtime.setConfigurationField(box, try ctx.string(2), ctx.argument(3))
                return 0
            },
            metamethods: [
                "__tostring": { ctx in
                    let c = try ctx.userdata(1, as: ConfigurationBox.self).configuration
                    let place =
                        c.inMemoryIdentifier.map { "inMemoryIdentifier = \($0)" }
                        ?? "fileURL = \(c.fileURL?.lastPathComponent ?? "nil")"
                    let text = "Realm.Configuration(\(place), schemaVersion = \(c.schemaVersion))"
                    return try ctx.returning(.string(text))
                }
            ])
    }

    private func registerUser() throws {
        unowned let runtime = self
        var t = BindingTable()
        t.method("flexibleSyncConfiguration", returns: .plain("Configuration")) {
            try runtime.flexibleSyncConfiguration($0)
        }
        t.field("name") { ctx in try ctx.returning(.string(try ctx.userdata(1, as: UserBox.self).name)) }
        try register(
            UserBox.self, name: "User", t,
            metamethods: [
                "__tostring": { ctx in
                    try ctx.returning(.string("User(\(try ctx.userdata(1, as: UserBox.self).name))"))
                }
            ])
        try state.setGlobal("user", try box(UserBox(userName)))
    }

    /// `user:flexibleSyncConfiguration{ initialSubscriptions = function(subs) … end, rerunOnOpen = …,
    /// errorHandler = function(err) … end, clientResetMode = … }`: the default configuration on the
    /// file `<user>.sync.realm` (as Realm keeps a flexible-sync realm apart from the default one).
    private func flexibleSyncConfiguration(_ ctx: LuaCallContext) throws -> Int {
        let options = try ctx.optionalTable(2).map { try state.copy($0) } ?? LuaTable()
        let box = userSyncConfiguration()
        for key in ["initialSubscriptions", "errorHandler"] {
            if case .function = options[.string(key)] {
                try setConfigurationField(box, key, options[.string(key)])
            } else if !options[.string(key)].isNil {
                throw ctx.argumentError(2, "'\(key)' must be a function")
            }
        }
        let resetMode = options["clientResetMode"]
        if !resetMode.isNil { try setConfigurationField(box, "clientResetMode", resetMode) }
        box.configuration.rerunOnOpen = options["rerunOnOpen"].boolValue ?? false
        return try push(ctx, box)
    }

    /// The user's flexible-sync configuration: the default one (the plugins' schema, migrations and
    /// initial subscriptions) on `<user>.sync.realm`, apart from the local realm.
    func userSyncConfiguration() -> ConfigurationBox {
        let box = defaultConfiguration.copy()
        box.isFlexibleSync = true
        box.configuration.fileURL = folder.appendingPathComponent("\(userName).sync.realm")
        return box
    }

    /// The user's synced realm, as `Realm(user:flexibleSyncConfiguration{})` opens it from a script:
    /// through the sync provider, its session started (without waiting for the server); nil when
    /// the runtime has no provider (the host has no sync server).
    public func openUserSyncedRealm() throws -> Realm? {
        guard syncProvider != nil else { return nil }
        return try open(userSyncConfiguration())
    }

    /// The `Realm` global (`Realm()`, `Realm(config)`) and `Realm.Configuration`.
    private func installRealmGlobal() throws {
        // Realm and Realm.Configuration are tables with metatables, built in Lua from these functions.
        let openRealm = try state.makeFunction { [unowned self] ctx in
            let box: ConfigurationBox
            if ctx.isNil(1) { box = defaultConfiguration } else { box = try ctx.userdata(1, as: ConfigurationBox.self) }
            return try push(ctx, try open(box))
        }
        let getDefault = try state.makeFunction { [unowned self] ctx in try push(ctx, defaultConfiguration.copy()) }
        let setDefault = try state.makeFunction { [unowned self] ctx in
            defaultConfiguration = try ctx.userdata(1, as: ConfigurationBox.self).copy()
            return 0
        }
        let newConfiguration = try state.makeFunction { [unowned self] ctx in
            let box = defaultConfiguration.copy()
            if let fields = try ctx.optionalTable(1) {
                // Only the keys are needed, but the copy must not refuse nested values:
                // `Realm.Configuration{ schema = {…} }` failed with "nested too deeply" (found by ReliabilityTests).
                let t = try state.copy(fields)
                for (k, _) in t.hash {
                    guard let key = k.stringValue else {
                        throw ctx.argumentError(1, "configuration fields must be named")
                    }
                    try setConfigurationField(box, key, try state.get(fields, k))
                }
            }
            return try push(ctx, box)
        }
        _ = try state.call(
            try state.load(
                """
                local open, getDefault, setDefault, newConfiguration = ...
                local Configuration = setmetatable({}, {
                  __index = function(_, k) if k == "defaultConfiguration" then return getDefault() end end,
                  __newindex = function(_, k, v)
                    if k ~= "defaultConfiguration" then
                      error("Realm.Configuration has no field '" .. tostring(k) .. "' to set", 2)
                    end
                    setDefault(v)
                  end,
                  __call = function(_, fields) return newConfiguration(fields) end,
                  __metatable = "Realm.Configuration",
                })
                Realm = setmetatable({ Configuration = Configuration }, {
                  __call = function(_, config) return open(config) end,
                  __metatable = "Realm",
                })
                """, chunkName: "=realm-api"),
            [.function(openRealm), .function(getDefault), .function(setDefault), .function(newConfiguration)])
    }

    private func relativePath(_ url: URL?) -> LuaValue {
        guard let url else { return .nil }
        let root = folder.standardizedFileURL.path + "/"
        let path = url.standardizedFileURL.path
        return .string(path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path)
    }

    /// The fields a configuration shows, each read from a configuration as Lua sees it.
    var configurationReaders: [String: (ConfigurationBox) -> LuaValue] {
        unowned let runtime = self
        return [
            "fileURL": { runtime.relativePath($0.configuration.fileURL) },
            "inMemoryIdentifier": { $0.configuration.inMemoryIdentifier.map { .string($0) } ?? .nil },
            "schemaVersion": { .integer(Int64(clamping: $0.configuration.schemaVersion)) },
            "schema": { box in
                box.schemaTable.isNil ? (box.configuration.schema.map(runtime.schemaTable) ?? .nil) : box.schemaTable
            },
            "objectTypes": {
                $0.configuration.objectTypes.map { .plainTable(LuaTable(array: $0.map { .string($0) })) } ?? .nil
            },
            "migrationBlock": { $0.migrationBlock.map { .function($0) } ?? .nil },
            "initialSubscriptions": { $0.initialSubscriptions.map { .function($0) } ?? .nil },
            "errorHandler": { $0.errorHandler.map { .function($0) } ?? .nil },
            "clientResetMode": { .string($0.clientResetMode) },
            "rerunOnOpen": { .boolean($0.configuration.rerunOnOpen) },
            "deleteRealmIfMigrationNeeded": { .boolean($0.configuration.deleteRealmIfMigrationNeeded) },
            "readOnly": { .boolean($0.configuration.readOnly) },
            "maximumNumberOfActiveVersions": { box in
                box.configuration.maximumNumberOfActiveVersions.map { .integer(Int64(clamping: $0)) } ?? .nil
            },
        ]
    }

    func setConfigurationField(_ box: ConfigurationBox, _ key: String, _ value: LuaValue) throws {
        func bool() throws -> Bool {
            guard let b = value.boolValue else {
                throw luaError("Realm.Configuration.\(key) must be a boolean, got \(value.typeName)")
            }
            return b
        }
        switch key {
        case "fileURL":
            guard let path = value.stringValue, !path.isEmpty else {
                if value.isNil {
                    box.configuration.fileURL = nil
                    return
                }
                throw luaError("Realm.Configuration.fileURL must be a file name or path, got \(value.typeName)")
            }
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
            try fileAccessPolicy(url)
            box.configuration.fileURL = url
        case "inMemoryIdentifier":
            if value.isNil {
                box.configuration.inMemoryIdentifier = nil
                return
            }
            guard let id = value.stringValue, !id.isEmpty else {
                throw luaError("Realm.Configuration.inMemoryIdentifier must be a non-empty string")
            }
            box.configuration.inMemoryIdentifier = "\(userName)/\(id)"
        case "schemaVersion":
            guard let v = value.integerValue, v >= 0 else {
                throw luaError("Realm.Configuration.schemaVersion must be a non-negative integer, got \(value)")
            }
            box.configuration.schemaVersion = UInt64(v)
        case "schema":
            if value.isNil {
                box.configuration.schema = nil
                box.schemaTable = .nil
                return
            }
            box.configuration.schema = try schema(from: value, where: "Realm.Configuration.schema")
            box.schemaTable = value
        case "objectTypes":
            if value.isNil {
                box.configuration.objectTypes = nil
                return
            }
            guard case .table(let ref) = value else {
                throw luaError("Realm.Configuration.objectTypes must be a list of class names")
            }
            box.configuration.objectTypes = try state.copy(ref).array.map {
                guard let s = $0.stringValue else {
                    throw luaError("Realm.Configuration.objectTypes must hold class names")
                }
                return s
            }
        case "migrationBlock":
            if value.isNil {
                box.migrationBlock = nil
                box.configuration.migrationBlock = nil
                return
            }
            guard case .function(let f) = value else {
                throw luaError("Realm.Configuration.migrationBlock must be a function(migration, oldSchemaVersion)")
            }
            box.migrationBlock = f
        case "initialSubscriptions":
            if value.isNil {
                box.initialSubscriptions = nil
                box.configuration.initialSubscriptions = nil
                return
            }
            guard case .function(let f) = value else {
                throw luaError("Realm.Configuration.initialSubscriptions must be a function(subscriptions)")
            }
            box.initialSubscriptions = f
        case "errorHandler":
            if value.isNil {
                box.errorHandler = nil
                return
            }
            guard case .function(let f) = value else {
                throw luaError("Realm.Configuration.errorHandler must be a function(err)")
            }
            box.errorHandler = f
        case "clientResetMode":
            let modes = ["recoverUnsyncedChanges", "discardUnsyncedChanges", "manual"]
            guard let mode = value.stringValue, modes.contains(mode) else {
                throw luaError("Realm.Configuration.clientResetMode must be one of \(modes.joined(separator: ", "))")
            }
            box.clientResetMode = mode
        case "rerunOnOpen": box.configuration.rerunOnOpen = try bool()
        case "deleteRealmIfMigrationNeeded": box.configuration.deleteRealmIfMigrationNeeded = try bool()
        case "readOnly": box.configuration.readOnly = try bool()
        case "maximumNumberOfActiveVersions":
            if value.isNil {
                box.configuration.maximumNumberOfActiveVersions = nil
                return
            }
            guard let v = value.integerValue, v > 0 else {
                throw luaError("Realm.Configuration.maximumNumberOfActiveVersions must be a positive integer")
            }
            box.configuration.maximumNumberOfActiveVersions = UInt(v)
        default:
            throw luaError("Realm.Configuration has no field '\(key)'")
        }
    }
}
