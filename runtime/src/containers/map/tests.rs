//! Unit tests of the map internals against one-by-one insertion and Apache's layout.

use super::*;

fn int(v: i64) -> Any {
    Any::int(v)
}

fn as_int(v: &Any) -> i64 {
    assert_eq!(v.type_index(), tindex::INT);
    // SAFETY: the tag says the payload is an integer.
    unsafe { v.as_raw().value.v_int64 }
}

#[test]
fn table_sizes_match_apache() {
    assert_eq!(calc_table_size(4), (61, 8));
    assert_eq!(calc_table_size(5), (60, 16));
    assert_eq!(calc_table_size(8), (60, 16));
    assert_eq!(calc_table_size(9), (59, 32));
    assert_eq!(calc_table_size(100), (56, 256));
    assert_eq!(calc_table_size(1), (63, 2));
}

/// `n` distinct keys of a few kinds, spread over the hash space (a tiny deterministic
/// generator).
fn spread_keys(n: usize, seed: u64) -> Vec<Any> {
    let mut state = seed;
    (0..n)
        .map(|i| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match i % 3 {
                0 => int(((state >> 24) << 20 | i as u64) as i64),
                1 => Any::string(format!("k{i}-{}", state % 1000)),
                _ => Any::string(format!("a longer key {i} {}", state >> 40)),
            }
        })
        .collect()
}

/// The two maps have the same form, slots, metadata, keys and links.
fn assert_same_layout(a: &Map, b: &Map) {
    let (ra, rb) = (Raw::of(a.as_object()), Raw::of(b.as_object()));
    // SAFETY: both maps are live and not mutated meanwhile; slots are read only where the
    // metadata says they hold entries.
    unsafe {
        assert_eq!((ra.is_small(), ra.size()), (rb.is_small(), rb.size()));
        if ra.is_small() {
            return;
        }
        let (da, db) = (ra.dense(), rb.dense());
        assert_eq!(ra.slots(), rb.slots(), "{} entries", ra.size());
        assert_eq!((*da).fib_shift, (*db).fib_shift);
        assert_eq!((*da).iter_list_head, (*db).iter_list_head);
        assert_eq!((*da).iter_list_tail, (*db).iter_list_tail);
        for i in 0..ra.slots() {
            assert_eq!(*ra.meta(i), *rb.meta(i), "slot {i}");
            if ra.occupied(i) {
                let (ia, ib) = (ra.item(i), rb.item(i));
                assert!(crate::containers::any_hash::any_equal(ra.key(i), rb.key(i)).unwrap());
                assert_eq!(((*ia).prev, (*ia).next), ((*ib).prev, (*ib).next));
            }
        }
    }
}

#[test]
fn dry_run_finds_the_table_size_of_one_by_one_insertion() {
    // Counts around the load-factor limit of 1024 and 2048 slots, where whether the table
    // grows depends on where the last keys land.
    let counts = (1005..=1025)
        .chain(2020..=2049)
        .chain([5, 8, 9, 100, 127, 128, 129]);
    for (round, n) in counts.enumerate() {
        for seed in 0..3u64 {
            let keys = spread_keys(n, seed * 1000 + round as u64);
            let mut one_by_one = Map::new();
            let entries: Vec<Hashed> = keys
                .iter()
                .map(|k| {
                    one_by_one.set(k.clone(), int(0)).unwrap();
                    // SAFETY: an `Any` is a valid owned value.
                    (k.clone(), int(0), unsafe {
                        KeyHash::of(k.as_raw()).unwrap()
                    })
                })
                .collect();
            let built = Map::from_insertions(keys.iter().map(|k| Ok((k.clone(), int(0))))).unwrap();
            assert_same_layout(&built, &one_by_one);
            if keys.len() as u64 > SMALL_MAX_SLOTS {
                let plan = plan_table(&entries).expect("distinct keys have a plan");
                let want = one_by_one.view().slot_count();
                assert_eq!(plan.meta.len() as u64, want, "{} keys", keys.len());
            }
        }
    }
}

#[test]
fn small_map_grows_then_turns_dense() {
    let mut m = Map::new();
    assert!(m.view().is_small());
    assert_eq!(m.view().slot_count(), 2);
    for i in 0..4 {
        m.set(int(i), int(i * 10)).unwrap();
    }
    assert!(m.view().is_small());
    assert_eq!(m.view().slot_count(), 4);
    m.set(int(4), int(40)).unwrap();
    assert!(!m.view().is_small());
    assert_eq!(m.view().slot_count(), 8);
    for i in 0..200 {
        m.set(int(i), int(i * 10)).unwrap();
    }
    assert_eq!(m.len(), 200);
    for i in 0..200 {
        assert_eq!(as_int(&m.get(&int(i)).unwrap().unwrap()), i * 10);
    }
    assert!(m.get(&int(1000)).unwrap().is_none());
}

#[test]
fn iteration_keeps_insertion_order_and_dense_updates_move_to_the_end() {
    let mut d = Dict::new();
    for i in 0..10 {
        d.set(int(i), int(i)).unwrap();
    }
    d.set(int(3), int(33)).unwrap();
    let keys: Vec<i64> = d.iter().map(|(k, _)| as_int(&k)).collect();
    assert_eq!(keys, vec![0, 1, 2, 4, 5, 6, 7, 8, 9, 3]);
    let mut small = Dict::new();
    for i in 0..3 {
        small.set(int(i), int(i)).unwrap();
    }
    small.set(int(0), int(5)).unwrap();
    let keys: Vec<i64> = small.iter().map(|(k, _)| as_int(&k)).collect();
    assert_eq!(keys, vec![0, 1, 2], "small updates keep their position");
}

#[test]
fn erase_and_clear() {
    let mut d = Dict::new();
    for i in 0..50 {
        d.set(int(i), int(i)).unwrap();
    }
    for i in (0..50).step_by(2) {
        d.erase(&int(i)).unwrap();
    }
    assert_eq!(d.len(), 25);
    for i in 0..50 {
        assert_eq!(d.contains(&int(i)).unwrap(), i % 2 == 1, "key {i}");
    }
    let keys: Vec<i64> = d.iter().map(|(k, _)| as_int(&k)).collect();
    assert_eq!(keys, (0..50).filter(|i| i % 2 == 1).collect::<Vec<_>>());
    d.clear();
    assert!(d.is_empty());
    assert!(!d.view().is_small(), "clear keeps the dense storage");
    d.set(int(7), int(8)).unwrap();
    assert_eq!(d.len(), 1);
}

#[test]
fn map_is_copy_on_write() {
    let mut a = Map::new();
    a.set(Any::string("x"), int(1)).unwrap();
    let b = a.clone();
    a.set(Any::string("y"), int(2)).unwrap();
    assert_eq!(a.len(), 2);
    assert_eq!(b.len(), 1);
    assert_ne!(a.as_object().as_ptr(), b.as_object().as_ptr());
}

#[test]
fn dict_keeps_identity_when_growing() {
    let mut d = Dict::new();
    let other = d.clone();
    for i in 0..100 {
        d.set(int(i), int(i)).unwrap();
    }
    assert_eq!(other.len(), 100);
    assert_eq!(d.as_object().as_ptr(), other.as_object().as_ptr());
}

#[test]
fn cursor_protocol() {
    let m = Map::from_pairs([(int(1), int(2)), (int(3), int(4))]).unwrap();
    let mut c = Cursor::new(m.into_object()).unwrap();
    assert_eq!(as_int(&c.key().unwrap()), 1);
    assert_eq!(as_int(&c.value().unwrap()), 2);
    assert!(c.advance());
    assert_eq!(as_int(&c.key().unwrap()), 3);
    assert!(!c.advance());
    assert!(!c.advance());
    assert!(c.key().is_err());
    let empty = Cursor::new(Map::new().into_object()).unwrap();
    assert!(empty.key().is_err());
}

/// A key as C callers pass it: a raw C string, or a byte array.
enum ViewKey {
    Str(std::ffi::CString),
    Bytes {
        array: Box<crate::abi::TVMFFIByteArray>,
        _data: Vec<u8>,
    },
}

impl ViewKey {
    fn str(text: &str) -> ViewKey {
        ViewKey::Str(std::ffi::CString::new(text).unwrap())
    }

    fn bytes(data: &[u8]) -> ViewKey {
        let data = data.to_vec();
        let array = crate::abi::TVMFFIByteArray {
            data: data.as_ptr().cast(),
            size: data.len(),
        };
        ViewKey::Bytes {
            array: Box::new(array),
            _data: data,
        }
    }

    fn view(&self) -> TVMFFIAny {
        let (type_index, ptr) = match self {
            ViewKey::Str(text) => (tindex::RAW_STR, text.as_ptr().cast_mut().cast()),
            ViewKey::Bytes { array, .. } => {
                (tindex::BYTE_ARRAY_PTR, &**array as *const _ as *mut _)
            }
        };
        TVMFFIAny {
            type_index,
            small_str_len: 0,
            value: crate::abi::TVMFFIAnyValue { v_ptr: ptr },
        }
    }
}

#[test]
fn raw_string_and_byte_keys_find_their_owned_forms() {
    // Short keys are looked up in their small form, long ones by their bytes (no String made);
    // a string never finds bytes with the same content, nor the reverse.
    for entries in [2, 40] {
        let mut m = Map::new();
        let texts: Vec<String> = (0..entries)
            .map(|i| {
                if i % 2 == 0 {
                    format!("k{i}")
                } else {
                    format!("a longer key {i}")
                }
            })
            .collect();
        for (i, text) in texts.iter().enumerate() {
            m.set(Any::string(text), int(i as i64)).unwrap();
            m.set(
                crate::value::string::bytes_any(text.as_bytes()),
                int(-(i as i64)),
            )
            .unwrap();
        }
        assert_eq!(m.view().is_small(), entries == 2, "{entries} entries");
        for (i, text) in texts.iter().enumerate() {
            for (key, expected) in [
                (ViewKey::str(text), i as i64),
                (ViewKey::bytes(text.as_bytes()), -(i as i64)),
            ] {
                // SAFETY: the view points at live bytes.
                let found = unsafe { m.view().get_raw(&key.view()) }.unwrap();
                assert_eq!(as_int(&found.expect(text)), expected, "{text}");
            }
        }
        for missing in ["k1", "a longer key 0", "", "a longer key 1 "] {
            for key in [ViewKey::str(missing), ViewKey::bytes(missing.as_bytes())] {
                // SAFETY: as above.
                assert!(
                    unsafe { m.view().get_raw(&key.view()) }.unwrap().is_none(),
                    "{missing}"
                );
            }
        }
    }
}
