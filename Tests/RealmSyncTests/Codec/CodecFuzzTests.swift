import RealmTestSupport
import XCTest

@testable import RealmSync

/// A few thousand inputs of `realm-fuzz changeset` through the decoders (the million-input run is
/// in docs/RELIABILITY.md).
final class CodecFuzzTests: XCTestCase {
    func testMutatedEncodingsDecodeOrAreRefusedCleanly() {
        let seed = TestSeed.make("CodecFuzzTests")
        var fuzzer = SyncCodecFuzzer(seed: seed)
        var refused = 0
        for i in 0..<5_000 {
            let input = fuzzer.mutatedInput()
            switch SyncCodecFuzzer.run(input) {
            case .accepted: break
            case .rejected: refused += 1
            case .failure(let why): XCTFail("seed \(seed), input \(i): \(why)")
            }
        }
        // The mutations reach the refusals: most mutated inputs are malformed.
        XCTAssertGreaterThan(refused, 2_500, "seed \(seed)")
    }

    func testValidEncodingsAreAccepted() {
        var fuzzer = SyncCodecFuzzer(seed: 11)
        for kind in SyncCodecFuzzer.Kind.allCases {
            for _ in 0..<200 { XCTAssertEqual(SyncCodecFuzzer.run(fuzzer.validInput(kind)), .accepted) }
        }
    }
}
