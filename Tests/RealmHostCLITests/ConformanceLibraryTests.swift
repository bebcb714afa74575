import Foundation
import XCTest

/// SyncStoreConformance's cases are Swift Testing's: an `XCTAssert` inside a `@Test` records nothing
/// and passes (and a `#expect` inside an XCTest method likewise), so the library holds no XCTest
/// assertion, and its helpers shared with the XCTest targets fail by throwing. No test file is
/// reached through a symbolic link any more (each case runs on both stores instead).
final class ConformanceLibraryTests: XCTestCase {
    func testTheConformanceLibraryAssertsOnlyWithSwiftTesting() throws {
        let folder = CLI.repository.appendingPathComponent("Tests/SyncStoreConformance")
        let assertion = try NSRegularExpression(pattern: #"\bXCT(Assert\w*|Fail|Unwrap|Expect\w*)\b"#)
        var found: [String] = []
        for file in try Self.swiftFiles(under: folder) {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }  // Comments may name them.
                if assertion.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        XCTAssertFalse(try Self.swiftFiles(under: folder).isEmpty, "the library is at \(folder.path)")
        XCTAssertEqual(found, [], "XCTest assertions pass silently in a @Test:\n" + found.joined(separator: "\n"))
    }

    func testNoTestFileIsASymbolicLink() throws {
        let tests = CLI.repository.appendingPathComponent("Tests")
        let links = try Self.swiftFiles(under: tests).filter { file in
            let attributes = try? FileManager.default.attributesOfItem(atPath: tests.appendingPathComponent(file).path)
            return attributes?[.type] as? FileAttributeType == .typeSymbolicLink
        }
        XCTAssertEqual(links, [], "a case shared by two stores belongs in SyncStoreConformance")
    }

    private static func swiftFiles(under folder: URL) throws -> [String] {
        (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".swift") }.sorted()
    }
}
