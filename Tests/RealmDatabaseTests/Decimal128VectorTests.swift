import Foundation
import XCTest

@testable import RealmDatabase

/// Decimal128 against Python's `decimal` module in a decimal128 context: the vectors in
/// Tests/Decimal128Vectors/vectors.tsv were generated (seeded) by generate.py beside them.
final class Decimal128VectorTests: XCTestCase {
    private static func vectors() throws -> [[String]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Decimal128Vectors/vectors.tsv")
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    private func decimal(_ s: String, file: StaticString = #filePath, line: UInt = #line) throws -> Decimal128 {
        try XCTUnwrap(Decimal128(string: s), "'\(s)' does not parse", file: file, line: line)
    }

    func testVectorsMatchPythonDecimal() throws {
        let vectors = try Self.vectors()
        XCTAssertGreaterThan(vectors.count, 5000)
        var failures: [String] = []
        for v in vectors {
            guard let got = try result(of: v) else { continue }
            if got != v.last { failures.append("\(v.joined(separator: " ")) → got \(got)") }
        }
        XCTAssertEqual(failures.count, 0, failures.prefix(20).joined(separator: "\n"))
    }

    /// The text the Swift side computes for one vector line.
    private func result(of v: [String]) throws -> String? {
        switch v[0] {
        case "parse": return try decimal(v[1]).description
        case "double":
            let bits = try XCTUnwrap(UInt64(v[1], radix: 16))
            return Decimal128(Double(bitPattern: bits)).description
        case "add": return try (decimal(v[1]) + decimal(v[2])).description
        case "sub": return try (decimal(v[1]) - decimal(v[2])).description
        case "mul": return try (decimal(v[1]) * decimal(v[2])).description
        case "div": return try (decimal(v[1]) / decimal(v[2])).description
        case "divint": return try decimal(v[1]).divided(by: XCTUnwrap(Int64(v[2]))).description
        case "cmp": return try String(decimal(v[1]).compare(decimal(v[2])))
        default:
            XCTFail("unknown vector \(v)")
            return nil
        }
    }

    /// The printed text parses back to the same value, and the stored bytes decode to it and sort
    /// as the values do.
    func testRoundTripsThroughTextAndStoredBytes() throws {
        let values = try Self.vectors().filter { $0[0] == "parse" }.map { try decimal($0[2]) }
        for d in values {
            XCTAssertEqual(try decimal(d.description), d)
            XCTAssertEqual(Decimal128(storedBytes: d.storedBytes), d, "\(d)")
        }
        let byValue = values.sorted()
        let byBytes = values.sorted { $0.storedBytes.lexicographicallyPrecedes($1.storedBytes) }
        XCTAssertEqual(byValue, byBytes)
    }
}
