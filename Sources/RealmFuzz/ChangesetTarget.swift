import RealmSync
import RealmTestSupport

/// The sync decoders (values, changesets, messages) against mutated valid encodings: every input
/// decodes or is refused with a `SyncError`; nothing traps (RealmTestSupport's `SyncCodecFuzzer`).
final class ChangesetTarget: FuzzTarget {
    let name = "changeset"
    let dictionary: [String] = []
    /// Binary inputs do not travel as text seeds: every input is generated.
    let seeds = [""]
    var generatedPercent: Int { 100 }

    func generate(_ rng: inout FuzzRandom) -> [UInt8]? {
        var fuzzer = SyncCodecFuzzer(seed: rng.next())
        // Some valid inputs keep the accepting paths covered.
        if rng.chance(10) { return fuzzer.validInput(rng.pick(SyncCodecFuzzer.Kind.allCases)) }
        return fuzzer.mutatedInput()
    }

    func run(_ input: [UInt8]) -> Outcome {
        switch SyncCodecFuzzer.run(input) {
        case .accepted: return .accepted
        case .rejected: return .rejected
        case .failure(let why): return .failure(why)
        }
    }
}
