//! The object header, the strong/weak reference-count protocol, and allocation of objects created
//! by this runtime.
//!
//! The protocol is part of the ABI: header-only C++ code in extensions increments and decrements
//! `combined_ref_count` inline and calls `deleter` itself, so every step here mirrors it exactly.

use crate::abi::{TVMFFIObject, TVMFFITypeIndex};
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

/// One strong reference in `combined_ref_count`.
pub const STRONG_ONE: u64 = 1;
/// One weak reference in `combined_ref_count`.
pub const WEAK_ONE: u64 = 1 << 32;
/// The count of a fresh object: one strong reference and the implicit weak one.
pub const FRESH_COUNT: u64 = STRONG_ONE | WEAK_ONE;
/// Deleter flag: destroy the contents.
pub const DELETE_STRONG: i32 = 1;
/// Deleter flag: free the memory.
pub const DELETE_WEAK: i32 = 2;

/// The header mark (`__padding`, ours to use in the objects we allocate) of an object whose
/// destruction only frees its memory: its payload owns nothing and runs no code. Its last
/// release frees it directly, without the deleter call or the nesting bookkeeping. (Bit 0 is
/// the live-object count's mark.)
const PLAIN: u32 = 2;

/// The number of objects this runtime allocated and has not freed yet, counting from the first
/// call (served as `ffihub.LiveObjectCount`; see `crate::value::live_count` for how it stays off the
/// hot path).
pub fn live_object_count() -> i64 {
    crate::value::live_count::total()
}

/// Records an object allocated outside [`alloc_object`] / [`alloc_raw`] (objects with a custom
/// block layout), so that the live-object count stays exact. Pair with [`count_free`].
///
/// # Safety
/// `obj` points at the header of an object nobody else sees yet, written with `__padding` 0 (or
/// the marks of this module).
#[inline]
pub unsafe fn count_allocation(obj: *mut TVMFFIObject) {
    crate::value::live_count::mark_allocated(obj);
}

/// Records the release of an object whose allocation went through [`count_allocation`] (or the
/// allocators here, which call it).
///
/// # Safety
/// `obj` points at the object's header, still readable (call before freeing the memory).
#[inline]
pub unsafe fn count_free(obj: *const TVMFFIObject) {
    crate::value::live_count::freed((*obj).__padding);
}

/// Adds one strong reference.
///
/// # Safety
/// `obj` points at a live object the caller holds a reference to.
#[inline]
pub unsafe fn inc_ref(obj: *mut TVMFFIObject) {
    (*obj)
        .combined_ref_count
        .fetch_add(STRONG_ONE, Ordering::Relaxed);
}

/// Drops one strong reference, destroying and freeing the object as the protocol says.
///
/// # Safety
/// `obj` is NULL or points at a live object whose reference the caller gives up.
#[inline]
pub unsafe fn dec_ref(obj: *mut TVMFFIObject) {
    dec_ref_status(obj);
}

/// [`dec_ref`] returning the C API's status (always 0), for `TVMFFIObjectDecRef`: its last
/// release is then a jump, with no register kept across it.
///
/// # Safety
/// As for [`dec_ref`].
#[inline]
pub(crate) unsafe fn dec_ref_status(obj: *mut TVMFFIObject) -> i32 {
    if obj.is_null() {
        return 0;
    }
    let before = (*obj)
        .combined_ref_count
        .fetch_sub(STRONG_ONE, Ordering::Release);
    if before & 0xFFFF_FFFF == STRONG_ONE {
        synchronize_with_releases(obj);
        return release_last_strong(obj, before == FRESH_COUNT);
    }
    0
}

/// Makes every earlier release of `obj`'s count happen before its destruction. An acquire load of
/// the count rather than `fence(Acquire)`: equivalent here, as cheap, and seen by
/// ThreadSanitizer, which does not model fences (std's `Arc` does this under TSan).
///
/// # Safety
/// `obj` points at a live object.
#[inline]
unsafe fn synchronize_with_releases(obj: *mut TVMFFIObject) {
    (*obj).combined_ref_count.load(Ordering::Acquire);
}

/// How many destructions may nest on one thread's stack before further ones are queued. Deep
/// enough that ordinary values are destroyed exactly as they would be recursively, shallow
/// enough that a few kilobytes of stack suffice.
const MAX_NESTED_DESTRUCTIONS: u32 = 16;

/// An object whose last strong reference is gone but whose deleter has not run yet.
struct PendingDestruction {
    obj: *mut TVMFFIObject,
    /// The implicit weak reference was the only one left (`DELETE_WEAK` goes with the strong
    /// flag, as in [`dec_ref`]'s first case).
    sole: bool,
}

/// This thread's destructions in progress.
struct Destructions {
    /// Destructions running on this thread's stack.
    depth: Cell<u32>,
    /// Whether [`PENDING_DESTRUCTIONS`] may hold objects (spares the common, shallow release a
    /// look at the queue, whose thread-local needs a destructor and so costs more to reach).
    queued: Cell<bool>,
}

thread_local! {
    // No destructor: always reachable, even while the thread exits.
    static DESTRUCTIONS: Destructions = const {
        Destructions {
            depth: Cell::new(0),
            queued: Cell::new(false),
        }
    };
    /// Objects to destroy once the stack unwinds to the outermost destruction, so that
    /// releasing a value nested a million deep (an Array in an Array in ...) takes a bounded
    /// stack instead of one frame chain per level.
    static PENDING_DESTRUCTIONS: RefCell<Vec<PendingDestruction>> = const { RefCell::new(Vec::new()) };
}

/// Runs the deleter of an object whose strong count just reached 0: right away while few
/// destructions are nested, otherwise queued for the outermost one, which drains the queue.
/// Returns 0, and is `extern "C"` (nothing unwinds out of a release: deleters are `extern "C"`
/// too), so that [`dec_ref_status`] in `TVMFFIObjectDecRef` ends with a jump to it.
#[inline(never)]
unsafe extern "C" fn release_last_strong(obj: *mut TVMFFIObject, sole: bool) -> i32 {
    // The most common releases skip the bookkeeping: objects marked plain (Functions over a C
    // function without a deleter, the kind libraries export; our strings and bytes...) are
    // freed right away, and strings, bytes, shapes and big integers made by anyone hold no
    // objects, so their destruction cannot nest.
    if (*obj).__padding & PLAIN != 0 {
        if sole {
            // Its deleter would only free the memory: do so without the call.
            free_rust_object(obj);
        } else {
            destroy(obj, sole);
        }
    } else if matches!(
        (*obj).type_index,
        crate::tindex::STR | crate::tindex::BYTES | crate::tindex::SHAPE | crate::tindex::BIG_INT
    ) {
        destroy(obj, sole);
    } else {
        release_nesting(obj, sole);
    }
    0
}

/// Is `obj` marked plain (its destruction only frees its memory)? For tests.
///
/// # Safety
/// `obj` points at a live object.
#[cfg(test)]
pub(crate) unsafe fn is_plain(obj: *const TVMFFIObject) -> bool {
    (*obj).__padding & PLAIN != 0
}

/// [`release_last_strong`] for objects whose destruction may release others (a separate
/// function, so that the common case above saves no registers; its own rare cases, queueing and
/// draining, are out of line too, so that it keeps only two values across the deleter).
#[inline(never)]
unsafe fn release_nesting(obj: *mut TVMFFIObject, sole: bool) {
    // One thread-local lookup for the whole release (each costs a call in a shared library);
    // the state has no destructor, so it lives as long as the thread.
    let state: *const Destructions = DESTRUCTIONS.with(|state| state as *const Destructions);
    let state = &*state;
    let depth = state.depth.get();
    if depth >= MAX_NESTED_DESTRUCTIONS {
        return queue_destruction(state, obj, sole);
    }
    state.depth.set(depth + 1);
    destroy(obj, sole);
    if depth == 0 && state.queued.get() {
        drain_pending_destructions(state);
    }
    state.depth.set(depth);
}

/// Queues the destruction of `obj` for the outermost destruction of this thread.
#[cold]
#[inline(never)]
unsafe fn queue_destruction(state: &Destructions, obj: *mut TVMFFIObject, sole: bool) {
    let queued = PENDING_DESTRUCTIONS
        .try_with(|queue| queue.borrow_mut().push(PendingDestruction { obj, sole }));
    match queued {
        Ok(()) => state.queued.set(true),
        // The thread is exiting and its queue is gone: destroy directly.
        Err(_) => destroy(obj, sole),
    }
}

/// Destroys queued objects (and whatever their destruction queues) until none is left.
#[cold]
#[inline(never)]
unsafe fn drain_pending_destructions(state: &Destructions) {
    while let Some(next) = PENDING_DESTRUCTIONS
        .try_with(|queue| queue.borrow_mut().pop())
        .ok()
        .flatten()
    {
        destroy(next.obj, next.sole);
    }
    // A wide, deep value may have grown the queue a lot; do not keep that memory per thread.
    let _ = PENDING_DESTRUCTIONS.try_with(|queue| {
        let mut queue = queue.borrow_mut();
        if queue.capacity() > 1024 {
            *queue = Vec::new();
        }
    });
    state.queued.set(false);
}

/// The protocol's steps once the strong count is 0: destroy the contents, then drop the
/// implicit weak reference and free the memory if no weak reference is left.
unsafe fn destroy(obj: *mut TVMFFIObject, sole: bool) {
    if sole {
        if let Some(deleter) = (*obj).deleter {
            deleter(obj.cast(), DELETE_STRONG | DELETE_WEAK);
        }
        return;
    }
    if let Some(deleter) = (*obj).deleter {
        deleter(obj.cast(), DELETE_STRONG);
    }
    if (*obj)
        .combined_ref_count
        .fetch_sub(WEAK_ONE, Ordering::Release)
        == WEAK_ONE
    {
        synchronize_with_releases(obj);
        if let Some(deleter) = (*obj).deleter {
            deleter(obj.cast(), DELETE_WEAK);
        }
    }
}

/// The strong count of an object (for tests and diagnostics).
///
/// # Safety
/// `obj` points at a live object.
pub unsafe fn strong_count(obj: *const TVMFFIObject) -> u32 {
    ((*obj).combined_ref_count.load(Ordering::Relaxed) & 0xFFFF_FFFF) as u32
}

/// Is `type_index` the index of a heap object (as opposed to a POD value)?
#[inline]
pub fn is_object_index(type_index: i32) -> bool {
    type_index >= TVMFFITypeIndex::kTVMFFIObject as i32
}

/// An object created by this runtime: the header followed by a Rust payload.
///
/// Objects whose cell must sit right after the header (strings, functions, errors...) put that
/// cell first in their `#[repr(C)]` payload.
#[repr(C)]
pub struct RustObject<T> {
    pub header: TVMFFIObject,
    pub payload: T,
}

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn calloc(count: usize, size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

/// Allocates an object with `payload` and `tail_bytes` extra bytes right after it (for inline
/// string data and the like), with one strong reference owned by the result. Running out of
/// memory ends the process, as for any Rust allocation; see [`try_alloc_object`].
pub fn alloc_object<T>(type_index: i32, payload: T, tail_bytes: usize) -> ObjectRef {
    try_alloc_object(type_index, payload, tail_bytes).unwrap_or_else(|error| error.abort())
}

/// [`alloc_object`] for a tail sized by a caller (a size given through the C API, which may
/// describe no real memory): an error, not the end of the process, when it cannot be had.
pub fn try_alloc_object<T>(
    type_index: i32,
    payload: T,
    tail_bytes: usize,
) -> Result<ObjectRef, AllocError> {
    try_alloc_object_with_tail(type_index, tail_bytes, |_| payload)
}

/// [`try_alloc_object`] for a payload that points into the object's tail: `payload` receives
/// the address of the `tail_bytes` right after the payload (to fill them) and makes the
/// payload, which is then written once.
pub fn try_alloc_object_with_tail<T>(
    type_index: i32,
    tail_bytes: usize,
    payload: impl FnOnce(*mut u8) -> T,
) -> Result<ObjectRef, AllocError> {
    // Without drop glue, the deleter only frees the memory.
    let plain = !std::mem::needs_drop::<T>();
    alloc_with(
        type_index,
        payload,
        tail_bytes,
        delete_rust_object::<T>,
        plain,
    )
}

/// [`alloc_object`] without a tail, with a deleter of the caller's: for payloads that own
/// nothing, whose deleter only calls [`free_rust_object`] on the weak flag.
pub fn alloc_object_with_deleter<T>(
    type_index: i32,
    payload: T,
    deleter: unsafe extern "C" fn(*mut c_void, i32),
) -> ObjectRef {
    alloc_with(type_index, |_| payload, 0, deleter, true).unwrap_or_else(|error| error.abort())
}

/// An object that could not be allocated.
#[derive(Debug)]
pub struct AllocError {
    /// The bytes asked for; None when the size does not fit a `usize`.
    pub bytes: Option<usize>,
}

impl AllocError {
    /// What Rust does when an allocation fails (ends the process).
    #[cold]
    pub fn abort(self) -> ! {
        let size = self
            .bytes
            .unwrap_or(usize::MAX)
            .min(isize::MAX as usize & !15);
        // SAFETY: 16 is a power of two, and `size` rounded up to it does not exceed isize::MAX.
        std::alloc::handle_alloc_error(unsafe {
            std::alloc::Layout::from_size_align_unchecked(size, 16)
        })
    }
}

impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.bytes {
            Some(bytes) => write!(f, "cannot allocate an object of {bytes} bytes"),
            None => write!(f, "cannot allocate an object larger than the address space"),
        }
    }
}

/// Allocates and writes an object (`payload` receives the tail's address, as in
/// [`try_alloc_object_with_tail`]); `plain` says whether `deleter` only frees the memory.
#[inline]
fn alloc_with<T>(
    type_index: i32,
    payload: impl FnOnce(*mut u8) -> T,
    tail_bytes: usize,
    deleter: unsafe extern "C" fn(*mut c_void, i32),
    plain: bool,
) -> Result<ObjectRef, AllocError> {
    let size = std::mem::size_of::<RustObject<T>>()
        .checked_add(tail_bytes)
        .ok_or(AllocError { bytes: None })?;
    assert!(
        std::mem::align_of::<RustObject<T>>() <= 16,
        "over-aligned object payload"
    );
    // SAFETY: malloc returns memory aligned for any fundamental type (16 bytes here); we
    // initialize the header and payload before anyone sees the pointer.
    unsafe {
        let ptr = malloc(size.max(1)).cast::<RustObject<T>>();
        if ptr.is_null() {
            return Err(AllocError { bytes: Some(size) });
        }
        let payload = payload(tail::<T>(ptr.cast()));
        ptr.write(RustObject {
            header: TVMFFIObject {
                combined_ref_count: AtomicU64::new(FRESH_COUNT),
                type_index,
                __padding: if plain { PLAIN } else { 0 },
                deleter: Some(deleter),
            },
            payload,
        });
        count_allocation(ptr.cast());
        Ok(ObjectRef::from_raw(ptr.cast()))
    }
}

/// Allocates a zero-filled object of `size` bytes (header included) with the given deleter, which
/// must release the memory with [`free_raw`]. For objects described only by reflection.
pub fn alloc_raw(
    type_index: i32,
    size: usize,
    deleter: crate::abi::TVMFFIObjectDeleter,
) -> ObjectRef {
    assert!(
        size >= std::mem::size_of::<TVMFFIObject>(),
        "object smaller than its header"
    );
    // SAFETY: calloc returns zeroed memory aligned for any fundamental type; the header is
    // written before the pointer escapes.
    unsafe {
        let ptr = calloc(1, size).cast::<TVMFFIObject>();
        if ptr.is_null() {
            std::alloc::handle_alloc_error(std::alloc::Layout::from_size_align_unchecked(size, 16));
        }
        ptr.write(TVMFFIObject {
            combined_ref_count: AtomicU64::new(FRESH_COUNT),
            type_index,
            __padding: 0,
            deleter,
        });
        count_allocation(ptr);
        ObjectRef::from_raw(ptr)
    }
}

/// Frees memory from [`alloc_raw`] (for use in deleters, on the weak flag).
///
/// # Safety
/// `obj` came from [`alloc_raw`] and is not used afterwards.
pub unsafe fn free_raw(obj: *mut c_void) {
    count_free(obj.cast());
    free(obj);
}

/// The deleter of every object made by [`alloc_object`].
pub(crate) unsafe extern "C" fn delete_rust_object<T>(obj: *mut c_void, flags: i32) {
    let obj = obj.cast::<RustObject<T>>();
    if flags & DELETE_STRONG != 0 {
        // A panicking destructor must not unwind into C; abort-on-unwind is the safe outcome.
        std::ptr::drop_in_place(std::ptr::addr_of_mut!((*obj).payload));
    }
    if flags & DELETE_WEAK != 0 {
        free_rust_object(obj.cast());
    }
}

/// Frees the memory of an object from [`alloc_object`] (its payload already dropped).
///
/// # Safety
/// `obj` came from [`alloc_object`] or [`alloc_object_with_deleter`] and is not used
/// afterwards.
#[inline]
pub unsafe fn free_rust_object(obj: *mut TVMFFIObject) {
    // The counted case out of line: the common one then keeps nothing across a call.
    if crate::value::live_count::is_counted((*obj).__padding) {
        return free_counted(obj);
    }
    free(obj.cast());
}

/// [`free_rust_object`] of an object whose allocation was counted.
#[cold]
#[inline(never)]
unsafe fn free_counted(obj: *mut TVMFFIObject) {
    count_free(obj);
    free(obj.cast());
}

/// Address of the payload of an object created with payload type `T`.
///
/// # Safety
/// `obj` must be a `RustObject<T>`.
#[inline]
pub unsafe fn payload<'a, T>(obj: *mut TVMFFIObject) -> &'a T {
    &(*obj.cast::<RustObject<T>>()).payload
}

/// Address of the bytes right after the payload of a `RustObject<T>`.
///
/// # Safety
/// `obj` must be a `RustObject<T>` allocated with a tail.
#[inline]
pub unsafe fn tail<T>(obj: *mut TVMFFIObject) -> *mut u8 {
    obj.cast::<u8>().add(std::mem::size_of::<RustObject<T>>())
}

/// An owned strong reference to any object (ours or foreign).
pub struct ObjectRef {
    ptr: NonNull<TVMFFIObject>,
    _owns: PhantomData<TVMFFIObject>,
}

// SAFETY: reference counting is atomic; objects shared across threads are the ABI's contract.
unsafe impl Send for ObjectRef {}
unsafe impl Sync for ObjectRef {}

impl ObjectRef {
    /// Takes over a strong reference.
    ///
    /// # Safety
    /// `ptr` is non-NULL and carries a reference the caller gives to the result.
    #[inline]
    pub unsafe fn from_raw(ptr: *mut TVMFFIObject) -> Self {
        ObjectRef {
            ptr: NonNull::new_unchecked(ptr),
            _owns: PhantomData,
        }
    }

    /// Takes a new strong reference to a borrowed object.
    ///
    /// # Safety
    /// `ptr` is non-NULL and points at a live object.
    #[inline]
    pub unsafe fn from_borrowed(ptr: *mut TVMFFIObject) -> Self {
        inc_ref(ptr);
        Self::from_raw(ptr)
    }

    /// Gives up ownership, returning the raw handle that now carries the reference.
    #[inline]
    pub fn into_raw(self) -> *mut TVMFFIObject {
        let ptr = self.ptr.as_ptr();
        std::mem::forget(self);
        ptr
    }

    /// The raw handle, still owned by `self`.
    #[inline]
    pub fn as_ptr(&self) -> *mut TVMFFIObject {
        self.ptr.as_ptr()
    }

    /// Is this the only strong reference (so the object may be written in place)? The load is
    /// Acquire, pairing with the releasing decrements of former holders, so that their last
    /// reads happen before the caller's writes.
    #[inline]
    pub fn is_unique(&self) -> bool {
        // SAFETY: we hold a reference, so the header is alive.
        let count = unsafe { (*self.as_ptr()).combined_ref_count.load(Ordering::Acquire) };
        count & 0xFFFF_FFFF == 1
    }

    /// The object's type index.
    #[inline]
    pub fn type_index(&self) -> i32 {
        // SAFETY: we hold a reference, so the header is alive.
        unsafe { (*self.as_ptr()).type_index }
    }

    /// The cell that follows the header, viewed as `C`.
    ///
    /// # Safety
    /// The object's layout must have a `C` right after its header.
    #[inline]
    pub unsafe fn cell<C>(&self) -> &C {
        &*self
            .as_ptr()
            .cast::<u8>()
            .add(std::mem::size_of::<TVMFFIObject>())
            .cast::<C>()
    }
}

impl Clone for ObjectRef {
    #[inline]
    fn clone(&self) -> Self {
        // SAFETY: we hold a reference.
        unsafe { Self::from_borrowed(self.as_ptr()) }
    }
}

impl Drop for ObjectRef {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: we own one strong reference.
        unsafe { dec_ref(self.as_ptr()) }
    }
}

impl std::fmt::Debug for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ObjectRef(type_index={}, {:p})",
            self.type_index(),
            self.as_ptr()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicI32;
    use std::sync::Arc;

    /// Records the deleter flags it sees.
    struct Probe(Arc<AtomicI32>);
    impl Drop for Probe {
        fn drop(&mut self) {
            self.0.fetch_or(DELETE_STRONG, Ordering::SeqCst);
        }
    }

    #[test]
    fn fresh_object_has_one_strong_and_one_weak() {
        let obj = alloc_object(tindex_object(), 7u64, 0);
        let count = unsafe { (*obj.as_ptr()).combined_ref_count.load(Ordering::Relaxed) };
        assert_eq!(count, FRESH_COUNT);
        let copy = obj.clone();
        assert_eq!(unsafe { strong_count(obj.as_ptr()) }, 2);
        drop(copy);
        assert_eq!(unsafe { strong_count(obj.as_ptr()) }, 1);
    }

    #[test]
    fn last_strong_reference_destroys_and_frees() {
        let seen = Arc::new(AtomicI32::new(0));
        let obj = alloc_object(tindex_object(), Probe(seen.clone()), 0);
        drop(obj);
        assert_eq!(seen.load(Ordering::SeqCst), DELETE_STRONG);
    }

    #[test]
    fn weak_reference_keeps_memory_until_released() {
        let seen = Arc::new(AtomicI32::new(0));
        let obj = alloc_object(tindex_object(), Probe(seen.clone()), 0);
        let raw = obj.into_raw();
        unsafe {
            // Take a weak reference the way header code does.
            (*raw)
                .combined_ref_count
                .fetch_add(WEAK_ONE, Ordering::Relaxed);
            dec_ref(raw);
            assert_eq!(
                seen.load(Ordering::SeqCst),
                DELETE_STRONG,
                "contents destroyed at strong zero"
            );
            // The header is still readable: the weak reference keeps the memory.
            assert_eq!((*raw).combined_ref_count.load(Ordering::Relaxed), WEAK_ONE);
            // Release the weak reference: the memory goes.
            if (*raw)
                .combined_ref_count
                .fetch_sub(WEAK_ONE, Ordering::Release)
                == WEAK_ONE
            {
                (*raw).deleter.unwrap()(raw.cast(), DELETE_WEAK);
            }
        }
    }

    /// A link of a chain: records its destruction, then releases the next link.
    struct Link {
        _probe: Probe,
        _next: Option<ObjectRef>,
    }

    #[test]
    fn deep_chains_destroy_every_link_and_honour_weak_references() {
        const LINKS: usize = 10 * MAX_NESTED_DESTRUCTIONS as usize;
        let seen: Vec<Arc<AtomicI32>> = (0..LINKS).map(|_| Arc::new(AtomicI32::new(0))).collect();
        let mut next = None;
        let mut weakly_held = std::ptr::null_mut();
        for (i, seen) in seen.iter().enumerate().rev() {
            let link = alloc_object(
                tindex_object(),
                Link {
                    _probe: Probe(seen.clone()),
                    _next: next.take(),
                },
                0,
            );
            if i == LINKS - 3 {
                // A weak reference deep down, where destruction is queued, not nested.
                weakly_held = link.as_ptr();
                unsafe {
                    (*weakly_held)
                        .combined_ref_count
                        .fetch_add(WEAK_ONE, Ordering::Relaxed)
                };
            }
            next = Some(link);
        }
        drop(next);
        assert!(seen
            .iter()
            .all(|s| s.load(Ordering::SeqCst) == DELETE_STRONG));
        unsafe {
            assert_eq!(
                (*weakly_held).combined_ref_count.load(Ordering::Relaxed),
                WEAK_ONE,
                "the weak reference keeps the memory of a queued destruction"
            );
            if (*weakly_held)
                .combined_ref_count
                .fetch_sub(WEAK_ONE, Ordering::Release)
                == WEAK_ONE
            {
                (*weakly_held).deleter.unwrap()(weakly_held.cast(), DELETE_WEAK);
            }
        }
    }

    #[test]
    fn dec_ref_of_null_is_a_no_op() {
        unsafe { dec_ref(std::ptr::null_mut()) };
    }

    fn tindex_object() -> i32 {
        crate::tindex::OBJECT
    }
}
