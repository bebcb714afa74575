import Foundation
import RealmDatabase
import RealmTestSupport

/// The fuzzer's generator: RealmTestSupport's SplitMix64, deterministic, so a run is replayed from
/// its seed.
typealias FuzzRandom = SplitMix64

extension SplitMix64 {
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Byte-level mutations of a seed, steered by a dictionary of tokens of the input's language:
/// bit flips, insertions, deletions, duplications, token replacement, splicing with another
/// seed, interesting numbers and deep nesting (what recursive parsers choke on).
struct Mutator {
    let dictionary: [[UInt8]]
    let maxLength: Int

    init(dictionary: [String], maxLength: Int = 16 * 1024) {
        self.dictionary = dictionary.map { Array($0.utf8) }
        self.maxLength = maxLength
    }

    static let interesting = [
        "0", "-1", "1", "-0", "255", "256", "65535", "2147483647", "-2147483648", "4294967296",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616",
        "1e308", "1e309", "-1e309", "5e-324", "0.1", "NaN", "inf", "-inf", "0x7fffffff", "1.7976931348623157e308",
        "\"\"", "''", "\\", "\\\\", "\\u0000", "\\x00", "%", "%%", "$0", "$99", "$-1", "\u{0}", "\u{FEFF}", "\u{202E}",
        "\u{1F600}", "\u{FFFF}", "\u{D7FF}", "\u{10FFFF}", "é", "e\u{301}", "\u{7F}",
    ].map { Array($0.utf8) }

    func mutate(_ input: [UInt8], other: [UInt8], rng: inout FuzzRandom) -> [UInt8] {
        var data = input
        let rounds = 1 + rng.below(rng.chance(20) ? 16 : 4)
        for _ in 0..<rounds {
            mutateOnce(&data, other: other, rng: &rng)
            if data.count > maxLength { data.removeLast(data.count - maxLength) }
        }
        return data
    }

    private func randomRange(_ count: Int, rng: inout FuzzRandom) -> Range<Int> {
        guard count > 0 else { return 0..<0 }
        let start = rng.below(count)
        let length = 1 + rng.below(min(count - start, rng.chance(80) ? 8 : 256))
        return start..<(start + length)
    }

    private func mutateOnce(_ data: inout [UInt8], other: [UInt8], rng: inout FuzzRandom) {
        let at = rng.below(data.count + 1)
        switch rng.below(14) {
        case 0 where !data.isEmpty:  // flip a bit
            let i = rng.below(data.count)
            data[i] ^= UInt8(1 << rng.below(8))
        case 1 where !data.isEmpty:  // random byte
            data[rng.below(data.count)] = UInt8(truncatingIfNeeded: rng.next())
        case 2:  // insert a random byte (printable ASCII more often)
            data.insert(rng.chance(70) ? UInt8(32 + rng.below(95)) : UInt8(truncatingIfNeeded: rng.next()), at: at)
        case 3 where !data.isEmpty:  // delete a range
            data.removeSubrange(randomRange(data.count, rng: &rng))
        case 4 where !data.isEmpty:  // duplicate a range
            let r = randomRange(data.count, rng: &rng)
            data.insert(contentsOf: data[r], at: at)
        case 5...7 where !dictionary.isEmpty:  // insert a token
            data.insert(contentsOf: rng.pick(dictionary), at: at)
        case 8 where !dictionary.isEmpty && !data.isEmpty:  // replace a range by a token
            data.replaceSubrange(randomRange(data.count, rng: &rng), with: rng.pick(dictionary))
        case 9:  // interesting value
            let token = rng.pick(Self.interesting)
            if rng.chance(50), !data.isEmpty {
                data.replaceSubrange(randomRange(data.count, rng: &rng), with: token)
            } else {
                data.insert(contentsOf: token, at: at)
            }
        case 10 where !other.isEmpty:  // splice with another seed
            let r = randomRange(other.count, rng: &rng)
            if rng.chance(50), !data.isEmpty {
                data.replaceSubrange(randomRange(data.count, rng: &rng), with: other[r])
            } else {
                data.insert(contentsOf: other[r], at: at)
            }
        case 11:  // deep nesting: many openers (and sometimes the closers)
            let pairs: [(String, String)] = [
                ("(", ")"), ("{", "}"), ("[", "]"), ("NOT ", ""), ("!", ""), ("-", ""), ("{ { ", " } }"),
                ("\"a\":{", "}"), ("ANY ", ""),
            ]
            let (open, close) = rng.pick(pairs)
            let depth = rng.chance(50) ? 1 + rng.below(64) : 100 + rng.below(5000)
            let opening = Array(String(repeating: open, count: depth).utf8)
            data.insert(contentsOf: opening, at: at)
            if rng.chance(60), !close.isEmpty {
                let end = min(data.count, at + opening.count + rng.below(max(1, data.count - at - opening.count + 1)))
                data.insert(contentsOf: Array(String(repeating: close, count: depth).utf8), at: end)
            }
        case 12 where !data.isEmpty:  // repeat a small piece many times
            let r = randomRange(data.count, rng: &rng)
            let piece = Array(data[r])
            let times = rng.chance(70) ? 2 + rng.below(16) : 100 + rng.below(1000)
            var block = [UInt8]()
            for _ in 0..<times where block.count < maxLength { block += piece }
            data.insert(contentsOf: block, at: at)
        case 13 where data.count > 1:  // swap two bytes
            let i = rng.below(data.count)
            let j = rng.below(data.count)
            data.swapAt(i, j)
        default:
            data.insert(UInt8(32 + rng.below(95)), at: at)
        }
    }
}

/// The seeds of a target: the files of its corpus folder, else the built-in seeds.
func loadCorpus(_ folder: String?, builtIn: [String]) -> [[UInt8]] {
    var seeds = builtIn.map { Array($0.utf8) }
    if let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) {
        for name in names.sorted() where !name.hasPrefix(".") {
            if let data = FileManager.default.contents(atPath: folder + "/" + name) { seeds.append([UInt8](data)) }
        }
    }
    return seeds
}
