//! Raw layout of the Map and Dict objects this runtime builds, checked field by field against
//! what Apache's `map_base.h` algorithm implies, so that header-only C++ code can probe them:
//! object sizes and offsets, the small form (tagged `slots`, inline pairs), the dense form
//! (`fib_shift` matching the slot count, every key reachable from its Fibonacci-hash slot through
//! the jump chain, head bits, the insertion-ordered iteration list), the growth sequence
//! (2 -> 4 small slots -> 8 dense slots -> doubling), and Apache's iteration-order rules under
//! random insert/update/erase sequences, with no leaked object at the end.

use std::collections::HashMap;
use std::sync::Mutex;
use tvm_ffi::abi::TVMFFIAny;
use tvm_ffi::containers::any_hash::hash_of;
use tvm_ffi::containers::map::{
    fib_hash, DenseItem, DenseMapObj, Dict, KvPair, Map, MapBaseObj, MapView, BLOCK_BYTES,
    BLOCK_CAP, EMPTY_SLOT, INVALID_INDEX, NEXT_PROBE_LOCATION, PROTECTED_SLOT, SMALL_TAG,
};
use tvm_ffi::tindex;
use tvm_ffi::value::any::Any;
use tvm_ffi::value::object::live_object_count;

/// Tests of this file run one at a time: they compare the process-wide live-object count.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Process-lifetime objects (the global functions, the sentinel) exist before any count.
    drop(call_global("ffi.GetInvalidObject", &[]));
    guard
}

fn int_of(v: &Any) -> i64 {
    assert_eq!(v.type_index(), tindex::INT);
    // SAFETY: the tag says the payload is an integer.
    unsafe { v.as_raw().value.v_int64 }
}

/// A mix of key kinds: ints, small strings, heap strings.
fn key(i: i64) -> Any {
    match i % 3 {
        0 => Any::int(i),
        1 => Any::string(format!("k{i}")),
        _ => Any::string(format!("a longer key number {i}")),
    }
}

fn same_key(a: &Any, b: &Any) -> bool {
    tvm_ffi::containers::any_hash::equal_of(a, b).unwrap()
}

/// Calls a global function of this runtime.
fn call_global(name: &str, args: &[Any]) -> Any {
    let entry = tvm_ffi::registry::globals::get(name.as_bytes()).expect(name);
    let raw: Vec<TVMFFIAny> = args.iter().map(|a| *a.as_raw()).collect();
    // SAFETY: globals are live Functions and the arguments are valid values.
    unsafe { tvm_ffi::value::function::call(entry.function.as_ptr(), &raw) }.unwrap()
}

/// Reads the dense slot `i` of a map: (metadata byte, item).
///
/// # Safety
/// `m` is a live dense map and `i < slots`.
unsafe fn slot(m: *mut MapBaseObj, i: u64) -> (u8, *mut DenseItem) {
    let block = (*m)
        .data
        .cast::<u8>()
        .add((i / BLOCK_CAP) as usize * BLOCK_BYTES);
    let meta = *block.add((i % BLOCK_CAP) as usize);
    let item = block
        .add(BLOCK_CAP as usize + (i % BLOCK_CAP) as usize * 48)
        .cast::<DenseItem>();
    (meta, item)
}

/// Checks every structural invariant header code relies on; returns the entries (key, value)
/// in iteration order as read from the raw memory.
fn check_invariants(view: MapView<'_>) -> Vec<(Any, Any)> {
    let m = view.as_ptr();
    // SAFETY: the view borrows a live map; every read follows the layout being checked.
    unsafe {
        let size = (*m).size;
        let slots = (*m).slots;
        if slots & SMALL_TAG != 0 {
            let n = slots & !SMALL_TAG;
            assert!((2..=4).contains(&n), "small maps have 2..=4 slots, got {n}");
            assert!(size <= n);
            let kvs = (*m).data.cast::<KvPair>();
            let entries: Vec<(Any, Any)> = (0..size as usize)
                .map(|i| {
                    let kv = &*kvs.add(i);
                    (kv.key.clone(), kv.value.clone())
                })
                .collect();
            for (i, a) in entries.iter().enumerate() {
                for b in &entries[i + 1..] {
                    assert!(!same_key(&a.0, &b.0), "duplicate key in a small map");
                }
            }
            return entries;
        }
        // Dense form.
        let dense = m.cast::<DenseMapObj>();
        assert!(slots.is_power_of_two() && slots >= 8, "dense slots {slots}");
        assert_eq!(
            (*dense).fib_shift,
            64 - slots.trailing_zeros(),
            "fib_shift names 2^(64 - fib_shift) = {slots} slots"
        );
        assert!(!(*m).data.is_null());
        assert!((*m).data_deleter.is_some(), "dense storage has a deleter");
        let mut occupied = 0u64;
        for i in 0..slots {
            let (meta, item) = slot(m, i);
            assert_ne!(
                meta, PROTECTED_SLOT,
                "no protected slot outside an insertion"
            );
            if meta == EMPTY_SLOT {
                continue;
            }
            occupied += 1;
            assert!(((meta & 0x7F) as usize) < NEXT_PROBE_LOCATION.len());
            // The key is reachable from its hash slot, which heads the chain.
            let hash = hash_of(&(*item).kv.key).unwrap();
            let mut node = fib_hash(hash, (*dense).fib_shift);
            assert!(node < slots);
            let (head_meta, _) = slot(m, node);
            assert_eq!(head_meta & 0x80, 0, "slot {node} heads its chain");
            let mut steps = 0;
            while node != i {
                let (meta, _) = slot(m, node);
                let jump = NEXT_PROBE_LOCATION[(meta & 0x7F) as usize];
                assert_ne!(jump, 0, "slot {i} is not on the chain of its key's hash");
                node = (node + jump) % slots;
                let (next_meta, _) = slot(m, node);
                assert_eq!(next_meta & 0x80, 0x80, "chain bodies have bit 7 set");
                steps += 1;
                assert!(steps <= slots, "cyclic chain");
            }
        }
        assert_eq!(occupied, size, "occupied slots = size");
        // The iteration list visits every entry once, with consistent back links.
        let mut entries = Vec::new();
        let mut prev = INVALID_INDEX;
        let mut index = (*dense).iter_list_head;
        while index != INVALID_INDEX {
            let (meta, item) = slot(m, index);
            assert_ne!(meta, EMPTY_SLOT, "the iteration list names an empty slot");
            assert_eq!((*item).prev, prev, "back link of slot {index}");
            entries.push(((*item).kv.key.clone(), (*item).kv.value.clone()));
            prev = index;
            index = (*item).next;
            assert!(
                entries.len() as u64 <= size,
                "iteration list longer than size"
            );
        }
        assert_eq!((*dense).iter_list_tail, prev);
        assert_eq!(entries.len() as u64, size);
        entries
    }
}

#[test]
fn object_layout_and_growth_sequence_of_ffi_map() {
    let _guard = serial();
    // (entries, small?, slots, fib_shift if dense) for maps built by ffi.Map, which inserts one
    // by one like Apache's: 2 small slots, 4 small slots, then 8 dense slots and doublings.
    let expectations: &[(i64, bool, u64)] = &[
        (0, true, 2),
        (1, true, 2),
        (2, true, 2),
        (3, true, 4),
        (4, true, 4),
        (5, false, 8),
        (7, false, 8),
    ];
    for &(n, small, slots) in expectations {
        let args: Vec<Any> = (0..n).flat_map(|i| [key(i), Any::int(i)]).collect();
        let map = call_global("ffi.Map", &args);
        assert_eq!(map.type_index(), tindex::MAP);
        let obj = map.as_object().unwrap();
        let view = MapView::new(obj).unwrap();
        let m = view.as_ptr();
        // SAFETY: `obj` is a live map.
        unsafe {
            assert_eq!((*m).size, n as u64, "{n} entries");
            assert_eq!(
                (*m).slots & SMALL_TAG != 0,
                small,
                "{n} entries: small form?"
            );
            assert_eq!((*m).slots & !SMALL_TAG, slots, "{n} entries: slots");
            if small {
                // A fresh small map keeps its pairs right after the 56-byte object.
                assert_eq!((*m).data as usize, m as usize + 56);
                assert!((*m).data_deleter.is_none());
            }
        }
        let entries = check_invariants(view);
        let keys: Vec<i64> = entries.iter().map(|(_, v)| int_of(v)).collect();
        assert_eq!(keys, (0..n).collect::<Vec<_>>(), "insertion order");
    }
    // Field offsets of Apache's MapBaseObj / DenseMapBaseObj.
    assert_eq!(std::mem::offset_of!(MapBaseObj, data), 24);
    assert_eq!(std::mem::offset_of!(MapBaseObj, size), 32);
    assert_eq!(std::mem::offset_of!(MapBaseObj, slots), 40);
    assert_eq!(std::mem::offset_of!(MapBaseObj, data_deleter), 48);
    assert_eq!(std::mem::offset_of!(DenseMapObj, fib_shift), 56);
    assert_eq!(std::mem::offset_of!(DenseMapObj, iter_list_head), 64);
    assert_eq!(std::mem::offset_of!(DenseMapObj, iter_list_tail), 72);
    assert_eq!(std::mem::size_of::<DenseItem>(), 48);
    assert_eq!(BLOCK_BYTES, 784);
}

#[test]
fn dense_tables_double_as_apache_does() {
    let _guard = serial();
    let mut map = Map::new();
    let mut last_slots = 2;
    let mut growth = Vec::new();
    for i in 0..1000 {
        map.set(Any::int(i), Any::int(i)).unwrap();
        let slots = map.view().slot_count();
        if slots != last_slots {
            growth.push((map.len(), slots));
            last_slots = slots;
        }
    }
    // Growth happens when an insertion finds no room: at the latest when the load factor
    // would exceed 0.99, and never by more than a doubling.
    let mut previous = 4;
    for &(len, slots) in &growth[1..] {
        assert!(slots == 8 || slots == previous * 2, "growth {growth:?}");
        assert!(len as f64 <= slots as f64 * 0.99 + 1.0);
        previous = slots;
    }
    assert_eq!(growth[0], (3, 4));
    assert_eq!(growth[1], (5, 8));
    let entries = check_invariants(map.view());
    assert_eq!(entries.len(), 1000);
    for (i, (k, v)) in entries.iter().enumerate() {
        assert_eq!((int_of(k), int_of(v)), (i as i64, i as i64));
    }
}

#[test]
fn dict_grows_in_place_with_apache_storage_rules() {
    let _guard = serial();
    let start = live_object_count();
    {
        let mut dict = Dict::new();
        let obj = dict.as_object().as_ptr();
        let m = dict.view().as_ptr();
        for i in 0..3 {
            dict.set(key(i), Any::int(i)).unwrap();
        }
        // SAFETY: the dict is live.
        unsafe {
            assert_eq!((*m).slots, 4 | SMALL_TAG);
            assert_ne!(
                (*m).data as usize,
                m as usize + 56,
                "after growing, the pairs live in another (hidden) small map"
            );
            assert!((*m).data_deleter.is_some(), "which the dict releases");
        }
        for i in 3..100 {
            dict.set(key(i), Any::int(i)).unwrap();
        }
        assert_eq!(dict.as_object().as_ptr(), obj, "same object");
        // SAFETY: as above.
        unsafe {
            assert_eq!((*m).slots & SMALL_TAG, 0, "dense now");
            assert!((*m).data_deleter.is_some());
        }
        check_invariants(dict.view());
        // ffi.DictSetItem / ffi.DictErase mutate the same object.
        let any = Any::object(dict.as_object().clone());
        call_global("ffi.DictSetItem", &[any.clone(), key(1000), Any::int(7)]);
        call_global("ffi.DictErase", &[any.clone(), key(0)]);
        assert_eq!(dict.len(), 100);
        assert_eq!(
            int_of(&call_global("ffi.DictGetItem", &[any.clone(), key(1000)])),
            7
        );
        check_invariants(dict.view());
        call_global("ffi.DictClear", &[any]);
        assert!(dict.is_empty());
        check_invariants(dict.view());
    }
    assert_eq!(live_object_count(), start, "no leaked object");
}

/// A small deterministic generator.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Apache's iteration-order rules, tracked next to a map under random operations: new keys go
/// last; updating a key keeps its place in the small form but moves it last in the dense form
/// (a full 4-slot small map turns dense first); erasing keeps the order of the others.
#[test]
fn random_operations_follow_apache_order_rules() {
    let _guard = serial();
    let start = live_object_count();
    for (seed, is_dict) in [(1u64, true), (2, false), (3, true), (4, false)] {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
        let mut dict = Dict::new();
        let mut map = Map::new();
        let mut model: Vec<(i64, i64)> = Vec::new();
        let mut shadow_copies = Vec::new();
        for step in 0..3000 {
            let k = (rng.next() % 300) as i64;
            let op = rng.next() % 10;
            let view_small = if is_dict {
                dict.view().is_small()
            } else {
                map.view().is_small()
            };
            let full_small = view_small && model.len() == 4;
            if op < 7 {
                let v = step as i64;
                if let Some(pos) = model.iter().position(|e| e.0 == k) {
                    if view_small && !full_small {
                        model[pos].1 = v;
                    } else {
                        model.remove(pos);
                        model.push((k, v));
                    }
                } else {
                    model.push((k, v));
                }
                if is_dict {
                    dict.set(key(k), Any::int(v)).unwrap();
                } else {
                    map.set(key(k), Any::int(v)).unwrap();
                }
            } else {
                model.retain(|e| e.0 != k);
                if is_dict {
                    dict.erase(&key(k)).unwrap();
                } else {
                    map.erase(&key(k)).unwrap();
                }
            }
            if step % 500 == 0 && !is_dict {
                // A shared Map is copied before mutation: the copy keeps this state.
                shadow_copies.push((map.clone(), model.clone()));
            }
            let view = if is_dict { dict.view() } else { map.view() };
            if step % 37 == 0 || step > 2990 {
                let entries = check_invariants(view);
                let got: Vec<(bool, i64)> =
                    entries.iter().map(|(_, v)| (true, int_of(v))).collect();
                let want: Vec<(bool, i64)> = model.iter().map(|e| (true, e.1)).collect();
                assert_eq!(
                    got, want,
                    "seed {seed} step {step}: values in iteration order"
                );
                for ((k2, _), (mk, _)) in entries.iter().zip(&model) {
                    assert!(same_key(k2, &key(*mk)));
                }
            }
            assert_eq!(view.len(), model.len());
        }
        let mut lookup: HashMap<i64, i64> = HashMap::new();
        for &(k, v) in &model {
            lookup.insert(k, v);
        }
        for k in 0..300 {
            let got = if is_dict {
                dict.get(&key(k)).unwrap()
            } else {
                map.get(&key(k)).unwrap()
            };
            assert_eq!(got.map(|v| int_of(&v)), lookup.get(&k).copied(), "key {k}");
        }
        for (copy, state) in &shadow_copies {
            let values: Vec<i64> = copy.iter().map(|(_, v)| int_of(&v)).collect();
            let want: Vec<i64> = state.iter().map(|e| e.1).collect();
            assert_eq!(values, want, "copy-on-write snapshot");
        }
    }
    assert_eq!(live_object_count(), start, "no leaked object");
}

#[test]
fn globals_behave_like_apache() {
    let _guard = serial();
    let map = call_global(
        "ffi.Map",
        &[Any::string("a"), Any::int(1), Any::string("b"), Any::int(2)],
    );
    assert_eq!(
        int_of(&call_global("ffi.MapSize", std::slice::from_ref(&map))),
        2
    );
    assert_eq!(
        int_of(&call_global(
            "ffi.MapCount",
            &[map.clone(), Any::string("a")]
        )),
        1
    );
    // Errors, with Apache's kinds and messages.
    let call_err = |name: &str, args: &[Any]| {
        let entry = tvm_ffi::registry::globals::get(name.as_bytes()).unwrap();
        let raw: Vec<TVMFFIAny> = args.iter().map(|a| *a.as_raw()).collect();
        // SAFETY: as in `call_global`.
        let err =
            unsafe { tvm_ffi::value::function::call(entry.function.as_ptr(), &raw) }.unwrap_err();
        (
            String::from_utf8_lossy(err.kind()).into_owned(),
            String::from_utf8_lossy(err.message()).into_owned(),
        )
    };
    assert_eq!(
        call_err("ffi.MapGetItem", &[map.clone(), Any::string("zz")]),
        ("KeyError".into(), "key is not in Map".into())
    );
    assert_eq!(
        call_err("ffi.Map", &[Any::int(1)]),
        (
            "InternalError".into(),
            "Check failed: args.size() % 2 == 0 (1 vs. 0) : ".into()
        )
    );
    let dict = call_global("ffi.Dict", &[Any::string("a"), Any::int(1)]);
    assert_eq!(
        call_err("ffi.MapSize", std::slice::from_ref(&dict)),
        (
            "TypeError".into(),
            "Mismatched type on argument #0 when calling: `ffi.MapSize(0: ffi.Map) -> int`. Expected `ffi.Map` but got `ffi.Dict`".into()
        )
    );
    assert_eq!(
        call_err("ffi.DictSetItem", &[Any::int(1), Any::int(2), Any::int(3)]),
        (
            "TypeError".into(),
            "Mismatched type on argument #0 when calling: `ffi.DictSetItem(0: Dict<Any, Any>, 1: Any, 2: Any) -> void`. Expected `Dict<Any, Any>` but got `int`".into()
        )
    );
    // A Map passed as a Dict is converted into a new Dict: the Map does not change.
    call_global(
        "ffi.DictSetItem",
        &[map.clone(), Any::string("c"), Any::int(3)],
    );
    assert_eq!(
        int_of(&call_global("ffi.MapSize", std::slice::from_ref(&map))),
        2
    );
    // The iterator functor protocol.
    let functor = call_global("ffi.MapForwardIterFunctor", std::slice::from_ref(&map));
    let f = |cmd: i64| call_global_obj(&functor, cmd);
    let text = |v: Any| {
        // SAFETY: `v` is a valid owned value.
        unsafe { tvm_ffi::value::string::str_bytes(v.as_raw()) }.map(|b| b.to_vec())
    };
    assert_eq!(text(f(0)), Some(b"a".to_vec()));
    assert_eq!(int_of(&f(1)), 1);
    assert_eq!(f(2).type_index(), tindex::BOOL);
    assert_eq!(text(f(0)), Some(b"b".to_vec()));
    let advanced = f(2);
    assert_eq!(advanced.type_index(), tindex::BOOL);
    // SAFETY: the tag says the payload is a boolean.
    assert_eq!(
        unsafe { advanced.as_raw().value.v_int64 },
        0,
        "no entry left"
    );
    // GetItemOrMissing returns the runtime's sentinel object.
    let missing = call_global("ffi.MapGetItemOrMissing", &[map.clone(), Any::string("zz")]);
    let sentinel = call_global("ffi.GetInvalidObject", &[]);
    assert!(same_key(&missing, &sentinel));
    assert_eq!(
        int_of(&call_global(
            "ffi.DictGetItemOrMissing",
            &[dict, Any::string("a")]
        )),
        1
    );
}

fn call_global_obj(functor: &Any, cmd: i64) -> Any {
    let obj = functor.as_object().unwrap();
    // SAFETY: `obj` is a live Function.
    unsafe { tvm_ffi::value::function::call(obj.as_ptr(), &[*Any::int(cmd).as_raw()]) }.unwrap()
}
