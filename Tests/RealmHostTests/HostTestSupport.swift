import Foundation
import LuaSandbox
import RealmHost

/// A temporary folder with one plugin (`plugins/<name>/plugin.lua`) and a host over it.
final class PluginFolder {
    let root: URL

    init(plugin source: String, name: String = "p") throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("realmhost-\(UUID().uuidString)", isDirectory: true)
        let folder = root.appendingPathComponent("plugins/\(name)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try source.write(to: folder.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func host(limits: LuaLimits = .default) throws -> TenantHost {
        try TenantHost(
            options: HostOptions(
                dataFolder: root.appendingPathComponent("data"),
                pluginFolders: [root.appendingPathComponent("plugins")], limits: limits))
    }
}
