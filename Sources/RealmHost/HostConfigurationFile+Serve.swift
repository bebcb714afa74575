import Foundation
import LuaSandbox

/// `host.lua`'s `serve` and `auth` tables (docs/SERVE.md): every key known, every value checked,
/// errors naming the file and the field. A command-line flag wins over a field (the CLI sets the
/// options after this runs).
extension HostConfigurationFile {
    static let serveKeys = [
        "listen", "adminListen", "maxBodyBytes", "maxJSONDepth", "userQueue", "maxConcurrentCalls",
        "consoleWriteTimeout", "headerTimeout", "watchQueueBytes",
    ]
    static let authKeys = ["issuer", "audience", "userClaim", "keys", "jwksFile", "secretFile"]

    static func applyServe(_ value: LuaValue, to options: inout HostOptions, path: String) throws {
        guard let serve = try table(value, "serve", known: serveKeys, path: path) else { return }
        let place = "\(path): field 'serve"
        if let text = try string(serve["listen"], "\(place).listen'") { options.serve.listen = text }
        if let text = try string(serve["adminListen"], "\(place).adminListen'") { options.serve.adminListen = text }
        if let n = try HostNumbers.integer(serve["maxBodyBytes"], HostServeOptions.bodyBytes, "\(place).maxBodyBytes'")
        {
            options.serve.maxBodyBytes = n
        }
        if let n = try HostNumbers.integer(serve["maxJSONDepth"], HostServeOptions.jsonDepth, "\(place).maxJSONDepth'")
        {
            options.serve.maxJSONDepth = n
        }
        if let n = try HostNumbers.integer(serve["userQueue"], HostServeOptions.queue, "\(place).userQueue'") {
            options.serve.userQueue = n
        }
        if let n = try HostNumbers.integer(
            serve["maxConcurrentCalls"], HostServeOptions.queue, "\(place).maxConcurrentCalls'")
        {
            options.serve.maxConcurrentCalls = n
        }
        if let n = try HostNumbers.integer(
            serve["watchQueueBytes"], HostServeOptions.queueBytes, "\(place).watchQueueBytes'")
        {
            options.serve.watchQueueBytes = n
        }
        if let d = try HostNumbers.duration(serve["headerTimeout"], "\(place).headerTimeout'") {
            options.serve.headerTimeout = d
        }
        if let d = try HostNumbers.duration(serve["consoleWriteTimeout"], "\(place).consoleWriteTimeout'") {
            options.serve.consoleWriteTimeout = d
        }
    }

    static func applyAuth(_ value: LuaValue, to options: inout HostOptions, path: String) throws {
        guard let auth = try table(value, "auth", known: authKeys, path: path) else { return }
        let place = "\(path): field 'auth"
        options.auth.issuer = try string(auth["issuer"], "\(place).issuer'") ?? options.auth.issuer
        options.auth.audience = try string(auth["audience"], "\(place).audience'") ?? options.auth.audience
        options.auth.userClaim = try string(auth["userClaim"], "\(place).userClaim'") ?? options.auth.userClaim
        if let file = try string(auth["jwksFile"], "\(place).jwksFile'") {
            options.auth.jwksFile = resolve(file, in: options.dataFolder)
        }
        if let file = try string(auth["secretFile"], "\(place).secretFile'") {
            options.auth.secretFile = resolve(file, in: options.dataFolder)
        }
        switch auth["keys"] {
        case .nil: break
        case .plainTable(let list) where list.hash.isEmpty && !list.array.isEmpty:
            options.auth.keys = try list.array.enumerated().map { i, entry in
                try key(entry, field: "auth.keys[\(i + 1)]", path: path)
            }
        default:
            throw HostError.configuration(
                "\(place).keys' must be a list of { kid = …, alg = \"EdDSA\"|\"ES256\"|\"RS256\", publicKey = \"<PEM>\" }"
            )
        }
        let kids = options.auth.keys.map(\.kid)
        if let duplicate = kids.first(where: { kid in kids.filter { $0 == kid }.count > 1 }) {
            throw HostError.configuration("\(place).keys' names kid '\(duplicate)' twice")
        }
    }

    private static func key(_ value: LuaValue, field: String, path: String) throws -> HostAuthOptions.Key {
        let place = "\(path): field '\(field)"
        guard let entry = try table(value, field, known: ["kid", "alg", "publicKey"], path: path) else {
            throw HostError.configuration("\(place)' must be a table { kid, alg, publicKey }")
        }
        guard let kid = try string(entry["kid"], "\(place).kid'") else {
            throw HostError.configuration("\(place).kid' is required (the key's id, matched to a token's 'kid')")
        }
        guard let alg = try string(entry["alg"], "\(place).alg'"), HostAuthOptions.algorithms.contains(alg) else {
            throw HostError.configuration(
                "\(place).alg' must be one of \(HostAuthOptions.algorithms.joined(separator: ", "))")
        }
        guard let pem = try string(entry["publicKey"], "\(place).publicKey'"), pem.contains("-----BEGIN") else {
            throw HostError.configuration("\(place).publicKey' must be a PEM public key (-----BEGIN PUBLIC KEY-----…)")
        }
        return HostAuthOptions.Key(kid: kid, algorithm: alg, publicKeyPEM: pem)
    }

    private static func string(_ value: LuaValue, _ field: String) throws -> String? {
        if value.isNil { return nil }
        guard let text = value.stringValue, !text.isEmpty else {
            throw HostError.configuration("\(field) must be a non-empty string")
        }
        return text
    }

    private static func resolve(_ file: String, in folder: URL) -> URL {
        file.hasPrefix("/") ? URL(fileURLWithPath: file) : folder.appendingPathComponent(file)
    }
}
