import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A failed connection attempt in the project's words: what happened, with which server, and when
/// the next attempt is, instead of the networking library's nested error values.
enum ConnectionFailure {
    /// `error` from connecting to `url` (`ws://HOST:PORT/sync`).
    static func describe(_ error: any Error, url: String) -> String {
        switch error {
        case let failure as NIOConnectionError:
            return describe(failure, url: url)
        case ChannelError.connectTimeout(let limit):
            return "timed out connecting to \(url) (no answer within \(limit.nanoseconds / 1_000_000_000) s)"
        case let io as IOError:
            return "lost the connection to \(url): \(reason(io.errnoCode))"
        case let timeout as HandshakeTimeout:
            return "\(timeout)"
        default:
            return "cannot connect to \(url): \(error)"
        }
    }

    private static func describe(_ failure: NIOConnectionError, url: String) -> String {
        let target = "\(failure.host):\(failure.port)"
        if failure.dnsAError != nil || failure.dnsAAAAError != nil {
            return "cannot find the host \(failure.host) of \(url) (its name does not resolve)"
        }
        let codes = failure.connectionErrors.compactMap { ($0.error as? IOError)?.errnoCode }
        if codes.contains(ECONNREFUSED) {
            return "connection refused by \(target): no sync server listens at \(url)"
        }
        if codes.contains(ETIMEDOUT) { return "timed out connecting to \(target) (\(url))" }
        if codes.contains(EHOSTUNREACH) || codes.contains(ENETUNREACH) {
            return "\(target) is unreachable from here (\(url))"
        }
        if let code = codes.first { return "cannot connect to \(target) (\(url)): \(reason(code))" }
        return "cannot connect to \(target) (\(url))"
    }

    /// The system's words for an errno, lower-cased as a clause.
    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }

    /// The local time of `date` as HH:MM:SS, for "next try at …".
    static func clockTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
