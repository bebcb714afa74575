#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Largest source file `require` and `loadFile` accept.
let luaMaxSourceBytes = 1 << 20

/// State of one installed `require`: its root, its cache (a Lua table, per state) and the
/// modules being loaded (to report cycles instead of recursing until the C stack overflows).
final class LuaModuleLoader {
    let root: String
    let chunkNamePrefix: String
    let cache: LuaTableRef
    let environment: LuaTableRef?
    var loading: Set<String> = []

    init(root: String, chunkNamePrefix: String, cache: LuaTableRef, environment: LuaTableRef?) {
        self.root = root
        self.chunkNamePrefix = chunkNamePrefix
        self.cache = cache
        self.environment = environment
    }

    /// Dotted names of plain components only: no "..", no "/", no absolute paths, no hidden files.
    static func isValidName(_ name: String) -> Bool {
        let components = name.split(separator: ".", omittingEmptySubsequences: false)
        return !components.isEmpty
            && components.allSatisfy { component in
                guard let first = component.utf8.first, first != UInt8(ascii: "-") else { return false }
                return component.utf8.allSatisfy { c in
                    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                        || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
                }
            }
    }

    func require(_ ctx: LuaCallContext) throws -> Int {
        let state = ctx.state
        let name = try ctx.string(1)
        let cached = try state.get(cache, .string(name))
        if !cached.isNil { return try ctx.returning(cached) }
        guard Self.isValidName(name) else {
            throw ctx.error(
                "module name '\(name)' is not allowed (use dotted names of letters, digits, '_' and '-')",
                kind: .sandbox)
        }
        guard !loading.contains(name) else { throw ctx.error("loop while loading module '\(name)'") }
        guard let rootPath = realPath(root) else { throw ctx.error("module folder is not available") }
        let rootPrefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
        let relative = name.split(separator: ".").joined(separator: "/")
        let candidates = [relative + ".lua", relative + "/init.lua"]
        for candidate in candidates {
            guard let path = realPath(rootPrefix + candidate) else { continue }
            guard path.hasPrefix(rootPrefix) else {
                throw ctx.error("module '\(name)' resolves outside the module folder", kind: .sandbox)
            }
            let source: [UInt8]
            do {
                source = try readSourceFile(path)
            } catch let error as LuaError {
                throw ctx.error("cannot load module '\(name)': \(error.message)")
            }
            loading.insert(name)
            defer { loading.remove(name) }
            let chunk = try state.load(
                bytes: blankingShebang(source), chunkName: "@" + chunkNamePrefix + candidate,
                environment: environment)
            let results = try state.call(chunk, [.string(name), .string(candidate)])
            let module = results.first.flatMap { $0.isNil ? nil : $0 } ?? .boolean(true)
            try state.set(cache, .string(name), module)
            return try ctx.returning(module, .string(candidate))
        }
        throw ctx.error("module '\(name)' not found (looked for \(candidates.joined(separator: " and ")))")
    }
}

extension LuaState {
    /// Installs a `require` function in `table` (the globals by default) that loads modules only
    /// from the folder `root`: `lib.format` is `<root>/lib/format.lua`, else
    /// `<root>/lib/format/init.lua`. Names with anything but letters, digits, `_`, `-` and dots
    /// are refused (so no `..`, `/` or absolute paths), and so is a file whose real path
    /// (symlinks resolved) is outside the real root. Modules run with `environment` (the
    /// globals by default), are named `@<chunkNamePrefix><relative path>` in messages, and are
    /// cached per installed function: the second `require` of a name returns the first result.
    public func installRequire(
        root: String, in table: LuaTableRef? = nil, environment: LuaTableRef? = nil,
        chunkNamePrefix: String = ""
    ) throws {
        let loader = LuaModuleLoader(
            root: root, chunkNamePrefix: chunkNamePrefix, cache: try newTable(), environment: environment)
        try register("require", in: table ?? globals) { ctx in try loader.require(ctx) }
    }

    /// Loads a Lua source file (text only, at most 1 MiB). A first line starting with `#` is
    /// blanked, not removed, so line numbers stay right. `chunkName` defaults to `@path`.
    public func loadFile(_ path: String, chunkName: String? = nil, environment: LuaTableRef? = nil) throws
        -> LuaFunctionRef
    {
        try load(
            bytes: blankingShebang(readSourceFile(path)), chunkName: chunkName ?? "@" + path, environment: environment)
    }
}

func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

func blankingShebang(_ source: [UInt8]) -> [UInt8] {
    guard source.first == UInt8(ascii: "#") else { return source }
    guard let newline = source.firstIndex(of: UInt8(ascii: "\n")) else { return [] }
    return Array(source[newline...])
}

/// Reads a regular file of at most `luaMaxSourceBytes`.
func readSourceFile(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw LuaError(.runtime, "cannot open \(path)") }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
        throw LuaError(.runtime, "not a regular file: \(path)")
    }
    guard info.st_size <= luaMaxSourceBytes else {
        throw LuaError(.runtime, "file larger than \(luaMaxSourceBytes) bytes: \(path)")
    }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { buffer in
            read(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
        }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { break }
        offset += n
    }
    return Array(bytes[..<offset])
}
