import Foundation
import RealmSyncPostgres

/// `--store URL`: where the sync server keeps the central store. `sqlite:PATH` (the default is
/// `sqlite:DIR/sync.sqlite`) or `postgres://USER@HOST:PORT/DB` (`PostgresSyncStore`).
enum SyncStoreLocation: Equatable {
    case sqlite(path: String)
    case postgres(PostgresStoreLocation)

    static let defaultFileName = "sync.sqlite"

    /// The store `text` names (nil: the default, in `dataFolder`), or a message naming the flag.
    init(parsing text: String?, dataFolder: URL) throws {
        guard let text else {
            self = .sqlite(path: dataFolder.appendingPathComponent(Self.defaultFileName).path)
            return
        }
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            do {
                self = .postgres(try PostgresStoreLocation(parsing: text))
                return
            } catch {
                throw CLIError.failed("--store \(error)")
            }
        }
        guard lowered.hasPrefix("sqlite:") else {
            throw CLIError.failed(
                "--store '\(Self.redacted(text))': unknown kind of store; expected sqlite:PATH or "
                    + "postgres://USER@HOST:PORT/DB (the default is sqlite:DIR/\(Self.defaultFileName))")
        }
        // `sqlite:PATH`, and `sqlite://PATH` as URLs are often written.
        var path = text.dropFirst("sqlite:".count)
        if path.hasPrefix("//") { path = path.dropFirst(2) }
        guard !path.isEmpty else { throw CLIError.failed("--store '\(text)': the SQLite file's path is missing") }
        self = .sqlite(path: URL(fileURLWithPath: String(path)).standardizedFileURL.path)
    }

    /// How messages name the store.
    var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let location): location.description
        }
    }

    /// `text` without the password a database URL may carry (`postgres://user:secret@host`).
    private static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else {
            return text
        }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return text.replacingCharacters(in: colon..<at, with: ":***")
    }
}
