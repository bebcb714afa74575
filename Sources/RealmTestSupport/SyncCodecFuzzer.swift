import RealmSync

/// Fuzzing of the sync decoders (`realm-fuzz changeset` and a short run in the tests): valid
/// encodings of random values, changesets and messages, mutated where a decoder is most likely to
/// go wrong (bit flips, truncation, splicing, huge or overlong varints, random lengths), then
/// decoded. Every input must decode or be refused with a `SyncError` of the decoder's code; what
/// decodes must survive a second round trip unchanged.
public struct SyncCodecFuzzer {
    public enum Outcome: Equatable, Sendable {
        case accepted, rejected
        case failure(String)
    }

    /// Which decoder an input is for (its header says so; a mutated header is just refused).
    public enum Kind: CaseIterable, Sendable { case value, changeset, message }

    private var samples: SyncSamples

    public init(seed: UInt64) { samples = SyncSamples(seed: seed) }

    /// A valid encoding of a random sample of `kind`.
    public mutating func validInput(_ kind: Kind) -> [UInt8] {
        switch kind {
        case .value: return SyncValueCodec.encode(samples.value())
        case .changeset: return ChangesetCodec.encode(samples.changeset())
        case .message: return SyncMessageCodec.encode(samples.message())
        }
    }

    /// A valid encoding, mutated 1–4 times.
    public mutating func mutatedInput() -> [UInt8] {
        let kind = samples.pick(Kind.allCases)
        var bytes = validInput(kind)
        let other = validInput(kind)
        for _ in 0...samples.below(4) { mutate(&bytes, other: other) }
        return bytes
    }

    private mutating func mutate(_ bytes: inout [UInt8], other: [UInt8]) {
        let at = samples.below(bytes.count + 1)
        switch samples.below(8) {
        case 0 where !bytes.isEmpty:  // flip a bit
            bytes[samples.below(bytes.count)] ^= UInt8(1 << samples.below(8))
        case 1:  // truncate
            bytes.removeLast(bytes.count - at)
        case 2:  // splice a piece of another encoding
            let start = samples.below(other.count + 1)
            let end = start + samples.below(other.count - start + 1)
            bytes.insert(contentsOf: other[start..<end], at: at)
        case 3:  // a varint of random size: huge, overlong, overflowing, or a small count
            let varints: [[UInt8]] = [
                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], [0x80, 0x00], [0x80, 0x80, 0x80],
                [0xFF, 0xFF, 0xFF, 0x7F], [UInt8(samples.below(128))],
            ]
            bytes.replaceSubrange(at..<min(bytes.count, at + samples.below(3)), with: samples.pick(varints))
        case 4 where !bytes.isEmpty:  // a random byte
            bytes[samples.below(bytes.count)] = UInt8(truncatingIfNeeded: samples.uint64())
        case 5 where !bytes.isEmpty:  // delete a range
            bytes.removeSubrange(at..<min(bytes.count, at + 1 + samples.below(8)))
        case 6:  // invalid UTF-8 and zero bytes
            bytes.insert(
                contentsOf: samples.pick([[0xC3], [0xED, 0xA0, 0x80], [0xFF], [0x00], [0xF4, 0x90]]), at: at)
        default:  // trailing bytes
            bytes.append(UInt8(truncatingIfNeeded: samples.uint64()))
        }
    }

    /// Decodes `input` with every decoder (each refuses the others' headers) and checks the outcome.
    public static func run(_ input: [UInt8]) -> Outcome {
        var accepted = false
        for kind in Kind.allCases {
            switch check(kind, input) {
            case .accepted: accepted = true
            case .rejected: continue
            case .failure(let why): return .failure(why)
            }
        }
        return accepted ? .accepted : .rejected
    }

    private static func check(_ kind: Kind, _ input: [UInt8]) -> Outcome {
        do {
            switch kind {
            case .value: return stable(try SyncValueCodec.decode(input), SyncValueCodec.encode, SyncValueCodec.decode)
            case .changeset:
                return stable(try ChangesetCodec.decode(input), ChangesetCodec.encode, ChangesetCodec.decode)
            case .message:
                return stable(try SyncMessageCodec.decode(input), SyncMessageCodec.encode, SyncMessageCodec.decode)
            }
        } catch let error as SyncError {
            let expected: [SyncErrorCode] = kind == .message ? [.badSyntax, .badChangeset] : [.badChangeset]
            guard expected.contains(error.code), error.message.hasPrefix("malformed ") else {
                return .failure("\(kind) decoder: unexpected \(error)")
            }
            return .rejected
        } catch {
            return .failure("\(kind) decoder threw \(type(of: error)): \(error)")
        }
    }

    /// A decoded item must encode and decode back to itself.
    private static func stable<T: Equatable>(
        _ decoded: T, _ encode: (T) -> [UInt8], _ decode: ([UInt8]) throws -> T
    ) -> Outcome {
        guard let again = try? decode(encode(decoded)), again == decoded else {
            return .failure("\(T.self) did not survive a second round trip: \(decoded)")
        }
        return .accepted
    }
}
