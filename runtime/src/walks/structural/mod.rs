//! Structural equality, hashing and traversal of values (`ffi.StructuralEqual`,
//! `ffi.StructuralHash`, `ffi.GetFirstStructuralMismatch`, `ffi.StructuralKey`, the structural
//! visitor and `ffi.VisitErrorContext.FindAccessPaths`), with Apache's semantics: objects are
//! compared through their reflected fields as their type's `structural_eq_hash_kind` says, field
//! flags mark ignored fields and definition regions, and `__s_equal__` / `__s_hash__` hooks take
//! over for types that define them. Hash values are bit-for-bit Apache's.

pub mod equal;
pub mod error_context;
pub mod hash;
pub mod key;
pub mod mutate;
pub mod visit;

use crate::abi::{TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo, TVMFFITypeInfo};
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::cell::RefCell;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

/// `TVMFFISEqHashKind`: how a type takes part in structural equality and hashing.
pub mod kind {
    pub const UNSUPPORTED: i32 = 0;
    pub const TREE_NODE: i32 = 1;
    pub const FREE_VAR: i32 = 2;
    pub const DAG_NODE: i32 = 3;
    pub const CONST_TREE_NODE: i32 = 4;
    pub const UNIQUE_INSTANCE: i32 = 5;
}

/// `TVMFFIDefRegionKind`: whether free variables met now are being defined, and how.
pub mod region {
    pub const NONE: i32 = 0;
    pub const PATTERN: i32 = 1;
    pub const SIMPLE: i32 = 2;
}

const IGNORE: i64 = Flag::kTVMFFIFieldFlagBitMaskSEqHashIgnore as i64;
const DEF_PATTERN: i64 = Flag::kTVMFFIFieldFlagBitMaskSEqHashDefPattern as i64;
const DEF_SIMPLE: i64 = Flag::kTVMFFIFieldFlagBitMaskSEqHashDefSimple as i64;

/// Is the field left out of structural comparison?
#[inline]
pub(crate) fn is_ignored(field: &TVMFFIFieldInfo) -> bool {
    field.flags & IGNORE != 0
}

/// The definition region a field opens, if any (`region::SIMPLE` wins over `region::PATTERN`).
#[inline]
pub(crate) fn field_region(field: &TVMFFIFieldInfo) -> Option<i32> {
    if field.flags & DEF_SIMPLE != 0 {
        Some(region::SIMPLE)
    } else if field.flags & DEF_PATTERN != 0 {
        Some(region::PATTERN)
    } else {
        None
    }
}

/// The region in force after entering `entered` from `current`: a pattern region propagates,
/// entering any kind inside it has no effect.
#[inline]
pub(crate) fn enter_region(current: i32, entered: i32) -> i32 {
    if current == region::PATTERN {
        region::PATTERN
    } else {
        entered
    }
}

/// Apache's `same_as` of two values: the same type index, length slot and payload bits
/// (identity for objects).
pub(crate) fn same_as(a: &TVMFFIAny, b: &TVMFFIAny) -> bool {
    // SAFETY: reading payloads as raw bits is valid for every kind.
    unsafe {
        a.type_index == b.type_index
            && a.small_str_len == b.small_str_len
            && a.value.v_int64 == b.value.v_int64
    }
}

/// The type's structural kind, or Apache's TypeError when it has none.
pub(crate) fn seq_hash_kind(info: &TVMFFITypeInfo) -> Result<i32, Error> {
    let key = || {
        // SAFETY: type keys point at registry-owned storage.
        String::from_utf8_lossy(unsafe { crate::value::any::byte_array_slice(&info.type_key) })
            .into_owned()
    };
    // SAFETY: metadata is NULL or points at registry-owned storage.
    let Some(metadata) = (unsafe { info.metadata.as_ref() }) else {
        return Err(Error::new(
            "TypeError",
            format!(
                "Type metadata is not set for type `{}`, so StructuralHash is not supported for this type",
                key()
            ),
        ));
    };
    if metadata.structural_eq_hash_kind == kind::UNSUPPORTED {
        return Err(Error::new(
            "TypeError",
            format!(
                "_type_s_eq_hash_kind is not set for type `{}`, so StructuralHash is not supported for this type",
                key()
            ),
        ));
    }
    Ok(metadata.structural_eq_hash_kind)
}

/// Calls `f` on every field of a type, ancestors' first, until it returns `Ok(true)` (stop).
/// Returns whether it stopped.
///
/// # Safety
/// `info` is a registered type info.
pub(crate) unsafe fn for_each_field(
    info: &TVMFFITypeInfo,
    mut f: impl FnMut(&'static TVMFFIFieldInfo) -> Result<bool, Error>,
) -> Result<bool, Error> {
    for depth in 1..info.type_depth.max(0) as usize {
        let ancestor = &**info.type_ancestors.add(depth);
        for i in 0..ancestor.num_fields.max(0) as usize {
            if f(&*ancestor.fields.add(i))? {
                return Ok(true);
            }
        }
    }
    for i in 0..info.num_fields.max(0) as usize {
        if f(&*info.fields.add(i))? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A type-attribute column read without locking, as header code reads it.
#[derive(Clone, Copy)]
pub(crate) struct Column(Option<&'static crate::abi::TVMFFITypeAttrColumn>);

impl Column {
    pub(crate) fn new(name: &[u8]) -> Column {
        Column(crate::registry::types::attr_column(name))
    }

    /// The entry of exactly `type_index`, unless it is None.
    pub(crate) fn get(&self, type_index: i32) -> Option<&'static TVMFFIAny> {
        let column = self.0?;
        let slot = type_index.checked_sub(column.begin_index)?;
        if slot < 0 || slot >= column.size || column.data.is_null() {
            return None;
        }
        // SAFETY: the column's data is valid for `size` entries and never shrinks.
        let entry = unsafe { &*column.data.add(slot as usize) };
        (entry.type_index != crate::tindex::NONE).then_some(entry)
    }
}

/// Maps keyed by object address: the identity hash of Apache's `ObjectPtrHash`, spread by a
/// multiply so that aligned addresses use every bucket (SipHash would dominate the traversal).
pub(crate) type AddressMap<V> =
    std::collections::HashMap<usize, V, std::hash::BuildHasherDefault<AddressHasher>>;

#[derive(Default)]
pub(crate) struct AddressHasher(u64);

impl std::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, address: usize) {
        self.0 = (address as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

/// Keeps one cleared [`AddressMap`] per thread between traversals, so that repeated traversals
/// of big values do not regrow their tables from scratch.
pub(crate) struct SpareMap<V: 'static>(
    &'static std::thread::LocalKey<std::cell::RefCell<Option<AddressMap<V>>>>,
);

/// Tables larger than this are freed rather than kept.
const SPARE_MAP_MAX_CAPACITY: usize = 1 << 20;

impl<V: 'static> SpareMap<V> {
    pub(crate) const fn new(
        key: &'static std::thread::LocalKey<std::cell::RefCell<Option<AddressMap<V>>>>,
    ) -> Self {
        SpareMap(key)
    }

    /// The spare table (empty), or a new one.
    pub(crate) fn take(&self) -> AddressMap<V> {
        self.0
            .try_with(|spare| spare.borrow_mut().take())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// Empties `map` (dropping its values now) and keeps it for the next traversal.
    pub(crate) fn give_back(&self, mut map: AddressMap<V>) {
        map.clear();
        if map.capacity() <= SPARE_MAP_MAX_CAPACITY {
            let _ = self.0.try_with(|spare| *spare.borrow_mut() = Some(map));
        }
    }
}

/// The callback a traversal hands to a type's structural hook (`__s_equal__`, `__s_hash__`), made
/// on first use. It reaches back into the traversal only on the traversal's thread and only while
/// the traversal lives: dropping this detaches it, so a callback that a hook kept raises an error
/// instead of touching freed state.
pub(crate) struct HookCallback<T> {
    made: RefCell<Option<(ObjectRef, Arc<AtomicPtr<T>>)>>,
}

/// What a hook callback is: the hook's name, what "the traversal" is called in errors, and how
/// many arguments the callback takes.
pub(crate) struct HookCallbackSpec {
    pub hook: &'static str,
    pub traversal: &'static str,
    pub arity: usize,
}

impl<T: 'static> HookCallback<T> {
    pub(crate) fn new() -> Self {
        HookCallback {
            made: RefCell::new(None),
        }
    }

    /// The callback reaching `state`; `body` runs with the traversal when a hook calls it.
    pub(crate) fn get(
        &self,
        state: &T,
        spec: HookCallbackSpec,
        body: impl Fn(&T, &[TVMFFIAny]) -> Result<Any, Error> + Send + Sync + 'static,
    ) -> ObjectRef {
        let mut slot = self.made.borrow_mut();
        if let Some((function, _)) = &*slot {
            return function.clone();
        }
        let target = Arc::new(AtomicPtr::new(state as *const T as *mut T));
        let weak_target = target.clone();
        let owner = std::thread::current().id();
        let function = crate::value::function::from_closure(move |args| {
            // The traversal's state is not shared between threads.
            if std::thread::current().id() != owner {
                return Err(Error::new(
                    "RuntimeError",
                    "a structural hook callback must be called on the thread running the traversal",
                ));
            }
            if args.len() != spec.arity {
                return Err(Error::new(
                    "TypeError",
                    format!(
                        "the {} callback takes {} arguments, got {}",
                        spec.hook,
                        spec.arity,
                        args.len()
                    ),
                ));
            }
            let this = weak_target.load(Ordering::Acquire);
            if this.is_null() {
                return Err(Error::new(
                    "RuntimeError",
                    format!(
                        "the {} callback was called after its {} ended",
                        spec.hook, spec.traversal
                    ),
                ));
            }
            // SAFETY: the pointer is cleared before the traversal is dropped, and the traversal
            // runs on this thread, the one calling the hook.
            body(unsafe { &*this }, args)
        });
        *slot = Some((function.clone(), target));
        function
    }
}

impl<T> Drop for HookCallback<T> {
    fn drop(&mut self) {
        // A hook may have kept the callback: it must not reach the traversal any more.
        if let Some((_, target)) = self.made.get_mut() {
            target.store(std::ptr::null_mut(), Ordering::Release);
        }
    }
}
