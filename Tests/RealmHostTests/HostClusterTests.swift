import Foundation
import RealmHost
import XCTest

/// Users spread over hosts by rendezvous hashing (`HostCluster`): the documented hash, computed here
/// by a reference implementation of its own; how few users move when a host joins or leaves.
final class HostClusterTests: XCTestCase {
    /// The documented hash, written out independently of `ClusterHash`: FNV-1a 64 over
    /// host ‖ 0x00 ‖ user, then MurmurHash3's fmix64; the highest weight wins.
    enum Reference {
        static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
            var h: UInt64 = 14_695_981_039_346_656_037
            for b in bytes { h = (h ^ UInt64(b)).multipliedReportingOverflow(by: 1_099_511_628_211).partialValue }
            return h
        }

        static func fmix(_ value: UInt64) -> UInt64 {
            var k = value
            k = (k ^ (k >> 33)).multipliedReportingOverflow(by: 0xFF51_AFD7_ED55_8CCD).partialValue
            k = (k ^ (k >> 33)).multipliedReportingOverflow(by: 0xC4CE_B9FE_1A85_EC53).partialValue
            return k ^ (k >> 33)
        }

        static func host(for user: String, among hosts: [String]) -> String? {
            hosts.max { a, b in
                let wa = fmix(fnv1a(Array(a.utf8) + [0] + Array(user.utf8)))
                let wb = fmix(fnv1a(Array(b.utf8) + [0] + Array(user.utf8)))
                return wa != wb ? wa < wb : b.utf8.lexicographicallyPrecedes(a.utf8)
            }
        }
    }

    let names = (0..<10_000).map { "user\($0)" }

    func testTheReferenceIsFNV1aByItsPublishedVectors() {
        XCTAssertEqual(Reference.fnv1a([]), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(Reference.fnv1a(Array("a".utf8)), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(Reference.fnv1a(Array("foobar".utf8)), 0x8594_4171_f739_67e8)
    }

    /// Fixed answers (worked out once outside Swift, with the same recipe): if these change, users
    /// would move between machines on an upgrade.
    func testAssignmentsAreTheDocumentedOnes() throws {
        let abc = try HostCluster(hosts: ["a", "b", "c"], selfName: nil)
        let expected = [
            "alice": "c", "bob": "a", "carol": "c", "dave": "c", "erin": "c", "frank": "c", "grace": "b",
            "heidi": "c", "ivan": "a", "judy": "c", "mallory": "b", "default": "b", "zoë": "a",
        ]
        for (user, host) in expected { XCTAssertEqual(abc.host(for: user), host, user) }
        let four = try HostCluster(hosts: ["hostA", "hostB", "hostC", "hostD"], selfName: "hostB")
        let expectedFour = [
            "alice": "hostB", "bob": "hostC", "dave": "hostD", "grace": "hostA", "judy": "hostA",
            "mallory": "hostD", "zoë": "hostD",
        ]
        for (user, host) in expectedFour { XCTAssertEqual(four.host(for: user), host, user) }
        XCTAssertTrue(four.servesHere("alice"))
        XCTAssertFalse(four.servesHere("bob"))
    }

    func testEveryNameGoesWhereTheReferenceSendsItWhateverTheHostOrder() throws {
        let hosts = ["alpha", "beta", "gamma", "delta", "host1", "host2"]
        let cluster = try HostCluster(hosts: hosts, selfName: nil)
        let reversed = try HostCluster(hosts: hosts.reversed(), selfName: nil)
        for user in names.prefix(2_000) {
            let host = cluster.host(for: user)
            XCTAssertEqual(host, Reference.host(for: user, among: hosts), user)
            XCTAssertEqual(reversed.host(for: user), host, user)
        }
    }

    func testUsersSpreadEvenlyOverTheHosts() throws {
        let cluster = try HostCluster(hosts: ["host1", "host2", "host3", "host4"], selfName: nil)
        let counts = Dictionary(grouping: names, by: cluster.host(for:)).mapValues(\.count)
        XCTAssertEqual(counts.count, 4)
        for (host, count) in counts { XCTAssertTrue(abs(count - 2_500) < 200, "\(host): \(count) of 10000") }
    }

    /// Rendezvous hashing's promise: a new host takes about 1/N of the users, and nobody else moves.
    func testAddingAHostMovesAboutOneNthOfTheUsersAllToTheNewHost() throws {
        let three = try HostCluster(hosts: ["a", "b", "c"], selfName: nil)
        let four = try HostCluster(hosts: ["a", "b", "c", "d"], selfName: nil)
        var moved = 0
        for user in names where three.host(for: user) != four.host(for: user) {
            moved += 1
            XCTAssertEqual(four.host(for: user), "d", "\(user) moved between old hosts")
        }
        let fraction = Double(moved) / Double(names.count)
        XCTAssertEqual(fraction, 0.25, accuracy: 0.02, "\(moved) of \(names.count) moved")
    }

    func testRemovingAHostMovesOnlyItsUsers() throws {
        let four = try HostCluster(hosts: ["a", "b", "c", "d"], selfName: nil)
        let three = try HostCluster(hosts: ["a", "b", "d"], selfName: nil)
        for user in names where four.host(for: user) != "c" {
            XCTAssertEqual(three.host(for: user), four.host(for: user), user)
        }
    }

    func testBadClustersAreRefusedNamingWhatIsWrong() {
        func message(_ hosts: [String], _ selfName: String? = nil) -> String {
            do {
                _ = try HostCluster(hosts: hosts, selfName: selfName)
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(message([]), "the cluster lists no hosts")
        XCTAssertEqual(message(["a", "b", "a"]), "the cluster lists host 'a' twice")
        XCTAssertEqual(message(["a", ""]), "invalid cluster host name '': it is empty")
        XCTAssertEqual(message(["a b"]), "invalid cluster host name 'a b': it contains whitespace")
        XCTAssertEqual(message(["a,b"]), "invalid cluster host name 'a,b': it contains a comma")
        XCTAssertTrue(message([String(repeating: "h", count: 256)]).contains("longer than 255 bytes"))
        XCTAssertEqual(message(["a", "b"], "c"), "this host 'c' is not one of the cluster's hosts (a, b)")
        XCTAssertThrowsError(try HostClusterOptions(hosts: nil, selfName: "a").resolved()) { error in
            XCTAssertTrue("\(error)".contains("no cluster hosts are listed"), "\(error)")
        }
        XCTAssertNil(try HostClusterOptions().resolved())
    }
}
