/// The fixed hash behind the assignment of users to hosts (`HostCluster`). Every machine must compute the
/// same answer for ever, so it is spelled out here rather than taken from Swift's `Hasher` (seeded per
/// process):
///
///     weight(host, user) = mix64(FNV-1a-64(UTF-8(host) ‖ 0x00 ‖ UTF-8(user)))
///
/// FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3) reads every byte; `mix64` is
/// MurmurHash3's 64-bit finalizer. The finalizer is there because FNV-1a's last multiplication
/// moves a change in the last bytes only into the bits above it: without it, hosts whose names
/// differ only at the end ("host1", "host2") would have weights ordered by too few bits.
/// Changing any of this moves users between hosts: it is part of the on-disk contract.
enum ClusterHash {
    static let fnvOffsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let fnvPrime: UInt64 = 0x0000_0100_0000_01b3

    /// FNV-1a 64 of a byte sequence.
    static func fnv1a64<Bytes: Sequence<UInt8>>(_ bytes: Bytes, from start: UInt64 = fnvOffsetBasis) -> UInt64 {
        var hash = start
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* fnvPrime
        }
        return hash
    }

    /// MurmurHash3's fmix64: every input bit reaches every output bit.
    static func mix64(_ value: UInt64) -> UInt64 {
        var k = value
        k ^= k >> 33
        k = k &* 0xff51_afd7_ed55_8ccd
        k ^= k >> 33
        k = k &* 0xc4ce_b9fe_1a85_ec53
        k ^= k >> 33
        return k
    }

    /// A host's weight for a user: the user goes to the host with the highest weight.
    static func weight(host: String, user: String) -> UInt64 {
        // The zero byte keeps ("ab", "c") and ("a", "bc") apart: neither name may contain it.
        let hostAndSeparator = fnv1a64(CollectionOfOne(0), from: fnv1a64(host.utf8))
        return mix64(fnv1a64(user.utf8, from: hostAndSeparator))
    }
}
