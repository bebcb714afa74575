/// A step of a `set` path that names an element of a list of embedded objects by its id: the path
/// `[field, ElementStep.name(e), inner…]` writes `inner…` inside element `e` of list `field`, as
/// Realm's paths step through a list (realm-core names the index; elements here have ids, so the
/// write finds its element wherever concurrent edits moved it).
///
/// The step is the id's text between brackets (`[1790000001194.0@8#0]`). It holds a `.`, which no
/// property name may hold (RealmDatabase's `isValidName`), so it can never name a field.
public enum ElementStep {
    public static func name(_ id: ElementID) -> String { "[\(id)]" }

    /// The element a step names; nil for a field name, damaged text or another spelling of an id
    /// (`[01.0@1#0]`): the store keys times by the path's text, so one element has one spelling.
    public static func element(_ step: String) -> ElementID? {
        guard step.first == "[", step.last == "]" else { return nil }
        let text = step.dropFirst().dropLast()
        let byIndex = text.split(separator: "#", omittingEmptySubsequences: false)
        guard byIndex.count == 2, let index = UInt32(byIndex[1]) else { return nil }
        let byFile = byIndex[0].split(separator: "@", omittingEmptySubsequences: false)
        guard byFile.count == 2, let file = UInt64(byFile[1]) else { return nil }
        let clock = byFile[0].split(separator: ".", omittingEmptySubsequences: false)
        guard clock.count == 2, let milliseconds = UInt64(clock[0]), let counter = UInt16(clock[1]),
            milliseconds <= HLCTimestamp.millisecondMask
        else { return nil }
        let id = ElementID(
            clock: HLCTimestamp(milliseconds: milliseconds, counter: counter), clientFileID: file, index: index)
        return name(id) == step ? id : nil
    }

    /// The list field and element a path starts with (`[field, step, …]`), when it does.
    public static func element(startingPath path: [String]) -> (field: String, id: ElementID)? {
        guard path.count >= 2, let id = element(path[1]) else { return nil }
        return (path[0], id)
    }

    /// `path` with the element of its element step (if it has one) mapped by `rename`.
    public static func renaming(_ path: [String], _ rename: (ElementID) -> ElementID) -> [String] {
        guard let (_, id) = element(startingPath: path) else { return path }
        var renamed = path
        renamed[1] = name(rename(id))
        return renamed
    }
}
