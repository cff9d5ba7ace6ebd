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
use crate::any::Any;
use crate::error::Error;
use crate::object::ObjectRef;
use std::cell::{Cell, RefCell};
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
        String::from_utf8_lossy(unsafe { crate::any::byte_array_slice(&info.type_key) })
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
        Column(crate::types::attr_column(name))
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

/// Refuses recursion that would run the thread out of stack: traversals recurse on nesting, and
/// inputs can be nested arbitrarily deep.
pub(crate) struct StackGuard {
    lowest: usize,
}

thread_local! {
    /// `(low, high)` addresses of this thread's stack, `(0, 0)` when unknown.
    static THREAD_STACK: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Headroom kept free below the deepest traversal frame (hooks and callbacks need stack too).
const STACK_HEADROOM: usize = 256 * 1024;
/// What a traversal may use when it runs on a stack other than the thread's own (a coroutine or
/// task stack of a language runtime), whose bounds are unknown.
const FOREIGN_STACK_BUDGET: usize = 1024 * 1024;

/// The current stack address. Read from the register where possible: taking a local's address
/// would force the caller to keep a frame (and lose its tail calls).
#[inline(always)]
fn stack_pointer() -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let sp: usize;
        // SAFETY: reads the stack pointer register; no memory access.
        unsafe {
            std::arch::asm!("mov {}, rsp", out(reg) sp, options(nomem, nostack, preserves_flags))
        };
        sp
    }
    #[cfg(target_arch = "aarch64")]
    {
        let sp: usize;
        // SAFETY: reads the stack pointer register; no memory access.
        unsafe {
            std::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags))
        };
        sp
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let marker = 0u8;
        std::ptr::addr_of!(marker) as usize
    }
}

/// This thread's `(low, high)` stack addresses, `(0, 0)` when unknown.
fn thread_stack() -> (usize, usize) {
    THREAD_STACK.with(|cell| match cell.get() {
        Some(bounds) => bounds,
        None => {
            let bounds = thread_stack_bounds().unwrap_or((0, 0));
            cell.set(Some(bounds));
            bounds
        }
    })
}

/// The current thread's identity without a thread-local lookup: the thread pointer register
/// (x86-64 `fs:0`, the thread control block's address; aarch64 `tpidr_el0`), distinct for every
/// running thread. `None` where it cannot be read.
#[inline(always)]
fn thread_pointer() -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let tp: usize;
        // SAFETY: reads the thread control block's self pointer, which the C library sets up
        // for every thread before any code runs on it.
        unsafe {
            std::arch::asm!("mov {}, qword ptr fs:[0]", out(reg) tp, options(nostack, preserves_flags, readonly))
        };
        Some(tp)
    }
    #[cfg(all(target_arch = "aarch64", target_os = "linux"))]
    {
        let tp: usize;
        // SAFETY: reads the thread pointer register; no memory access.
        unsafe {
            std::arch::asm!("mrs {}, tpidr_el0", out(reg) tp, options(nomem, nostack, preserves_flags))
        };
        Some(tp)
    }
    #[cfg(not(all(
        any(target_arch = "x86_64", target_arch = "aarch64"),
        target_os = "linux"
    )))]
    {
        None
    }
}

/// What a foreign callback remembers of the thread that created it, so that calls on that
/// thread (the usual case: a host makes a callback and passes it down on the same thread) can
/// pass the stack check with two comparisons instead of a thread-local lookup. Only a pass is
/// decided this way; anything else takes the exact check ([`callback_stack_exhausted`]).
///
/// A thread that exits may be followed by one with the same thread pointer: the C library
/// reuses a cached stack together with the control block inside it, so the bounds are the
/// same too. Only a caller-supplied stack of another size ending at the same address could make
/// the hint pass a call the exact check would refuse.
#[derive(Clone, Copy)]
pub(crate) struct CallbackStackHint {
    thread: usize,
    limit: usize,
}

impl CallbackStackHint {
    /// The hint of the current thread.
    pub(crate) fn here() -> CallbackStackHint {
        let (_, limit) = callback_stack_range();
        match thread_pointer() {
            // A thread with unknown bounds passes every call (limit 0).
            Some(thread) => CallbackStackHint { thread, limit },
            // Never matches a thread pointer: every call takes the exact check.
            None => CallbackStackHint {
                thread: 0,
                limit: usize::MAX,
            },
        }
    }

    /// Whether a callback may be entered without the exact check: on the creating thread,
    /// above its limit.
    #[inline(always)]
    pub(crate) fn passes(self) -> bool {
        thread_pointer() == Some(self.thread) && stack_pointer() >= self.limit
    }
}

/// Headroom a foreign callback must find free before it is entered: the host language's own
/// frames, its error handling and the unwinding back out all run below the last check.
const CALLBACK_HEADROOM: usize = 512 * 1024;

thread_local! {
    /// `(low, limit)`: this thread's stack bottom and the lowest address at which a foreign
    /// callback may still be entered; `None` until computed, `(0, 0)` when the bounds are unknown
    /// (which disables the check).
    static CALLBACK_STACK_RANGE: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Is the thread's native stack nearly exhausted? Checked before entering a foreign callback, so
/// that unbounded re-entry (host -> native -> host -> ...) surfaces as the host's exception
/// instead of a crash. Calls running on a stack other than the thread's own (a language runtime's
/// task stack, whose bounds are unknown) are not checked.
#[inline]
pub(crate) fn callback_stack_exhausted() -> bool {
    let (low, limit) = callback_stack_range();
    (low..limit).contains(&stack_pointer())
}

/// This thread's `CALLBACK_STACK_RANGE`, computed on first use.
#[inline]
fn callback_stack_range() -> (usize, usize) {
    CALLBACK_STACK_RANGE.with(|cell| {
        cell.get()
            .unwrap_or_else(|| init_callback_stack_range(cell))
    })
}

#[cold]
#[inline(never)]
fn init_callback_stack_range(cell: &Cell<Option<(usize, usize)>>) -> (usize, usize) {
    let (low, high) = thread_stack();
    let range = if low < high {
        (low, low + CALLBACK_HEADROOM.min((high - low) / 4))
    } else {
        (0, 0)
    };
    cell.set(Some(range));
    range
}

/// The error for a callback refused by [`callback_stack_exhausted`].
#[cold]
#[inline(never)]
pub(crate) fn callback_stack_error() -> Error {
    Error::new(
        "RecursionError",
        "call nesting too deep: the native stack is nearly exhausted",
    )
}

impl StackGuard {
    pub(crate) fn new() -> StackGuard {
        let (low, high) = thread_stack();
        let here = stack_pointer();
        let lowest = if low < here && here <= high {
            low + STACK_HEADROOM.min((high - low) / 4)
        } else {
            here.saturating_sub(FOREIGN_STACK_BUDGET)
        };
        StackGuard { lowest }
    }

    /// Errors when the stack is nearly exhausted.
    #[inline]
    pub(crate) fn check(&self, what: &str) -> Result<(), Error> {
        if stack_pointer() < self.lowest {
            return Err(Error::new(
                "ValueError",
                format!("{what}: the value is nested too deeply to traverse (stack exhausted)"),
            ));
        }
        Ok(())
    }
}

/// The `(low, high)` addresses of the current thread's stack.
#[cfg(target_os = "linux")]
fn thread_stack_bounds() -> Option<(usize, usize)> {
    use std::ffi::c_void;
    extern "C" {
        fn pthread_self() -> usize;
        fn pthread_getattr_np(thread: usize, attr: *mut c_void) -> i32;
        fn pthread_attr_getstack(
            attr: *const c_void,
            addr: *mut *mut c_void,
            size: *mut usize,
        ) -> i32;
        fn pthread_attr_destroy(attr: *mut c_void) -> i32;
    }
    // pthread_attr_t is 56 bytes on 64-bit glibc and musl; the buffer is larger and aligned.
    let mut attr = [0u64; 16];
    let attr_ptr = attr.as_mut_ptr().cast::<c_void>();
    // SAFETY: standard pthread calls on the current thread with a large enough attribute buffer.
    unsafe {
        if pthread_getattr_np(pthread_self(), attr_ptr) != 0 {
            return None;
        }
        let mut addr = std::ptr::null_mut();
        let mut size = 0usize;
        let ok = pthread_attr_getstack(attr_ptr, &mut addr, &mut size) == 0;
        pthread_attr_destroy(attr_ptr);
        ok.then_some((addr as usize, addr as usize + size))
    }
}

#[cfg(not(target_os = "linux"))]
fn thread_stack_bounds() -> Option<(usize, usize)> {
    None
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
        let function = crate::function::from_closure(move |args| {
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
