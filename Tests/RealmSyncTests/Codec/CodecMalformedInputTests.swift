import RealmTestSupport
import XCTest

@testable import RealmSync

/// Each kind of malformed input is refused with a `SyncError` naming it (and never traps).
final class CodecMalformedInputTests: XCTestCase {
    let dog = ObjectRef("Dog", .int(1))

    /// A value encoding: the header, then `body`.
    func valueBytes(_ body: (inout ByteWriter) -> Void) -> [UInt8] {
        var w = ByteWriter()
        w.fixed(CodecFormat.valueMagic)
        w.byte(CodecFormat.version)
        body(&w)
        return w.bytes
    }

    /// A changeset encoding with `names` and one instruction written by `body`.
    func changesetBytes(names: [String] = ["Dog", "tags"], instructions: Int = 1, _ body: (inout ByteWriter) -> Void)
        -> [UInt8]
    {
        var w = ByteWriter()
        w.fixed(CodecFormat.changesetMagic)
        w.byte(CodecFormat.version)
        for number: UInt64 in [1, 0, 5, 9] { w.varint(number) }
        w.count(names.count)
        for name in names { w.string(name) }
        w.count(instructions)
        body(&w)
        return w.bytes
    }

    func assertRefused<T>(
        _ decode: ([UInt8]) throws -> T, _ bytes: [UInt8], _ code: SyncErrorCode = .badChangeset, naming text: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try decode(bytes), file: file, line: line) { error in
            guard let e = error as? SyncError else {
                return XCTFail("not a SyncError: \(error)", file: file, line: line)
            }
            XCTAssertEqual(e.code, code, e.message, file: file, line: line)
            XCTAssertTrue(e.message.contains(text), "\(e.message) does not name \(text)", file: file, line: line)
        }
    }

    func testTruncatedInputIsRefusedAtEveryLength() {
        let changeset = Changeset(
            clientVersion: 1, basedOnServerVersion: 0, clock: .zero, clientFileID: 1,
            instructions: [.mapPut(dog, field: "m", key: "k", value: .string("value"))])
        let bytes = ChangesetCodec.encode(changeset)
        for length in 0..<bytes.count {
            // Cut inside a fixed item: "truncated"; before a counted one: its length "beyond the N bytes left".
            XCTAssertThrowsError(try ChangesetCodec.decode(Array(bytes.prefix(length)))) { error in
                let message = (error as? SyncError)?.message ?? "\(error)"
                XCTAssertTrue(
                    ["truncated input", "bytes left", "bad magic"].contains { message.contains($0) },
                    "length \(length): \(message)")
            }
        }
    }

    func testOverlongAndOverflowingVarintsAreRefused() {
        assertRefused(
            SyncValueCodec.decode,
            valueBytes {
                $0.byte(ValueTag.int.rawValue)
                $0.fixed([0x81, 0x00])
            },
            naming: "overlong varint in an int value")
        assertRefused(
            SyncValueCodec.decode,
            valueBytes {
                $0.byte(ValueTag.int.rawValue)
                $0.fixed(Array(repeating: 0xFF, count: 9) + [0x02])
            },
            naming: "varint overflowing 64 bits")
        assertRefused(
            SyncValueCodec.decode,
            valueBytes {
                $0.byte(ValueTag.int.rawValue)
                $0.fixed(Array(repeating: 0xFF, count: 12))
            },
            naming: "overflowing 64 bits")
        // The largest value takes exactly ten bytes and is accepted.
        XCTAssertEqual(try SyncValueCodec.decode(valueBytes { $0.value(.int(.min)) }), .int(.min))
    }

    func testLengthsBeyondTheInputAreRefused() {
        assertRefused(
            SyncValueCodec.decode,
            valueBytes {
                $0.byte(ValueTag.string.rawValue)
                $0.varint(100)
                $0.fixed([65, 66])
            },
            naming: "length 100 of a string value beyond the 2 bytes left")
        assertRefused(
            SyncValueCodec.decode,
            valueBytes {
                $0.byte(ValueTag.data.rawValue)
                $0.varint(.max)
            },
            naming: "beyond the 0 bytes left")
    }

    func testAbsurdCountsAreRefusedBeforeAllocating() {
        assertRefused(
            ChangesetCodec.decode, changesetBytes(instructions: 1 << 40) { _ in },
            naming: "instruction count 1099511627776")
        assertRefused(
            SyncValueCodec.decode,
            valueBytes {
                $0.byte(ValueTag.list.rawValue)
                $0.varint(UInt64(Int64.max))
            },
            naming: "the item count of a list value")
        var w = ByteWriter()
        w.fixed(CodecFormat.messageMagic)
        w.byte(CodecFormat.version)
        w.byte(MessageTag.upload.rawValue)
        w.varint(1)
        w.varint(.max)
        assertRefused(SyncMessageCodec.decode, w.bytes, .badSyntax, naming: "the changeset count")
    }

    func testBadTagsAreRefused() {
        assertRefused(SyncValueCodec.decode, valueBytes { $0.byte(99) }, naming: "bad value tag 99")
        assertRefused(ChangesetCodec.decode, changesetBytes { $0.fixed([0, 0, 0]) }, naming: "bad instruction tag 0")
        assertRefused(
            ChangesetCodec.decode,
            changesetBytes {
                $0.byte(InstructionTag.erase.rawValue)
                $0.varint(0)
                $0.byte(9)
            },
            naming: "bad primary key tag 9")
        assertRefused(
            SyncMessageCodec.decode, SyncMessageCodec.encode(.unbind(session: 1)).prefix(4) + [200, 1], .badSyntax,
            naming: "unknown message tag 200")
        assertRefused(
            SyncValueCodec.decode,
            valueBytes {
                $0.byte(ValueTag.string.rawValue)
                $0.byte(0)
                $0.byte(1)
            },
            naming: "1 trailing bytes")
    }

    func testInvalidUTF8IsRefused() {
        for bad: [UInt8] in [[0xC3], [0xED, 0xA0, 0x80], [0xFF], [0xF4, 0x90, 0x80, 0x80]] {
            assertRefused(
                SyncValueCodec.decode,
                valueBytes {
                    $0.byte(ValueTag.string.rawValue)
                    $0.lengthPrefixed(bad)
                },
                naming: "invalid UTF-8 in a string value at byte 5")
        }

        var w = ByteWriter()
        w.fixed(CodecFormat.changesetMagic)
        w.byte(CodecFormat.version)
        for number: UInt64 in [1, 0, 5, 9] { w.varint(number) }
        w.count(1)
        w.lengthPrefixed([0x44, 0xC0, 0x80])  // an overlong NUL: not UTF-8
        w.count(0)
        assertRefused(ChangesetCodec.decode, w.bytes, naming: "invalid UTF-8 in a name of the name table")
    }

    func testInternedIndexOutOfRangeIsRefused() {
        assertRefused(
            ChangesetCodec.decode,
            changesetBytes {
                $0.byte(InstructionTag.erase.rawValue)
                $0.varint(2)
                $0.byte(0)
            },
            naming: "name index 2 of a class out of range (the table has 2)")
        assertRefused(
            ChangesetCodec.decode,
            changesetBytes {
                $0.byte(InstructionTag.listClear.rawValue)
                $0.varint(0)
                $0.byte(PrimaryKeyTag.null.rawValue)
                $0.varint(.max)
            }, naming: "name index 18446744073709551615 of a list field out of range")
    }

    func testInvalidPositionsAreRefused() {
        for (bytes, why) in [([UInt8](), "empty"), ([5, 0], "ending in 0")] {
            let input = changesetBytes {
                $0.byte(InstructionTag.listMove.rawValue)
                $0.varint(0)
                $0.byte(PrimaryKeyTag.null.rawValue)
                $0.varint(1)
                $0.elementID(ElementID(clock: .zero, clientFileID: 1, index: 0))
                $0.lengthPrefixed(bytes)
            }
            assertRefused(ChangesetCodec.decode, input, naming: "invalid list position (\(why))")
        }
    }

    func testNestingBeyondTheLimitIsRefused() {
        var value = SyncValue.null
        for _ in 0...CodecFormat.maximumNesting { value = .list([value]) }
        assertRefused(SyncValueCodec.decode, SyncValueCodec.encode(value), naming: "nesting deeper than 32 levels")
        // Deep nesting made of bytes alone (no recursion in the encoder either).
        let deep = valueBytes { w in
            for _ in 0..<100_000 {
                w.byte(ValueTag.list.rawValue)
                w.varint(1)
            }
        }
        assertRefused(SyncValueCodec.decode, deep, naming: "nesting deeper than 32 levels")
    }

    func testTrailingBytesAreRefused() {
        let changeset = Changeset(
            clientVersion: 1, basedOnServerVersion: 0, clock: .zero, clientFileID: 1, instructions: [])
        assertRefused(ChangesetCodec.decode, ChangesetCodec.encode(changeset) + [0], naming: "1 trailing bytes")
        assertRefused(
            SyncMessageCodec.decode, SyncMessageCodec.encode(.mark(session: 1, requestID: 2)) + [1, 2], .badSyntax,
            naming: "2 trailing bytes")
    }

    func testUnknownVersionAndMagicAreRefused() {
        var bytes = SyncValueCodec.encode(.null)
        bytes[3] = 2
        assertRefused(SyncValueCodec.decode, bytes, naming: "unknown format version 2 (this build reads 1)")
        // A changeset is not a message, nor a value.
        let changeset = ChangesetCodec.encode(
            Changeset(clientVersion: 1, basedOnServerVersion: 0, clock: .zero, clientFileID: 1, instructions: []))
        assertRefused(SyncMessageCodec.decode, changeset, .badSyntax, naming: "bad magic")
        assertRefused(SyncValueCodec.decode, changeset, naming: "bad magic")
    }

    func testOtherInvalidFieldsAreRefused() {
        assertRefused(
            ChangesetCodec.decode,
            changesetBytes {
                $0.byte(InstructionTag.set.rawValue)
                $0.varint(0)
                $0.byte(PrimaryKeyTag.null.rawValue)
                $0.varint(0)
                $0.byte(0)
            }, naming: "empty path in a set")
        assertRefused(
            SyncValueCodec.decode,
            valueBytes {
                $0.byte(ValueTag.date.rawValue)
                $0.zigzag(5)
                $0.zigzag(-1)
            },
            naming: "invalid date")
        assertRefused(
            SyncValueCodec.decode, valueBytes { $0.byte(ValueTag.true.rawValue + 40) }, naming: "bad value tag")
        let error = SyncMessageCodec.encode(.error(session: 1, code: .badSyntax, message: "", tryAgain: true))
        var badCode = error
        badCode[6] = 1  // error code 103 → 1 (its low varint byte)
        assertRefused(SyncMessageCodec.decode, badCode, .badSyntax, naming: "unknown error code")
        var badBool = error
        badBool[badBool.count - 1] = 2
        assertRefused(SyncMessageCodec.decode, badBool, .badSyntax, naming: "bad boolean 2 for tryAgain")
    }

    func testRandomPayloadsAfterEveryValueTagDecodeOrAreRefused() {
        var random = SplitMix64(seed: 77)
        for _ in 0..<20_000 {
            let tag = UInt8(truncatingIfNeeded: random.next() % 16)
            let payload = (0..<Int(random.next() % 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let bytes = valueBytes {
                $0.byte(tag)
                $0.fixed(payload)
            }
            do {
                let value = try SyncValueCodec.decode(bytes)
                XCTAssertEqual(try SyncValueCodec.decode(SyncValueCodec.encode(value)), value)
            } catch let error as SyncError {
                XCTAssertEqual(error.code, .badChangeset)
            } catch {
                XCTFail("not a SyncError: \(error)")
            }
        }
    }

    func testAMalformedChangesetInsideAMessageIsABadChangeset() {
        let changeset = Changeset(
            clientVersion: 1, basedOnServerVersion: 0, clock: .zero, clientFileID: 1, instructions: [.erase(dog)])
        var bytes = SyncMessageCodec.encode(.upload(session: 1, changesets: [changeset]))
        let tagAt = bytes.count - 4  // tag, class index, key tag, key
        XCTAssertEqual(bytes[tagAt], InstructionTag.erase.rawValue)
        bytes[tagAt] = 77
        assertRefused(SyncMessageCodec.decode, bytes, .badChangeset, naming: "bad instruction tag 77")
    }
}
