import Foundation
import RealmServe
import XCTest

/// `docs/openapi.yaml` describes every route the server has: each path of the routing tables, with
/// each of its methods. (The shapes of the answers are checked against it by the schemathesis run of
/// docs/RELIABILITY.md.)
final class OpenAPITests: XCTestCase {
    func testEveryRouteIsInTheDocument() throws {
        let document = try String(
            contentsOf: ServeFixture.repository.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let operations = Self.operations(in: document)
        let routes =
            ServeHost.appRoutes.map { ($0.method.lowercased(), $0.path) }
            + ServeHost.adminRoutes.map { ("get", $0) }
        for (method, path) in routes {
            // Hummingbird's `:name` is OpenAPI's `{name}`.
            let documented = path.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            XCTAssertTrue(
                operations[documented]?.contains(method) == true,
                "\(method.uppercased()) \(documented) is served but not in docs/openapi.yaml")
        }
        XCTAssertEqual(
            operations.values.map(\.count).reduce(0, +), routes.count,
            "the document describes a route not served: \(operations)")
    }

    /// The methods under each path of the document's `paths:` (two-space path keys, four-space methods).
    static func operations(in document: String) -> [String: Set<String>] {
        var result = [String: Set<String>]()
        var current: String?
        var inPaths = false
        let methods: Set<String> = ["get", "post", "put", "patch", "delete"]
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.hasPrefix(" ") && !line.isEmpty { break }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let current,
                case let key = line.trimmingCharacters(in: .whitespaces), key.hasSuffix(":"),
                methods.contains(String(key.dropLast()))
            {
                result[current, default: []].insert(String(key.dropLast()))
            }
        }
        return result
    }
}
