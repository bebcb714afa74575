import CZlib

/// zlib's one-shot deflate and inflate over byte arrays (RFC 1950 streams, as realm-core sends).
enum Deflate {
    /// `bytes` deflated at the fastest level: frames go out as soon as a commit is made, so latency
    /// matters more than the last percent of size. Nil when zlib fails (it does not on valid input).
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        guard let sourceLength = uLong(exactly: bytes.count) else { return nil }
        var destinationLength = compressBound(sourceLength)
        guard let capacity = Int(exactly: destinationLength) else { return nil }
        var output = [UInt8](repeating: 0, count: capacity)
        let status = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                compress2(out.baseAddress, &destinationLength, input.baseAddress, sourceLength, Z_BEST_SPEED)
            }
        }
        guard status == Z_OK, let written = Int(exactly: destinationLength) else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// `bytes` inflated, which must be one whole stream of exactly `expectedLength` bytes with
    /// nothing after it. Throws `WireError(.badDeflate)` naming what zlib found.
    static func decompress(_ bytes: [UInt8], expectedLength: Int) throws -> [UInt8] {
        // One byte more than expected: a stream that fills it says more than the head, while one
        // that stops short of the end without filling it was cut.
        guard let sourceCapacity = uLong(exactly: bytes.count), let capacity = uLong(exactly: expectedLength),
            expectedLength < Int.max
        else {
            throw WireError(.badDeflate, "lengths out of range")
        }
        var sourceLength = sourceCapacity
        var destinationLength = capacity + 1
        var output = [UInt8](repeating: 0, count: expectedLength + 1)
        let status = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                uncompress2(out.baseAddress, &destinationLength, input.baseAddress, &sourceLength)
            }
        }
        switch status {
        case Z_OK: break
        case Z_BUF_ERROR where destinationLength > capacity:
            throw WireError(.badDeflate, "the body inflates to more than the \(expectedLength) bytes the head says")
        case Z_BUF_ERROR, Z_DATA_ERROR:
            // uncompress2 reports a stream cut short as a data error too.
            throw WireError(.badDeflate, "the deflate stream is corrupt or truncated (\(bytes.count) bytes)")
        default:
            throw WireError(.badDeflate, "zlib failed with status \(status)")
        }
        guard sourceLength == sourceCapacity else {
            throw WireError(.badDeflate, "\(sourceCapacity - sourceLength) bytes follow the end of the deflate stream")
        }
        guard destinationLength == capacity else {
            throw WireError(
                .badDeflate, "the body inflates to \(destinationLength) bytes, the head says \(expectedLength)")
        }
        output.removeSubrange(expectedLength...)
        return output
    }
}
