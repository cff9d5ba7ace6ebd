//! `ffi.RecursiveHash` and `ffi.RecursiveEq/Lt/Le/Gt/Ge`: value hashing and three-way comparison
//! through containers and reflected fields, with Apache's semantics and hash values:
//!
//! * strings and bytes by content (small and heap forms alike), floats with NaN and signed zero
//!   canonicalized for hashing, Int against BigInt by value;
//! * Arrays and Lists element-wise then by length; Maps and Dicts by key lookup (order-free
//!   hashing; ordering them is a TypeError); reflected objects field by field, skipping fields
//!   flagged compare-off (and hash-off for hashing);
//! * the type attributes `__ffi_hash__`, `__ffi_eq__`, `__ffi_compare__` replace the default for
//!   their type; they receive a callback to recurse with;
//! * cycles: hashing uses a sentinel, equality treats a revisited pair as equal, ordering fails.
//!
//! The walks keep their work on heap stacks (nesting up to [`MAX_DEPTH`]).

use crate::abi::{TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIObject};
use crate::containers::map::MapView;
use crate::containers::seq::seq_elements;
use crate::registry::reflection::{all_fields, get_field};
use crate::registry::types::type_key_of;
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::hash::{stable_hash_bytes, stable_hash_combine as combine};
use crate::value::object::is_object_index;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The deepest nesting the walks accept (Apache's limit).
pub const MAX_DEPTH: usize = 1 << 20;

fn depth_error(what: &str) -> Error {
    Error::new(
        "ValueError",
        format!("{what}: maximum stack depth ({MAX_DEPTH}) exceeded"),
    )
}

fn obj_of(value: &TVMFFIAny) -> *mut TVMFFIObject {
    // SAFETY: callers pass object values.
    unsafe { value.value.v_obj }
}

fn type_key_hash(type_index: i32) -> u64 {
    crate::registry::types::type_info(type_index).map_or(0, |info| info.type_key_hash)
}

fn hook(column: &[u8], type_index: i32) -> Option<Any> {
    crate::registry::types::attr_value(column, type_index)
        .filter(|h| h.type_index() == tindex::FUNCTION)
}

fn is_string(t: i32) -> bool {
    t == tindex::STR || t == tindex::SMALL_STR
}

fn is_bytes(t: i32) -> bool {
    t == tindex::BYTES || t == tindex::SMALL_BYTES
}

/// The content of a string or bytes value.
fn content(value: &TVMFFIAny) -> &[u8] {
    // SAFETY: callers pass string or bytes values.
    unsafe {
        crate::value::string::str_bytes(value)
            .or_else(|| crate::value::string::bytes_bytes(value))
            .unwrap_or_default()
    }
}

/// The fields of an object's type that a walk visits, with their values on `obj`.
fn field_values(type_index: i32, obj: *mut TVMFFIObject, skip: i64) -> Result<Vec<Any>, Error> {
    let Some(info) = crate::registry::types::type_info(type_index) else {
        return Ok(Vec::new());
    };
    // SAFETY: `info` is registered and `obj` is a live instance of it.
    unsafe {
        all_fields(info)
            .into_iter()
            .filter(|f| f.flags & skip == 0)
            .map(|f| get_field(f, obj))
            .collect()
    }
}

/// The entries of a Map or Dict, flattened to key, value, key, ...
fn map_items(value: &TVMFFIAny) -> Vec<Any> {
    // SAFETY: callers pass live Map/Dict values.
    let view = unsafe { MapView::from_raw(obj_of(value)) }.expect("a map");
    let mut items = Vec::with_capacity(view.len() * 2);
    for (k, v) in view.iter() {
        items.push(k);
        items.push(v);
    }
    items
}

fn seq_items(value: &TVMFFIAny) -> Result<Vec<Any>, Error> {
    // SAFETY: callers pass live Array/List values; elements are valid values.
    unsafe {
        seq_elements(obj_of(value))
            .iter()
            .map(|v| crate::value::any::view_to_owned(v))
            .collect()
    }
}

/// Runs `body` with a Function that calls `callback` while `body` runs, and fails afterwards or
/// from another thread (hooks may keep the Function, but the walk state it reaches is gone).
fn with_callback<R>(
    callback: &dyn Fn(&[TVMFFIAny]) -> Result<Any, Error>,
    body: impl FnOnce(&Any) -> R,
) -> R {
    struct Target(*const (dyn Fn(&[TVMFFIAny]) -> Result<Any, Error> + 'static));
    // SAFETY: the pointer is only dereferenced on the creating thread while `alive` is set.
    unsafe impl Send for Target {}
    unsafe impl Sync for Target {}
    impl Target {
        fn get(&self) -> *const (dyn Fn(&[TVMFFIAny]) -> Result<Any, Error> + 'static) {
            self.0
        }
    }
    let alive = Arc::new(AtomicBool::new(true));
    let thread = std::thread::current().id();
    // SAFETY: erasing the lifetime; the pointer is used only while `callback` is borrowed here.
    let target = Target(unsafe {
        std::mem::transmute::<
            *const (dyn Fn(&[TVMFFIAny]) -> Result<Any, Error> + '_),
            *const (dyn Fn(&[TVMFFIAny]) -> Result<Any, Error> + 'static),
        >(callback)
    });
    let flag = alive.clone();
    let function = crate::value::function::from_closure(move |args| {
        if !flag.load(Ordering::Acquire) || std::thread::current().id() != thread {
            return Err(Error::new(
                "RuntimeError",
                "a recursion callback was called outside the hook call it was given to",
            ));
        }
        // SAFETY: checked above: the callback is still borrowed by `with_callback`.
        unsafe { (*target.get())(args) }
    });
    let function = Any::object(function);
    let result = body(&function);
    alive.store(false, Ordering::Release);
    result
}

fn call(function: &Any, args: &[TVMFFIAny]) -> Result<Any, Error> {
    // SAFETY: callers pass Function values and valid argument views.
    unsafe { crate::value::function::call(obj_of(function.as_raw()), args) }
}

fn int_result(value: Any, hook: &str) -> Result<i64, Error> {
    match value.type_index() {
        // SAFETY: the tag says the payload is an integer.
        tindex::INT | tindex::BOOL => Ok(unsafe { value.as_raw().value.v_int64 }),
        other => Err(Error::new(
            "TypeError",
            format!("{hook} must return an int, got `{}`", type_key_of(other)),
        )),
    }
}

// ------------------------------------------------------------------------------------------
// Hashing
// ------------------------------------------------------------------------------------------

enum HashKind {
    Seq,
    Map,
    Object,
}

struct HashFrame {
    obj: usize,
    kind: HashKind,
    children: Vec<Any>,
    next: usize,
    hash: u64,
    entries: Vec<u64>,
    key_hash: Option<u64>,
}

#[derive(Default)]
struct Hasher {
    on_stack: RefCell<HashSet<usize>>,
    memo: RefCell<HashMap<usize, u64>>,
}

/// `ffi.RecursiveHash`.
pub fn recursive_hash(value: &Any) -> Result<i64, Error> {
    Hasher::default().hash(value.as_raw()).map(|h| h as i64)
}

impl Hasher {
    fn hash(&self, value: &TVMFFIAny) -> Result<u64, Error> {
        if let Some(h) = self.immediate(value)? {
            return Ok(h);
        }
        let mut stack = vec![self.frame(value)?];
        loop {
            let top = stack.last_mut().expect("frame");
            if top.next < top.children.len() {
                let child = top.children[top.next].clone();
                top.next += 1;
                match self.immediate(child.as_raw())? {
                    Some(h) => feed_hash(stack.last_mut().expect("frame"), h),
                    None => {
                        if stack.len() >= MAX_DEPTH {
                            return Err(depth_error("ObjectGraphDFS"));
                        }
                        let frame = self.frame(child.as_raw())?;
                        stack.push(frame);
                    }
                }
                continue;
            }
            let mut frame = stack.pop().expect("frame");
            if matches!(frame.kind, HashKind::Map) {
                frame.entries.sort_unstable();
                for e in &frame.entries {
                    frame.hash = combine(frame.hash, *e);
                }
            }
            self.memo.borrow_mut().insert(frame.obj, frame.hash);
            self.on_stack.borrow_mut().remove(&frame.obj);
            match stack.last_mut() {
                Some(parent) => feed_hash(parent, frame.hash),
                None => return Ok(frame.hash),
            }
        }
    }

    fn frame(&self, value: &TVMFFIAny) -> Result<HashFrame, Error> {
        let t = value.type_index;
        let obj = obj_of(value) as usize;
        let (kind, children) = match t {
            tindex::ARRAY | tindex::LIST => (HashKind::Seq, seq_items(value)?),
            tindex::MAP | tindex::DICT => (HashKind::Map, map_items(value)),
            _ => {
                let skip = Flag::kTVMFFIFieldFlagBitMaskHashOff as i64
                    | Flag::kTVMFFIFieldFlagBitMaskCompareOff as i64;
                (HashKind::Object, field_values(t, obj_of(value), skip)?)
            }
        };
        let hash = match kind {
            HashKind::Object => type_key_hash(t),
            HashKind::Seq => combine(type_key_hash(t), children.len() as u64),
            HashKind::Map => combine(type_key_hash(t), (children.len() / 2) as u64),
        };
        self.on_stack.borrow_mut().insert(obj);
        Ok(HashFrame {
            obj,
            kind,
            entries: Vec::with_capacity(children.len() / 2),
            children,
            next: 0,
            hash,
            key_hash: None,
        })
    }

    /// The hash of a value that needs no frame, if it is one.
    fn immediate(&self, value: &TVMFFIAny) -> Result<Option<u64>, Error> {
        let t = value.type_index;
        // SAFETY (payload reads): the tag says which payload is set.
        unsafe {
            if t == tindex::NONE {
                return Ok(Some(combine(0, 0)));
            }
            if is_string(t) {
                return Ok(Some(combine(
                    tindex::STR as u64,
                    stable_hash_bytes(content(value)),
                )));
            }
            if is_bytes(t) {
                return Ok(Some(combine(
                    tindex::BYTES as u64,
                    stable_hash_bytes(content(value)),
                )));
            }
            if !is_object_index(t) {
                return Ok(Some(hash_pod(value)));
            }
        }
        let obj = obj_of(value) as usize;
        if let Some(&h) = self.memo.borrow().get(&obj) {
            return Ok(Some(h));
        }
        if self.on_stack.borrow().contains(&obj) {
            return Ok(Some(type_key_hash(t)));
        }
        if t == tindex::SHAPE {
            // SAFETY: a live Shape.
            let dims = unsafe { crate::containers::shape::shape_dims(obj_of(value)) };
            let mut h = combine(type_key_hash(t), dims.len() as u64);
            for &d in dims {
                h = combine(h, d as u64);
            }
            self.memo.borrow_mut().insert(obj, h);
            return Ok(Some(h));
        }
        if let Some(custom) = hook(b"__ffi_hash__", t) {
            self.on_stack.borrow_mut().insert(obj);
            let recurse = |args: &[TVMFFIAny]| -> Result<Any, Error> {
                let arg = args
                    .first()
                    .ok_or_else(|| Error::new("TypeError", "fn_hash takes one argument"))?;
                // SAFETY: arguments are valid views.
                let arg = unsafe { crate::value::any::view_to_owned(arg)? };
                Ok(Any::int(self.hash(arg.as_raw())? as i64))
            };
            let result = with_callback(&recurse, |fn_hash| {
                call(&custom, &[*value, *fn_hash.as_raw()])
            });
            self.on_stack.borrow_mut().remove(&obj);
            let h = int_result(result?, "__ffi_hash__")? as u64;
            self.memo.borrow_mut().insert(obj, h);
            return Ok(Some(h));
        }
        if t >= tindex::STATIC_OBJECT_END
            && (hook(b"__ffi_eq__", t).is_some() || hook(b"__ffi_compare__", t).is_some())
        {
            return Err(Error::new(
                "ValueError",
                format!(
                    "RecursiveHash: type '{}' defines __ffi_eq__ or __ffi_compare__ but not __ffi_hash__. Add a __ffi_hash__ hook to maintain the invariant RecursiveEq(a,b) => RecursiveHash(a)==RecursiveHash(b).",
                    type_key_of(t)
                ),
            ));
        }
        Ok(None)
    }
}

fn feed_hash(frame: &mut HashFrame, h: u64) {
    match frame.kind {
        HashKind::Seq => {
            let index = frame.next as u64 - 1;
            frame.hash = combine(frame.hash, combine(h, index));
        }
        HashKind::Map => match frame.key_hash.take() {
            None => frame.key_hash = Some(h),
            Some(key) => frame.entries.push(combine(key, h)),
        },
        HashKind::Object => frame.hash = combine(frame.hash, h),
    }
}

/// # Safety
/// `value` is a POD value.
unsafe fn hash_pod(value: &TVMFFIAny) -> u64 {
    let t = value.type_index;
    let ti = t as u64;
    match t {
        tindex::BOOL => combine(ti, (value.value.v_int64 != 0) as u64),
        tindex::INT => combine(ti, value.value.v_int64 as u64),
        tindex::FLOAT => {
            let v = value.value.v_float64;
            let bits = if v.is_nan() {
                0x7ff8_0000_0000_0000
            } else if v == 0.0 {
                0
            } else {
                v.to_bits()
            };
            combine(ti, bits)
        }
        tindex::DATA_TYPE => {
            let d = value.value.v_dtype;
            combine(
                combine(combine(ti, d.code as u64), d.bits as u64),
                d.lanes as u64,
            )
        }
        tindex::DEVICE => {
            let d = value.value.v_device;
            combine(
                combine(ti, d.device_type as u32 as u64),
                d.device_id as u32 as u64,
            )
        }
        _ => combine(ti, value.value.v_uint64),
    }
}

// ------------------------------------------------------------------------------------------
// Comparison
// ------------------------------------------------------------------------------------------

struct CompareFrame {
    is_map: bool,
    /// Sizes of sequences (compared once the common prefix is equal).
    sizes: Option<(usize, usize)>,
    pair: (usize, usize),
    children: Vec<(Any, Any)>,
    next: usize,
}

struct Comparer {
    eq_only: bool,
    on_stack: RefCell<HashSet<(usize, usize)>>,
}

/// Three-way comparison (`eq_only`: only zero versus non-zero matters, and mismatched kinds are
/// "different" instead of errors).
pub fn recursive_compare(lhs: &Any, rhs: &Any, eq_only: bool) -> Result<i32, Error> {
    Comparer {
        eq_only,
        on_stack: RefCell::default(),
    }
    .compare(lhs.as_raw(), rhs.as_raw())
}

fn order_error() -> Error {
    Error::new("TypeError", "Cannot order Map/Dict values")
}

fn sign(ordering: std::cmp::Ordering) -> i32 {
    ordering as i32
}

impl Comparer {
    fn compare(&self, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<i32, Error> {
        if let Some(c) = self.immediate(lhs, rhs)? {
            return Ok(c);
        }
        let mut stack = Vec::new();
        match self.frame(lhs, rhs)? {
            Ok(frame) => stack.push(frame),
            Err(eager) => return Ok(eager),
        }
        let outcome = self.run(&mut stack);
        for frame in &stack {
            self.on_stack.borrow_mut().remove(&frame.pair);
        }
        outcome
    }

    fn run(&self, stack: &mut Vec<CompareFrame>) -> Result<i32, Error> {
        loop {
            let top = stack.last_mut().expect("frame");
            if top.next < top.children.len() {
                let (l, r) = top.children[top.next].clone();
                top.next += 1;
                let result = match self.immediate(l.as_raw(), r.as_raw())? {
                    Some(c) => c,
                    None => {
                        if stack.len() >= MAX_DEPTH {
                            return Err(depth_error("RecursiveCompare"));
                        }
                        match self.frame(l.as_raw(), r.as_raw())? {
                            Ok(frame) => {
                                stack.push(frame);
                                continue;
                            }
                            Err(eager) => eager,
                        }
                    }
                };
                if result != 0 {
                    return self.terminate(stack, result);
                }
                continue;
            }
            let frame = stack.pop().expect("frame");
            self.on_stack.borrow_mut().remove(&frame.pair);
            let result = match frame.sizes {
                Some((l, r)) => sign(l.cmp(&r)),
                None => 0,
            };
            if stack.is_empty() {
                return Ok(result);
            }
            if result != 0 {
                return self.terminate(stack, result);
            }
        }
    }

    fn terminate(&self, stack: &[CompareFrame], result: i32) -> Result<i32, Error> {
        if !self.eq_only && stack.iter().any(|f| f.is_map) {
            return Err(order_error());
        }
        Ok(result)
    }

    /// A frame comparing two containers or objects, or the outcome when it is decided at once.
    fn frame(&self, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<Result<CompareFrame, i32>, Error> {
        let pair = (obj_of(lhs) as usize, obj_of(rhs) as usize);
        let mut frame = CompareFrame {
            is_map: false,
            sizes: None,
            pair,
            children: Vec::new(),
            next: 0,
        };
        match lhs.type_index {
            tindex::ARRAY | tindex::LIST => {
                let (l, r) = (seq_items(lhs)?, seq_items(rhs)?);
                frame.sizes = Some((l.len(), r.len()));
                frame.children = l.into_iter().zip(r).collect();
            }
            tindex::MAP | tindex::DICT => {
                frame.is_map = true;
                // SAFETY: both are live maps of the same kind.
                let (lv, rv) = unsafe {
                    (
                        MapView::from_raw(obj_of(lhs)).expect("a map"),
                        MapView::from_raw(obj_of(rhs)).expect("a map"),
                    )
                };
                if lv.len() != rv.len() {
                    return if self.eq_only {
                        Ok(Err(1))
                    } else {
                        Err(order_error())
                    };
                }
                for (k, v) in lv.iter() {
                    match rv.get(&k)? {
                        Some(other) => frame.children.push((v, other)),
                        None if self.eq_only => return Ok(Err(1)),
                        None => return Err(order_error()),
                    }
                }
            }
            _ => {
                let (lt, rt) = (lhs.type_index, rhs.type_index);
                if lt != rt {
                    return self.different_objects(lt, rt).map(Err);
                }
                let skip = Flag::kTVMFFIFieldFlagBitMaskCompareOff as i64;
                let l = field_values(lt, obj_of(lhs), skip)?;
                let r = field_values(rt, obj_of(rhs), skip)?;
                frame.children = l.into_iter().zip(r).collect();
            }
        }
        self.on_stack.borrow_mut().insert(pair);
        Ok(Ok(frame))
    }

    fn different_objects(&self, lt: i32, rt: i32) -> Result<i32, Error> {
        if self.eq_only {
            return Ok(1);
        }
        Err(Error::new(
            "TypeError",
            format!(
                "Cannot compare objects of different types: {} vs {}",
                type_key_of(lt),
                type_key_of(rt)
            ),
        ))
    }

    /// The outcome for values that need no frame, if they are such.
    fn immediate(&self, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<Option<i32>, Error> {
        let (lt, rt) = (lhs.type_index, rhs.type_index);
        match (lt == tindex::NONE, rt == tindex::NONE) {
            (true, true) => return Ok(Some(0)),
            (true, false) => return Ok(Some(-1)),
            (false, true) => return Ok(Some(1)),
            _ => {}
        }
        if (is_string(lt) && is_string(rt)) || (is_bytes(lt) && is_bytes(rt)) {
            return Ok(Some(sign(content(lhs).cmp(content(rhs)))));
        }
        let is_int = |t: i32| t == tindex::INT || t == tindex::BIG_INT;
        if lt != rt {
            if self.eq_only {
                return Ok(Some(1));
            }
            if is_int(lt) && is_int(rt) {
                // SAFETY: both are Int or BigInt values.
                return Ok(Some(unsafe {
                    crate::containers::bigint::compare(lhs, rhs)
                }));
            }
            return Err(Error::new(
                "TypeError",
                format!(
                    "Cannot compare values of different types: {} vs {}",
                    type_key_of(lt),
                    type_key_of(rt)
                ),
            ));
        }
        if !is_object_index(lt) {
            // SAFETY: both are POD values of the same kind.
            return unsafe { self.compare_pod(lhs, rhs) }.map(Some);
        }
        if lt == tindex::BIG_INT {
            // SAFETY: both are BigInt values.
            let c = unsafe { crate::containers::bigint::compare(lhs, rhs) };
            return Ok(Some(if self.eq_only { (c != 0) as i32 } else { c }));
        }
        let (lo, ro) = (obj_of(lhs), obj_of(rhs));
        if lo == ro {
            return Ok(Some(0));
        }
        if lt == tindex::SHAPE {
            // SAFETY: both are live Shapes.
            let (l, r) = unsafe {
                (
                    crate::containers::shape::shape_dims(lo),
                    crate::containers::shape::shape_dims(ro),
                )
            };
            return Ok(Some(sign(l.cmp(r))));
        }
        if self.on_stack.borrow().contains(&(lo as usize, ro as usize)) {
            if self.eq_only {
                return Ok(Some(0));
            }
            return Err(Error::new(
                "ValueError",
                "RecursiveCompare: cyclic reference detected in ordering",
            ));
        }
        if lt >= tindex::STATIC_OBJECT_END {
            return self.custom_hook(lhs, rhs);
        }
        Ok(None)
    }

    fn custom_hook(&self, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<Option<i32>, Error> {
        let t = lhs.type_index;
        let (custom, is_eq) = match (self.eq_only, hook(b"__ffi_eq__", t)) {
            (true, Some(eq)) => (eq, true),
            _ => match hook(b"__ffi_compare__", t) {
                Some(cmp) => (cmp, false),
                None => return Ok(None),
            },
        };
        let pair = (obj_of(lhs) as usize, obj_of(rhs) as usize);
        self.on_stack.borrow_mut().insert(pair);
        let recurse = |args: &[TVMFFIAny]| -> Result<Any, Error> {
            let [l, r] = args else {
                return Err(Error::new(
                    "TypeError",
                    "the comparison callback takes two arguments",
                ));
            };
            // SAFETY: arguments are valid views.
            let (l, r) = unsafe {
                (
                    crate::value::any::view_to_owned(l)?,
                    crate::value::any::view_to_owned(r)?,
                )
            };
            let c = self.compare(l.as_raw(), r.as_raw())?;
            Ok(if is_eq {
                Any::bool(c == 0)
            } else {
                Any::int(c as i64)
            })
        };
        let result = with_callback(&recurse, |callback| {
            call(&custom, &[*lhs, *rhs, *callback.as_raw()])
        });
        self.on_stack.borrow_mut().remove(&pair);
        let result = result?;
        Ok(Some(if is_eq {
            match result.type_index() {
                // SAFETY: the tag says the payload is an integer.
                tindex::BOOL | tindex::INT => {
                    (unsafe { result.as_raw().value.v_int64 } == 0) as i32
                }
                other => {
                    return Err(Error::new(
                        "TypeError",
                        format!(
                            "__ffi_eq__ must return a bool, got `{}`",
                            type_key_of(other)
                        ),
                    ))
                }
            }
        } else {
            int_result(result, "__ffi_compare__")? as i32
        }))
    }

    /// # Safety
    /// Both are POD values of the same kind.
    unsafe fn compare_pod(&self, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<i32, Error> {
        let (l, r) = (&lhs.value, &rhs.value);
        Ok(match lhs.type_index {
            tindex::BOOL => (l.v_int64 != 0) as i32 - (r.v_int64 != 0) as i32,
            tindex::INT => sign(l.v_int64.cmp(&r.v_int64)),
            tindex::FLOAT => {
                let (a, b) = (l.v_float64, r.v_float64);
                if a.is_nan() || b.is_nan() {
                    if self.eq_only {
                        return Ok((a.is_nan() != b.is_nan()) as i32);
                    }
                    return Err(Error::new("TypeError", "Cannot order NaN values"));
                }
                a.partial_cmp(&b).map_or(0, sign)
            }
            tindex::DATA_TYPE => {
                let (a, b) = (l.v_dtype, r.v_dtype);
                sign((a.code, a.bits, a.lanes).cmp(&(b.code, b.bits, b.lanes)))
            }
            tindex::DEVICE => {
                let (a, b) = (l.v_device, r.v_device);
                sign((a.device_type, a.device_id).cmp(&(b.device_type, b.device_id)))
            }
            t => {
                if lhs.small_str_len == rhs.small_str_len && l.v_int64 == r.v_int64 {
                    0
                } else if self.eq_only {
                    1
                } else {
                    return Err(Error::new(
                        "TypeError",
                        format!("Cannot order values of type {}", type_key_of(t)),
                    ));
                }
            }
        })
    }
}
