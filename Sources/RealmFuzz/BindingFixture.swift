// The world the binding target calls into: a realm whose schema has every property type, and one
// receiver of every host type the Lua API registers, in each of the states a script can reach
// (live, frozen, deleted, unmanaged, stale, other tenant's), gathered in the global table `R`.

enum BindingFixture {
    /// Every property type, as a value, a list, a set and a map; links, backlinks and embedded objects.
    static let schema = """
        SCHEMA = {
          { name = "All", primaryKey = "_id", properties = {
              _id = "int", i = "int", io = "int?", d = "double", f = "float", s = "string", so = "string?",
              b = "bool", dt = "date", dec = "decimal128", oid = "objectId", u = "uuid", bin = "data",
              m = "mixed", link = "Link?", emb = "Emb?",
              li = "int[]", lio = "int?[]", ld = "double[]", lf = "float[]", ls = "string[]", lb = "bool[]",
              ldt = "date[]", ldec = "decimal128[]", loid = "objectId[]", lu = "uuid[]", lbin = "data[]",
              lm = "mixed[]", lo = "Link[]", le = "Emb[]",
              si = "int<>", sd = "double<>", ss = "string<>", sdt = "date<>", sdec = "decimal128<>",
              soid = "objectId<>", su = "uuid<>", sbin = "data<>", sm = "mixed<>", slo = "Link<>",
              mi = "int{}", md = "double{}", ms = "string{}", mdt = "date{}", mdec = "decimal128{}",
              moid = "objectId{}", mu = "uuid{}", mbin = "data{}", mm = "mixed{}", mlo = "Link?{}",
          } },
          { name = "Link", properties = {
              n = "int", name = "string",
              owners = { type = "linkingObjects", objectType = "All", property = "lo" },
          } },
          { name = "Emb", embedded = true, properties = { x = "int", t = "string" } },
        }
        """

    /// The receivers. Helpers `withMigration(f)` and `withSubscriptions(f)` call `f` with a live
    /// Migration or MutableSubscriptionSet (they only exist inside their blocks).
    static let receivers = """
        local cfg = Realm.Configuration{ fileURL = "fuzz.realm", schema = SCHEMA }
        Realm.Configuration.defaultConfiguration = cfg
        local realm = Realm(cfg)
        local function row(k)
          return { _id = k, i = k, io = k, d = k / 2, f = k, s = "s" .. k, so = "o", b = true,
            dt = Date(k * 1000), dec = Decimal128("1.5"), oid = ObjectId(), u = UUID(), bin = Data("b" .. k),
            m = k, link = { n = k, name = "l" .. k }, emb = { x = k, t = "e" },
            li = { 1, 2, 3 }, lio = { 1, 2 }, ld = { 0.5, 1.5 }, lf = { 1 }, ls = { "a", "b" }, lb = { true },
            ldt = { Date(1) }, ldec = { Decimal128("2") }, loid = { ObjectId() }, lu = { UUID() }, lbin = { Data("x") },
            lm = { 1, "a", true }, lo = { { n = 1, name = "a" }, { n = 2, name = "b" } }, le = { { x = 1, t = "a" } },
            si = { 1, 2 }, sd = { 0.5 }, ss = { "a" }, sdt = { Date(2) }, sdec = { Decimal128("3") },
            soid = { ObjectId() }, su = { UUID() }, sbin = { Data("y") }, sm = { 1, "z" },
            slo = { { n = 3, name = "c" } },
            mi = { a = 1 }, md = { a = 0.5 }, ms = { a = "x" }, mdt = { a = Date(3) }, mdec = { a = Decimal128("4") },
            moid = { a = ObjectId() }, mu = { a = UUID() }, mbin = { a = Data("z") }, mm = { a = 1, b = "two" },
            mlo = { a = { n = 4, name = "d" } } }
        end
        realm:write(function() for k = 1, 4 do realm:create("All", row(k)) end end)
        local all = realm:objects("All")
        local doomed = all[4]
        R = {}
        R["Realm/live"] = realm
        R["Realm/frozen"] = realm:freeze()
        R["Object/live"] = all[1]
        R["Object/frozen"] = all[2]:freeze()
        R["Object/unmanaged"] = Object("All", { _id = 99 })
        R["Object/link"] = all[1].link
        R["Object/embedded"] = all[1].emb
        R["Results/live"] = all
        R["Results/frozen"] = all:freeze()
        R["Results/filtered"] = all:where("i > $0", 1):sorted("i", false)
        R["Results/links"] = realm:objects("Link")
        R["Results/backlinks"] = all[1].lo[1].owners
        local collections = { "li", "lio", "ld", "lf", "ls", "lb", "ldt", "ldec", "loid", "lu", "lbin", "lm", "lo",
            "le", "si", "sd", "ss", "sdt", "sdec", "soid", "su", "sbin", "sm", "slo",
            "mi", "md", "ms", "mdt", "mdec", "moid", "mu", "mbin", "mm", "mlo" }
        -- An unmanaged object's collections (a type of their own until the object is added).
        local unmanaged = Object("All", { _id = 98, li = { 1, 2 }, ss = { "a" }, mi = { a = 1 } })
        for _, p in ipairs(collections) do
          local c = unmanaged[p]
          R[getmetatable(c) .. "/unmanaged-" .. p] = c
        end
        for _, p in ipairs(collections) do
          local c = all[1][p]
          R[getmetatable(c) .. "/" .. p] = c
          local ok, frozen = pcall(function() return all[3][p]:freeze() end)  -- not every collection freezes
          if ok then R[getmetatable(c) .. "/frozen-" .. p] = frozen end
          R[getmetatable(c) .. "/deleted-" .. p] = doomed[p]
        end
        R["Object/deleted"] = doomed
        realm:write(function() realm:delete(doomed) end)
        R["Configuration"] = cfg
        R["User"] = user
        R["ObjectId"] = ObjectId()
        R["UUID"] = UUID()
        R["Date"] = Date()
        R["Decimal128"] = Decimal128("-1.25E-3")
        R["Data"] = Data("bytes")
        R["RealmError"] = select(2, pcall(realm.create, realm, "All", { _id = 1 }))
        R["NotificationToken/live"] = all:observe(function() end)
        R["NotificationToken/invalidated"] = all:observe(function() end)
        R["NotificationToken/invalidated"]:invalidate()
        local syncConfiguration = user:flexibleSyncConfiguration{}
        syncConfiguration.fileURL = "fuzz.sync.realm"  -- its own file: two instances of one file deadlock
        local sync = Realm(syncConfiguration)
        sync.subscriptions:update(function(s)
          s:append(QuerySubscription("All", { name = "all" }))
          R["MutableSubscriptionSet/stale"] = s
        end)
        R["Realm/sync"] = sync
        R["SyncSession"] = sync.syncSession
        R["SubscriptionSet"] = sync.subscriptions
        R["QuerySubscription"] = QuerySubscription("Link", { name = "links", where = "n > 1" })
        R["QuerySubscription/stored"] = sync.subscriptions:first("all")
        function withSubscriptions(f)
          local r
          sync.subscriptions:update(function(s) r = table.pack(f(s)) end)
          return r and table.unpack(r, 1, r.n)
        end
        local version = 1
        local old = Realm(Realm.Configuration{ fileURL = "fuzz.mig.realm", schema = SCHEMA })
        old:write(function() old:create("All", row(1)) end)
        old = nil
        function withMigration(f)
          version = version + 1
          local c = Realm.Configuration{ fileURL = "fuzz.mig.realm", schema = SCHEMA, schemaVersion = version }
          local r
          c.migrationBlock = function(m, old) R["Migration/stale"] = m r = table.pack(f(m, old)) end
          Realm(c)
          return r and table.unpack(r, 1, r.n)
        end
        withMigration(function() end)
        """

    /// The other tenant's world: its own realm, whose objects are handed to the first tenant.
    static let otherTenant = """
        local realm = Realm(Realm.Configuration{ fileURL = "other.realm", schema = SCHEMA })
        realm:write(function() realm:create("All", { _id = 1, lo = { { n = 1, name = "theirs" } } }) end)
        local all = realm:objects("All")
        return realm, all[1], all, all[1].lo, all[1].si, all[1].mi
        """
}
