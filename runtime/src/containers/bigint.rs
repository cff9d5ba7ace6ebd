//! `ffi.BigInt` value operations the runtime needs beyond storage: ordering, decimal text, and
//! the type attributes Apache registers for the type (`__ffi_hash__`, `__ffi_eq__`,
//! `__ffi_compare__`, `__data_to_json__`, `__data_from_json__`).

use crate::abi::TVMFFIAny;
use crate::tindex;
use crate::value::any::{byte_array_slice, Any};
use crate::value::error::Error;
use std::fmt::Write;

/// The two's-complement words of an Int or BigInt, least significant first.
///
/// # Safety
/// `value` is an Int or a live BigInt.
unsafe fn words(value: &TVMFFIAny) -> Vec<i64> {
    byte_array_slice(&crate::value::string::bigint_words(value))
        .chunks_exact(8)
        .map(|w| i64::from_ne_bytes(w.try_into().expect("8 bytes")))
        .collect()
}

/// Three-way comparison of two Int-or-BigInt values by value (-1, 0, 1).
///
/// # Safety
/// Both are Int values or live BigInts.
pub unsafe fn compare(lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> i32 {
    let (a, b) = (words(lhs), words(rhs));
    let negative = |w: &[i64]| w.last().is_some_and(|top| *top < 0);
    if negative(&a) != negative(&b) {
        return if negative(&a) { -1 } else { 1 };
    }
    let extend = |w: &[i64], i: usize| {
        w.get(i)
            .map_or(if negative(w) { u64::MAX } else { 0 }, |v| *v as u64)
    };
    for i in (0..a.len().max(b.len())).rev() {
        let (x, y) = (extend(&a, i), extend(&b, i));
        if x != y {
            return if x > y { 1 } else { -1 };
        }
    }
    0
}

/// Apache's `BigInt::hash`: an Int hashes to its value, a BigInt to the stable hash of its words.
///
/// # Safety
/// `value` is an Int or a live BigInt.
unsafe fn value_hash(value: &TVMFFIAny) -> u64 {
    if value.type_index == tindex::INT {
        value.value.v_uint64
    } else {
        crate::value::hash::stable_hash_bytes(byte_array_slice(
            &crate::value::string::bigint_words(value),
        ))
    }
}

/// Parses a whole decimal integer (optional sign, at least one digit, nothing else), as
/// Apache's `__data_from_json__` of `ffi.BigInt` accepts it.
pub fn parse_decimal(text: &[u8]) -> Option<Any> {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Magnitude in little-endian u64 limbs, nine digits at a time.
    let mut limbs: Vec<u64> = vec![0];
    for chunk in digits.chunks(9) {
        let scale = 10u64.pow(chunk.len() as u32);
        let mut carry = chunk
            .iter()
            .fold(0u64, |acc, d| acc * 10 + (d - b'0') as u64) as u128;
        for limb in &mut limbs {
            let v = *limb as u128 * scale as u128 + carry;
            *limb = v as u64;
            carry = v >> 64;
        }
        if carry != 0 {
            limbs.push(carry as u64);
        }
    }
    // One more limb keeps the sign bit clear before negation.
    limbs.push(0);
    if negative {
        let mut carry = 1u128;
        for limb in &mut limbs {
            let v = (!*limb) as u128 + carry;
            *limb = v as u64;
            carry = v >> 64;
        }
    }
    let words: Vec<i64> = limbs.into_iter().map(|l| l as i64).collect();
    Some(crate::value::string::bigint_any(&words))
}

fn bigint_arg(args: &[TVMFFIAny], i: usize) -> Result<&TVMFFIAny, Error> {
    match args.get(i) {
        Some(v) if v.type_index == tindex::INT || v.type_index == tindex::BIG_INT => Ok(v),
        Some(v) => Err(Error::new(
            "TypeError",
            format!(
                "Cannot convert from type `{}` to `ffi.BigInt`",
                crate::registry::types::type_key_of(v.type_index)
            ),
        )),
        None => Err(Error::new("TypeError", "missing BigInt argument")),
    }
}

/// The type attributes of `ffi.BigInt` that Apache's runtime registers, as `(column, Function)`.
pub fn type_attrs() -> Vec<(&'static [u8], Any)> {
    let function = |f: fn(&[TVMFFIAny]) -> Result<Any, Error>| {
        Any::object(crate::value::function::from_closure(f))
    };
    vec![
        (
            &b"__ffi_eq__"[..],
            // SAFETY (all hooks): arguments checked to be Int or BigInt values.
            function(|args| unsafe {
                Ok(Any::bool(
                    compare(bigint_arg(args, 0)?, bigint_arg(args, 1)?) == 0,
                ))
            }),
        ),
        (
            b"__ffi_compare__",
            function(|args| unsafe {
                Ok(Any::int(
                    compare(bigint_arg(args, 0)?, bigint_arg(args, 1)?) as i64,
                ))
            }),
        ),
        (
            b"__ffi_hash__",
            function(|args| unsafe { Ok(Any::int(value_hash(bigint_arg(args, 0)?) as i64)) }),
        ),
        (
            b"__data_to_json__",
            function(|args| Ok(Any::string(decimal(bigint_arg(args, 0)?)))),
        ),
        (
            b"__data_from_json__",
            function(|args| {
                let text = args
                    .first()
                    // SAFETY: arguments are valid views.
                    .and_then(|v| unsafe { crate::value::string::str_bytes(v) })
                    .ok_or_else(|| Error::new("TypeError", "ffi.BigInt data must be a string"))?;
                parse_decimal(text).ok_or_else(|| {
                    Error::new("ValueError", "Invalid decimal string for ffi.BigInt")
                })
            }),
        ),
    ]
}

/// A BigInt (or Int) in decimal.
pub(crate) fn decimal(value: &TVMFFIAny) -> String {
    // SAFETY: callers pass Int or BigInt values.
    let words = unsafe { crate::value::string::bigint_words(value) };
    let bytes = unsafe { byte_array_slice(&words) };
    let words: Vec<i64> = bytes
        .chunks_exact(8)
        .map(|w| i64::from_ne_bytes(w.try_into().expect("8 bytes")))
        .collect();
    let negative = words.last().is_some_and(|w| *w < 0);
    // Magnitude as little-endian u32 limbs.
    let mut limbs: Vec<u32> = words
        .iter()
        .flat_map(|w| [*w as u64 as u32, (*w as u64 >> 32) as u32])
        .collect();
    if negative {
        // Two's complement negation.
        let mut carry = 1u64;
        for limb in &mut limbs {
            let v = (!*limb) as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
    }
    let mut digits = Vec::new();
    while limbs.iter().any(|l| *l != 0) {
        let mut rem = 0u64;
        for limb in limbs.iter_mut().rev() {
            let cur = (rem << 32) | *limb as u64;
            *limb = (cur / 1_000_000_000) as u32;
            rem = cur % 1_000_000_000;
        }
        digits.push(rem as u32);
    }
    let mut out = String::from(if negative { "-" } else { "" });
    match digits.split_last() {
        None => out.push('0'),
        Some((top, rest)) => {
            let _ = write!(out, "{top}");
            for d in rest.iter().rev() {
                let _ = write!(out, "{d:09}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_round_trips() {
        for text in [
            "0",
            "-1",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775809",
            "340282366920938463463374607431768211456",
            "-340282366920938463463374607431768211456",
        ] {
            let value = parse_decimal(text.as_bytes()).unwrap();
            assert_eq!(decimal(value.as_raw()), text);
        }
        assert_eq!(decimal(parse_decimal(b"+007").unwrap().as_raw()), "7");
        for bad in ["", "-", "+", "1 ", " 1", "1e3", "0x10"] {
            assert!(parse_decimal(bad.as_bytes()).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn compares_across_int_and_bigint() {
        let big = parse_decimal(b"18446744073709551616").unwrap();
        let neg = parse_decimal(b"-18446744073709551616").unwrap();
        let five = Any::int(5);
        unsafe {
            assert_eq!(compare(big.as_raw(), five.as_raw()), 1);
            assert_eq!(compare(neg.as_raw(), five.as_raw()), -1);
            assert_eq!(compare(neg.as_raw(), big.as_raw()), -1);
            assert_eq!(compare(big.as_raw(), big.as_raw()), 0);
        }
    }
}
