//! Hash functions whose exact values are part of the TVM-FFI ABI.
//!
//! Hash values cross the library boundary: Apache's headers (compiled into extension modules and
//! the Python bindings) compute them inline and compare them with values this runtime stores, so
//! every function here must agree bit for bit with its C++ counterpart.

/// Seed libstdc++ passes to `_Hash_bytes` for `std::hash<std::string>` / `std::string_view`.
const LIBSTDCXX_STRING_SEED: u64 = 0xc70f_6907;

/// `TVMFFITypeInfo::type_key_hash` of a type key.
///
/// Apache fills this field with `std::hash<std::string_view>` from libstdc++, i.e. the 64-bit
/// `std::_Hash_bytes(key, len, 0xc70f6907)` (a MurmurHash2-64A variant). Code compiled against
/// Apache's headers reads the field back and compares it with hashes it computes itself, so the
/// value has to be the one libstdc++ produces on this platform (words are loaded in native byte
/// order, exactly as libstdc++'s unaligned load does).
pub fn type_key_hash(key: &[u8]) -> u64 {
    libstdcxx_hash_bytes(key, LIBSTDCXX_STRING_SEED)
}

/// A well-mixed 64-bit hash of bytes for this runtime's private use (never stored in an object):
/// it tells apart strings whose [`stable_hash_bytes`] collide, which that hash does often for
/// strings that differ in a few digits.
pub fn fingerprint_bytes(data: &[u8]) -> u64 {
    libstdcxx_hash_bytes(data, 0x9e37_79b9_7f4a_7c15)
}

/// libstdc++'s `std::_Hash_bytes` for a 64-bit `size_t`.
fn libstdcxx_hash_bytes(data: &[u8], seed: u64) -> u64 {
    const MUL: u64 = (0xc6a4_a793_u64 << 32) + 0x5bd1_e995;
    let shift_mix = |v: u64| v ^ (v >> 47);

    let mut hash = seed ^ (data.len() as u64).wrapping_mul(MUL);
    let mut words = data.chunks_exact(8);
    for word in &mut words {
        let word = u64::from_ne_bytes(word.try_into().expect("chunk of 8 bytes"));
        let mixed = shift_mix(word.wrapping_mul(MUL)).wrapping_mul(MUL);
        hash ^= mixed;
        hash = hash.wrapping_mul(MUL);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        // libstdc++ assembles the 1..=7 trailing bytes arithmetically, first byte lowest, so
        // this part does not depend on the byte order of the machine.
        let data = tail
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        hash ^= data;
        hash = hash.wrapping_mul(MUL);
    }
    hash = shift_mix(hash).wrapping_mul(MUL);
    shift_mix(hash)
}

/// Apache's `tvm::ffi::details::StableHashBytes`: the platform-independent hash of a byte string.
///
/// `AnyHash` uses it for string and bytes keys of `Map`/`Dict` (small strings included: their
/// inline hash `v_uint64 % (2^31 - 1)` equals this function on the same bytes). Hash tables are
/// built on one side of the ABI and probed on the other, so the value must match Apache's inline
/// header code exactly. Bytes are read as little-endian 64-bit words on every platform, and the
/// trailing 1..=7 bytes are zero-padded into one last word.
pub fn stable_hash_bytes(data: &[u8]) -> u64 {
    const MULTIPLIER: u64 = 1_099_511_628_211;
    let step = |acc: u64, word: u64| mod_2p31m1(acc.wrapping_mul(MULTIPLIER).wrapping_add(word));

    let mut result = 0u64;
    let mut words = data.chunks_exact(8);
    for word in &mut words {
        result = step(
            result,
            u64::from_le_bytes(word.try_into().expect("chunk of 8 bytes")),
        );
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut padded = [0u8; 8];
        padded[..tail.len()].copy_from_slice(tail);
        result = step(result, u64::from_le_bytes(padded));
    }
    result
}

/// `x % (2^31 - 1)`, the modulus of Apache's string hashes, computed by folding (2^31 is 1
/// modulo 2^31 - 1, so the high bits add to the low ones) instead of a multiply-and-shift
/// division: fewer instructions on the hash of every string key.
#[inline]
pub fn mod_2p31m1(x: u64) -> u64 {
    const MODULUS: u64 = (1 << 31) - 1;
    let folded = (x & MODULUS) + (x >> 31); // < 2^31 + 2^33
    let folded = (folded & MODULUS) + (folded >> 31); // < 2^31 + 8 < 2 * MODULUS
    if folded >= MODULUS {
        folded - MODULUS
    } else {
        folded
    }
}

/// Apache's `tvm::ffi::details::StableHashCombine`: mixes `value` into the running hash `key`.
///
/// Used by `AnyHash` (type index combined with the payload hash) and by structural hashing; like
/// [`stable_hash_bytes`] it must agree with Apache's inline header code so that hashes computed
/// on either side of the ABI can be compared.
pub fn stable_hash_combine(key: u64, value: u64) -> u64 {
    key ^ value
        .wrapping_add(0x9e37_79b9)
        .wrapping_add(key << 6)
        .wrapping_add(key >> 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_modulus_is_the_remainder() {
        let edges = [
            0,
            1,
            (1 << 31) - 2,
            (1 << 31) - 1,
            1 << 31,
            (1 << 32) - 1,
            u64::MAX,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let spread = (0..100_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        });
        for v in edges.into_iter().chain(spread) {
            assert_eq!(mod_2p31m1(v), v % 2_147_483_647, "{v}");
            // Multiples of the modulus and their neighbours.
            let m = (v >> 33) * 2_147_483_647;
            for w in [m, m + 1, m.wrapping_sub(1)] {
                assert_eq!(mod_2p31m1(w), w % 2_147_483_647, "{w}");
            }
        }
    }

    /// (key, std::hash<std::string_view>, StableHashBytes), as computed by libstdc++ (g++) and by
    /// Apache TVM-FFI 0.1.15.post2's `base_detail.h` on x86-64.
    const CASES: &[(&[u8], u64, u64)] = &[
        (b"", 6142509188972423790, 0),
        (b"a", 4993892634952068459, 97),
        (b"ab", 5498234120169091963, 25185),
        (b"abc", 3663726644998027833, 6513249),
        (b"abcd", 16030370620903852840, 1684234849),
        (b"abcde", 811036730794841393, 1684235051),
        (b"abcdef", 2505003294258116183, 1684287275),
        (b"abcdefg", 16063891478991045295, 1697787691),
        (b"abcdefgh", 8664279048047335611, 892481325),
        (b"abcdefghi", 13036955925923793583, 1218741397),
        (b"int", 12597418120160561823, 7630441),
        (b"ffi.String", 11312986287260453238, 1420744765),
        (b"ffi.Object", 3720555700325843206, 16357759),
        (b"object.Object", 10797482254733081075, 1570809807),
        (b"ffi.Function", 12948442202541698621, 1099750893),
        (b"ffi.Map", 7398549699555670134, 793389312),
        (b"ffi.Array", 9300778484448642049, 614407654),
        (b"abcdefghijklmno", 14639152421998547408, 904842096),
        (b"abcdefghijklmnop", 9002761040096737846, 367971186),
        (b"abcdefghijklmnopq", 16399385603263873375, 576362357),
        (
            b"testing.TestObjectDerived",
            12724439231983188387,
            570294330,
        ),
        (b"testing.TestObjectBase", 8362840142874900748, 633379102),
        (
            b"caf\xc3\xa9 \xe2\x82\xac\xff\x80",
            8727781106181097594,
            691597133,
        ),
        (b"a\x00b\x00c", 15162014213079990535, 6422823),
        (b"0", 2297668033614959926, 48),
        (b"01", 16939277104541601477, 12592),
        (b"012", 2304781960727645431, 3289392),
        (b"0123", 4922773860975567173, 858927408),
        (b"01234", 14732337111476466123, 858927512),
        (b"012345", 3668540621198804444, 858954648),
        (b"0123456", 6249936723022911255, 866032536),
        (b"01234567", 17577775539208015928, 564042649),
        (b"012345678", 9289850649958642363, 1572444071),
        (b"0123456789", 15068358565474034197, 1572458663),
        (b"0123456789a", 14857173059718877620, 1578815655),
        (b"0123456789ab", 12248184482977179292, 1075499176),
        (b"0123456789abc", 13233390238734701476, 1075499374),
        (b"0123456789abcd", 15991909707842833429, 1075550574),
        (b"0123456789abcde", 9495164986409083211, 1088788846),
        (b"0123456789abcdef", 10613591747391057286, 216373612),
        (b"0123456789abcdefg", 2203838674469644272, 894864154),
        (b"0123456789abcdefgh", 1927629762875750440, 894890778),
        (b"0123456789abcdefghi", 15839062770461645537, 901772058),
        (b"0123456789abcdefghij", 4716142259119720602, 532673307),
        (b"\x80\x86\x8c", 93391497876214937, 9209472),
        (
            b"\x80\x86\x8c\x92\x98\x9e\xa4\xaa",
            9297548031471492637,
            1742062515,
        ),
        (
            b"\x80\x86\x8c\x92\x98\x9e\xa4\xaa\xb0\xb6\xbc\xc2\xc8",
            13941491996491896591,
            1585424590,
        ),
        (
            b"\x80\x86\x8c\x92\x98\x9e\xa4\xaa\xb0\xb6\xbc\xc2\xc8\xce\xd4\xda\xe0\xe6\xec\xf2",
            4203761412370808334,
            127298865,
        ),
    ];

    #[test]
    fn type_key_hash_matches_libstdcxx() {
        for &(key, expected, _) in CASES {
            assert_eq!(
                type_key_hash(key),
                expected,
                "key {:?}",
                String::from_utf8_lossy(key)
            );
        }
    }

    #[test]
    fn stable_hash_bytes_matches_apache() {
        for &(key, _, expected) in CASES {
            assert_eq!(
                stable_hash_bytes(key),
                expected,
                "key {:?}",
                String::from_utf8_lossy(key)
            );
        }
    }

    #[test]
    fn stable_hash_combine_matches_apache() {
        // (key, value, StableHashCombine(key, value)) from Apache's base_detail.h.
        let cases: &[(u64, u64, u64)] = &[
            (0, 0, 2654435769),
            (1, 2, 2654435834),
            (65, 0, 2654440008),
            (12597418120160561823, 7, 5666942975538904760),
            (u64::MAX, u64::MAX, 13835058052627728008),
            (2654435769, 1, 175247769553),
            (123456789, 987654321, 11655698426),
            (1 << 63, 3, 11529215048722905532),
            (u64::MAX, 97, 13835058052627727910),
        ];
        for &(key, value, expected) in cases {
            assert_eq!(
                stable_hash_combine(key, value),
                expected,
                "combine({key}, {value})"
            );
        }
    }
}
