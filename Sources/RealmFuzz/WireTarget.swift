import RealmSync
import RealmSyncNet
import RealmTestSupport

/// The network frame decoder (`WireCodec.decodeMessage`: head line, deflate, message body) against
/// mutated valid frames: every input decodes or is refused with a `WireError`, never a trap; what
/// decodes must encode and decode back to itself.
final class WireTarget: FuzzTarget {
    let name = "wire"
    /// Head fields and numbers the mutator splices in (the driver's byte mutations do the rest).
    let dictionary = [
        "RSYNC/1 ", "RSYNC/2 ", " bind ", " upload ", " download ", " mark ", " error ", " 0 ", " 1 ", "\n", " ",
        "20971520", "67108864", "4294967295", "4294967296", "18446744073709551616", "007", "-1", "+1",
    ]
    /// Binary inputs do not travel as text seeds: every input is generated.
    let seeds = [""]
    var generatedPercent: Int { 100 }
    /// Small limits on some inputs, so that the limit checks are reached with inputs of fuzzing size.
    private let codecs = [
        WireCodec(), WireCodec(limits: WireLimits(maxFrameBytes: 4096, maxHeadBytes: 256, maxInflatedBodyBytes: 8192)),
    ]
    /// Frames deflate from 1 KiB on; these encoders deflate small bodies too, to fuzz the inflater.
    private let encoders = [WireCodec(), WireCodec(limits: WireLimits(deflateAbove: 16))]

    func generate(_ rng: inout FuzzRandom) -> [UInt8]? {
        var samples = SyncSamples(seed: rng.next())
        let message = samples.message()
        let token: String? = if case .bind = message { "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln" } else { nil }
        guard var frame = try? rng.pick(encoders).encode(message, token: token) else { return nil }
        // Some valid frames keep the accepting paths covered; the others are changed where a
        // frame decoder goes wrong: the head's numbers and flag, the body, the length.
        if rng.chance(10) { return frame }
        for _ in 0...rng.below(3) { mutate(&frame, &rng) }
        return frame
    }

    private func mutate(_ frame: inout [UInt8], _ rng: inout FuzzRandom) {
        let headEnd = frame.firstIndex(of: 0x0A) ?? frame.count
        switch rng.below(5) {
        case 0 where headEnd > 0:  // a byte of the head
            frame[rng.below(headEnd)] = rng.pick(Array("0123456789 \n-+RSYNC/".utf8))
        case 1:  // truncate
            frame.removeLast(rng.below(frame.count + 1))
        case 2 where frame.count > headEnd + 1:  // a byte of the body (the deflate stream when deflated)
            let at = headEnd + 1 + rng.below(frame.count - headEnd - 1)
            frame[at] ^= UInt8(1 << rng.below(8))
        case 3:  // bytes appended
            frame += (0..<(1 + rng.below(8))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        default:  // another frame's piece spliced in
            let start = rng.below(frame.count + 1)
            frame.insert(contentsOf: frame[start...].prefix(rng.below(64)), at: rng.below(frame.count + 1))
        }
    }

    func run(_ input: [UInt8]) -> Outcome {
        var accepted = false
        for codec in codecs {
            do {
                let (message, token) = try codec.decodeMessage(input)
                let again = try codec.decodeMessage(try codec.encode(message, token: token))
                guard again.message == message, again.token == token else {
                    return .failure("a decoded frame did not survive a second round trip: \(message)")
                }
                accepted = true
            } catch is WireError {
                continue
            } catch {
                return .failure("the wire decoder threw \(type(of: error)): \(error)")
            }
        }
        return accepted ? .accepted : .rejected
    }
}
