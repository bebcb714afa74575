import Foundation

/// What keeps `url` from being a folder to read ("no such folder", "not a folder"); nil when it is
/// one. The one check behind every folder a person names (`--plugins`, host.lua's `plugins`,
/// `--data` of the sync server), so that each says the same thing.
public func folderProblem(_ url: URL) -> String? {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return "no such folder" }
    return isFolder.boolValue ? nil : "not a folder"
}
