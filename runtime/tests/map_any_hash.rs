//! Map/Dict key hashing against Apache: `tests/reference/any_hash_table.tsv` holds the AnyHash
//! values that Apache's own header code computes (regenerate with
//! `tests/reference/make_any_hash_table.sh`); every value is rebuilt here with ffihub's runtime
//! and must hash identically, in every representation it can take (small and heap strings and
//! bytes, BigInt with and without the registered hook).

use tvm_ffi::containers::any_hash::{equal_of, hash_of, ANY_EQUAL_ATTR, ANY_HASH_ATTR};
use tvm_ffi::dlpack::{DLDataType, DLDevice};
use tvm_ffi::tindex;
use tvm_ffi::value::any::Any;
use tvm_ffi::value::string::{bigint_any, bytes_any, new_bytes_object, string_any};

struct Row {
    kind: String,
    literal: String,
    hash: u64,
}

fn table() -> Vec<Row> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/reference/any_hash_table.tsv"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    text.lines()
        .map(|line| {
            let mut cols = line.split('\t');
            let (kind, literal, hash) = (cols.next(), cols.next(), cols.next());
            let (Some(kind), Some(literal), Some(hash)) = (kind, literal, hash) else {
                panic!("malformed line {line:?}");
            };
            Row {
                kind: kind.to_string(),
                literal: literal.to_string(),
                hash: hash.parse().expect("hash column"),
            }
        })
        .collect()
}

/// `\\` is a backslash, `\xHH` a byte (the table's encoding).
fn decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
        } else if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'x') && i + 3 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 2..i + 4]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

fn triple(text: &str) -> Vec<i64> {
    text.split(':').map(|p| p.parse().unwrap()).collect()
}

/// Two's-complement little-endian words of a decimal integer.
fn decimal_words(text: &str) -> Vec<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut magnitude: Vec<u64> = vec![0];
    for d in digits.bytes() {
        let mut carry = u128::from(d - b'0');
        for limb in magnitude.iter_mut() {
            let v = u128::from(*limb) * 10 + carry;
            *limb = v as u64;
            carry = v >> 64;
        }
        if carry != 0 {
            magnitude.push(carry as u64);
        }
    }
    magnitude.push(0); // room for the sign
    if negative {
        let mut carry = 1u128;
        for limb in magnitude.iter_mut() {
            let v = u128::from(!*limb) + carry;
            *limb = v as u64;
            carry = v >> 64;
        }
    }
    magnitude.into_iter().map(|w| w as i64).collect()
}

/// Every representation of a row's value in ffihub's runtime.
fn build(row: &Row) -> Vec<Any> {
    let lit = row.literal.as_str();
    match row.kind.as_str() {
        "int" => vec![Any::int(lit.parse().unwrap())],
        "float" => vec![Any::float(lit.parse().unwrap())],
        "bool" => vec![Any::bool(lit == "true")],
        "none" => vec![Any::none()],
        "str" => {
            let raw = decode(lit);
            vec![
                string_any(&raw),
                Any::object(new_bytes_object(tindex::STR, &raw)),
            ]
        }
        "bytes" => {
            let raw = decode(lit);
            vec![
                bytes_any(&raw),
                Any::object(new_bytes_object(tindex::BYTES, &raw)),
            ]
        }
        "dtype" => {
            let t = triple(lit);
            vec![Any::dtype(DLDataType {
                code: t[0] as u8,
                bits: t[1] as u8,
                lanes: t[2] as u16,
            })]
        }
        "device" => {
            let t = triple(lit);
            vec![Any::device(DLDevice {
                device_type: t[0] as i32,
                device_id: t[1] as i32,
            })]
        }
        "bigint" => {
            let value = bigint_any(&decimal_words(lit));
            assert_eq!(value.type_index(), tindex::BIG_INT, "{lit} is a BigInt");
            vec![value]
        }
        other => panic!("unknown kind {other}"),
    }
}

fn check_table() -> usize {
    let rows = table();
    assert!(rows.len() >= 50, "the table has {} values", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        let forms = build(row);
        for (i, value) in forms.iter().enumerate() {
            let ours = hash_of(value).unwrap();
            if ours != row.hash {
                failures.push(format!(
                    "{}\t{} (form {i}, type index {}): ffihub {ours}, Apache {}",
                    row.kind,
                    row.literal,
                    value.type_index(),
                    row.hash
                ));
            }
            assert!(
                equal_of(value, &forms[0]).unwrap(),
                "{} {} forms must be equal",
                row.kind,
                row.literal
            );
        }
    }
    assert!(
        failures.is_empty(),
        "hash mismatches:\n{}",
        failures.join("\n")
    );
    rows.len()
}

#[test]
fn any_hash_matches_apache_reference_table() {
    assert!(check_table() >= 50, "the table covers at least 50 keys");
    // BigInt keys hash through the hooks the runtime registers at start-up, where header-only
    // C++ code finds them too.
    for column in [ANY_HASH_ATTR, ANY_EQUAL_ATTR] {
        assert!(tvm_ffi::registry::types::attr_value(column, tindex::BIG_INT).is_some());
    }
}

#[test]
fn equality_rules() {
    // Small and heap forms of one string are equal both ways; str and bytes never are.
    let small = string_any(b"key");
    let heap = Any::object(new_bytes_object(tindex::STR, b"key"));
    assert!(equal_of(&small, &heap).unwrap() && equal_of(&heap, &small).unwrap());
    assert!(!equal_of(&small, &bytes_any(b"key")).unwrap());
    // Empty bytes and a single NUL hash alike but differ.
    let (empty, nul) = (bytes_any(b""), bytes_any(b"\0"));
    assert_eq!(hash_of(&empty).unwrap(), hash_of(&nul).unwrap());
    assert!(!equal_of(&empty, &nul).unwrap());
    // Numbers compare bit for bit and by kind.
    assert!(!equal_of(&Any::int(1), &Any::bool(true)).unwrap());
    assert!(!equal_of(&Any::int(1), &Any::float(1.0)).unwrap());
    assert!(!equal_of(&Any::float(0.0), &Any::float(-0.0)).unwrap());
    assert!(equal_of(&Any::float(f64::NAN), &Any::float(f64::NAN)).unwrap());
    // BigInts compare by value, and never equal an Int.
    let big = |s: &str| bigint_any(&decimal_words(s));
    assert!(equal_of(&big("18446744073709551616"), &big("18446744073709551616")).unwrap());
    assert!(!equal_of(&big("18446744073709551616"), &big("-18446744073709551616")).unwrap());
    assert_eq!(big("42").type_index(), tindex::INT);
    // Other objects compare by identity.
    let a = Any::object(new_bytes_object(tindex::STR, b"a long string here"));
    let f1 = Any::object(tvm_ffi::value::function::from_closure(|_| Ok(Any::none())));
    let f2 = Any::object(tvm_ffi::value::function::from_closure(|_| Ok(Any::none())));
    assert!(equal_of(&f1, &f1.clone()).unwrap());
    assert!(!equal_of(&f1, &f2).unwrap());
    assert!(!equal_of(&a, &f1).unwrap());
}
