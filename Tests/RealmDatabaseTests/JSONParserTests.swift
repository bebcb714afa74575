import Foundation
import XCTest

@testable import RealmDatabase

/// `JSONValue.parse` (the hand-written `JSONParser`): the shapes the realm formats read, strict
/// RFC 8259, every refusal naming its byte, nesting bounded, and `text` read back unchanged.
final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Data(text.utf8)) }

    private func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let value = try parse(text)
            XCTFail("\(text.debugDescription) parsed as \(value)", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testNumbersKeepIntegersApartFromDoubles() throws {
        XCTAssertEqual(try parse("3"), .int(3))
        XCTAssertEqual(try parse("-0"), .int(0))
        XCTAssertEqual(try parse("9223372036854775807"), .int(.max))
        XCTAssertEqual(try parse("-9223372036854775808"), .int(.min))
        XCTAssertEqual(try parse("9223372036854775808"), .double(9_223_372_036_854_775_808))
        XCTAssertEqual(try parse("1.5"), .double(1.5))
        XCTAssertEqual(try parse("1e-2"), .double(0.01))
        // An integral value reads as an integer (as Foundation's decoder read it before).
        XCTAssertEqual(try parse("1.0"), .int(1))
        XCTAssertEqual(try parse("1E3"), .int(1000))
    }

    func testStringsAndEscapes() throws {
        XCTAssertEqual(try parse(#""plain""#), .string("plain"))
        XCTAssertEqual(try parse(#""a\"b\\c\/d\n\t\r\b\f""#), .string("a\"b\\c/d\n\t\r\u{08}\u{0C}"))
        XCTAssertEqual(try parse(#""\u00e9\ud83d\ude00 é""#), .string("é😀 é"))
        XCTAssertEqual(try parse("\"\u{7F}\""), .string("\u{7F}"))
    }

    func testObjectsAreShapedAsTheRealmFormatsReadThem() throws {
        XCTAssertEqual(
            try parse(#"{"b": 1, "a": [true, null]}"#),
            .object([.init("a", .array([.bool(true), .null])), .init("b", .int(1))]))
        XCTAssertEqual(try parse(#"{"$ref": 7}"#), .ref(7, className: nil))
        XCTAssertEqual(try parse(#"{"$ref": 7, "$class": "Dog"}"#), .ref(7, className: "Dog"))
        XCTAssertEqual(try parse(#"{"$date": "2024-01-01T00:00:00Z"}"#), .tagged("$date", "2024-01-01T00:00:00Z"))
        XCTAssertEqual(try parse(#"{"$key": "k"}"#), .object([.init("$key", .string("k"))]))
        XCTAssertEqual(try parse(#"{"a": 1, "a": 2}"#), .object([.init("a", .int(2))]), "the last duplicate wins")
        XCTAssertEqual(try parse(" [ ] "), .array([]))
        XCTAssertEqual(try parse("{}"), .object([]))
    }

    func testEveryRefusalNamesItsByte() {
        XCTAssertEqual(refusal("[1,]"), "not valid JSON (unexpected ']' where a value was expected at byte 3)")
        XCTAssertEqual(refusal("[1] x"), "not valid JSON (unexpected 'x' after the value at byte 4)")
        XCTAssertEqual(refusal(""), "not valid JSON (the text ends where a value was expected at byte 0)")
        XCTAssertTrue(refusal("01").contains("may not start with 0 at byte 1"), refusal("01"))
        XCTAssertTrue(refusal("1.").contains("decimal point at byte 2"))
        XCTAssertTrue(refusal("1e400").contains("out of range at byte 0"))
        XCTAssertTrue(refusal("tru").contains("at byte 0"))
        XCTAssertTrue(refusal(#"{"a" 1}"#).contains("where ':' was expected at byte 5"))
        XCTAssertTrue(refusal(#"{"a": 1 "b": 2}"#).contains("',' or '}'"))
        XCTAssertTrue(refusal(#""\x""#).contains("unknown escape '\\x'"))
        XCTAssertTrue(refusal(#""\ud800""#).contains("surrogate"))
        XCTAssertTrue(refusal(#""\udc00""#).contains("low surrogate"))
        XCTAssertTrue(refusal("\"a\u{01}b\"").contains("control character"))
        XCTAssertTrue(refusal(#""open"#).contains("not closed at byte 0"))
        XCTAssertTrue(refusal(#""\u12""#).contains("four hex digits"))
        do {
            _ = try JSONValue.parse(Data([0x22, 0xFF, 0x22]))
            XCTFail("invalid UTF-8 was read")
        } catch {
            XCTAssertTrue("\(error)".contains("not valid UTF-8"), "\(error)")
        }
    }

    func testNestingIsBoundedBeforeTheStackIs() {
        let deep = Data(String(repeating: "[", count: 1_000_000).utf8)
        XCTAssertThrowsError(try JSONValue.parse(deep, maxDepth: 32)) { error in
            guard let error = error as? JSONSyntaxError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.tooDeep)
            XCTAssertEqual(error.offset, 32)
        }
        XCTAssertThrowsError(try JSONValue.parse(deep)) { XCTAssertTrue("\($0)".contains("deeper than 512")) }
        XCTAssertNoThrow(try JSONValue.parse(Data("[[[1]]]".utf8), maxDepth: 3))
    }

    /// Random documents written by `text` read back as the same value (seed printed; fixed under CI).
    func testWhatTextWritesParsesBackUnchanged() throws {
        let seed = ProcessInfo.processInfo.environment["CI"] == "true" ? 26 : UInt64.random(in: 0...UInt64.max)
        print("JSONParserTests seed \(seed)")
        var random = SplitMix(seed: seed)
        for _ in 0..<300 {
            let value = randomValue(&random, depth: 0)
            for layout in [JSONValue.Layout.line, .indented] {
                XCTAssertEqual(try parse(value.text(layout)), value, "seed \(seed): \(value.text())")
            }
        }
    }

    private func randomValue(_ random: inout SplitMix, depth: Int) -> JSONValue {
        switch random.next() % (depth > 3 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .int(Int64(bitPattern: random.next()) >> (random.next() % 64))
        case 3: return .double(Double(Int64(bitPattern: random.next()) >> 20) + 0.25)
        case 4: return .string(randomString(&random))
        case 5:
            return .array((0..<random.next() % 4).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var fields: [JSONValue.Field] = []
            for i in 0..<(1 + random.next() % 3) {
                fields.append(.init("k\(i)" + randomString(&random), randomValue(&random, depth: depth + 1)))
            }
            // Parsed objects come sorted by name, and one field named like a tag reads as a tag.
            return .object(fields.sorted { $0.name < $1.name })
        }
    }

    private func randomString(_ random: inout SplitMix) -> String {
        let alphabet: [Character] = ["a", "Z", " ", "\"", "\\", "\n", "\t", "\u{01}", "é", "😀", "/", "\u{2028}"]
        return String((0..<random.next() % 6).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
    }
}

/// A small seeded generator (SplitMix64), so that a failing seed can be replayed.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
