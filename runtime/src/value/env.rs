//! Environment state shared by kernels: per-thread streams and DLPack allocators, the host
//! language's signal hooks, the custom object allocator, and one-time handle initialization.

use crate::abi::{TVMFFICustomAllocator, TVMFFIObjectAllocHeader, TVMFFIStreamHandle};
use crate::dlpack::DLPackManagedTensorAllocator;
use crate::value::error::Error;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

thread_local! {
    static STREAMS: RefCell<HashMap<(i32, i32), usize>> = RefCell::new(HashMap::new());
    static THREAD_ALLOCATOR: RefCell<DLPackManagedTensorAllocator> = const { RefCell::new(None) };
}

/// The process-wide DLPack allocator (a function pointer stored as an address).
static GLOBAL_ALLOCATOR: AtomicUsize = AtomicUsize::new(0);

/// Sets this thread's stream for a device, returning the previous one.
pub fn set_stream(
    device_type: i32,
    device_id: i32,
    stream: TVMFFIStreamHandle,
) -> TVMFFIStreamHandle {
    STREAMS
        .with(|s| {
            s.borrow_mut()
                .insert((device_type, device_id), stream as usize)
        })
        .unwrap_or(0) as TVMFFIStreamHandle
}

/// This thread's stream for a device (NULL if never set).
pub fn stream(device_type: i32, device_id: i32) -> TVMFFIStreamHandle {
    STREAMS
        .with(|s| s.borrow().get(&(device_type, device_id)).copied())
        .unwrap_or(0) as TVMFFIStreamHandle
}

fn allocator_to_addr(a: DLPackManagedTensorAllocator) -> usize {
    a.map_or(0, |f| f as usize)
}

fn allocator_from_addr(addr: usize) -> DLPackManagedTensorAllocator {
    // SAFETY: only addresses of allocator functions (or 0) are ever stored.
    (addr != 0).then(|| unsafe { std::mem::transmute::<usize, _>(addr) })
}

/// Sets this thread's DLPack allocator (and the process-wide one when `global`), returning this
/// thread's previous allocator.
pub fn set_tensor_allocator(
    allocator: DLPackManagedTensorAllocator,
    global: bool,
) -> DLPackManagedTensorAllocator {
    if global {
        GLOBAL_ALLOCATOR.store(allocator_to_addr(allocator), Ordering::Release);
    }
    THREAD_ALLOCATOR.with(|a| a.replace(allocator))
}

/// This thread's DLPack allocator, or the process-wide one.
pub fn tensor_allocator() -> DLPackManagedTensorAllocator {
    THREAD_ALLOCATOR
        .with(|a| *a.borrow())
        .or_else(|| allocator_from_addr(GLOBAL_ALLOCATOR.load(Ordering::Acquire)))
}

/// Hooks of a host interpreter (Python's names, as the ABI defines them).
struct HostHooks {
    check_signals: AtomicPtr<c_void>,
    gil_ensure: AtomicPtr<c_void>,
    gil_release: AtomicPtr<c_void>,
}

static HOOKS: HostHooks = HostHooks {
    check_signals: AtomicPtr::new(std::ptr::null_mut()),
    gil_ensure: AtomicPtr::new(std::ptr::null_mut()),
    gil_release: AtomicPtr::new(std::ptr::null_mut()),
};

/// Registers one host hook by its C name.
pub fn register_host_api(name: &str, symbol: *mut c_void) -> Result<(), Error> {
    let slot = match name {
        "PyErr_CheckSignals" => &HOOKS.check_signals,
        "PyGILState_Ensure" => &HOOKS.gil_ensure,
        "PyGILState_Release" => &HOOKS.gil_release,
        _ => return Err(Error::new("ValueError", format!("Unknown env API {name}"))),
    };
    slot.store(symbol, Ordering::Release);
    Ok(())
}

/// Whether a Python interpreter registered its hooks (its `tvm_ffi` package has loaded).
pub fn python_host_registered() -> bool {
    !HOOKS.gil_ensure.load(Ordering::Acquire).is_null()
}

/// Runs the host's signal check (0 when no host registered one; -1 when it reports a pending error).
pub fn check_signals() -> Result<i32, Error> {
    let check = HOOKS.check_signals.load(Ordering::Acquire);
    if check.is_null() {
        return Ok(0);
    }
    let (ensure, release) = (
        HOOKS.gil_ensure.load(Ordering::Acquire),
        HOOKS.gil_release.load(Ordering::Acquire),
    );
    if ensure.is_null() || release.is_null() {
        return Err(Error::new(
            "InternalError",
            "PyErr_CheckSignals is registered without the GIL functions",
        ));
    }
    // SAFETY: the host registered these with their documented signatures.
    unsafe {
        let ensure: unsafe extern "C" fn() -> *mut c_void = std::mem::transmute(ensure);
        let release: unsafe extern "C" fn(*mut c_void) = std::mem::transmute(release);
        let check: unsafe extern "C" fn() -> i32 = std::mem::transmute(check);
        let state = ensure();
        let code = check();
        release(state);
        Ok(if code != 0 { -1 } else { 0 })
    }
}

/// Offset of the object body from the start of a default-allocator block: room for the
/// `TVMFFIObjectAllocHeader` that sits right before the body, keeping 16-byte alignment.
const DEFAULT_BODY_OFFSET: usize = 16;

extern "C" {
    fn aligned_alloc(alignment: usize, size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

unsafe extern "C" fn default_delete_space(body: *mut c_void) {
    free(body.cast::<u8>().sub(DEFAULT_BODY_OFFSET).cast());
}

unsafe extern "C" fn default_allocate(
    size: usize,
    alignment: usize,
    _type_index: i32,
    _ctx: *mut c_void,
) -> *mut c_void {
    let alignment = alignment.max(DEFAULT_BODY_OFFSET);
    let total = (DEFAULT_BODY_OFFSET + size).div_ceil(alignment) * alignment;
    let base = aligned_alloc(alignment, total);
    if base.is_null() {
        return base;
    }
    let body = base.cast::<u8>().add(DEFAULT_BODY_OFFSET);
    let header = body
        .sub(std::mem::size_of::<TVMFFIObjectAllocHeader>())
        .cast::<TVMFFIObjectAllocHeader>();
    header.write(TVMFFIObjectAllocHeader {
        delete_space: Some(default_delete_space),
    });
    body.cast()
}

struct AllocatorCell(std::cell::UnsafeCell<TVMFFICustomAllocator>);
// SAFETY: never written after construction.
unsafe impl Sync for AllocatorCell {}

static DEFAULT_ALLOCATOR: AllocatorCell =
    AllocatorCell(std::cell::UnsafeCell::new(TVMFFICustomAllocator {
        allocate: Some(default_allocate),
        context: std::ptr::null_mut(),
    }));

static CUSTOM_ALLOCATOR: AtomicPtr<TVMFFICustomAllocator> = AtomicPtr::new(std::ptr::null_mut());

/// The current custom allocator (the builtin one unless a host installed another). Never NULL.
pub fn custom_allocator() -> *mut TVMFFICustomAllocator {
    let current = CUSTOM_ALLOCATOR.load(Ordering::Acquire);
    if current.is_null() {
        DEFAULT_ALLOCATOR.0.get()
    } else {
        current
    }
}

/// Whether a host ever installed its own allocator.
pub fn custom_allocator_installed() -> bool {
    !CUSTOM_ALLOCATOR.load(Ordering::Acquire).is_null()
}

/// Installs a custom allocator (NULL restores the builtin one).
pub fn set_custom_allocator(allocator: *mut TVMFFICustomAllocator) {
    CUSTOM_ALLOCATOR.store(allocator, Ordering::Release);
}

/// Symbols written into libraries loaded later (`TVMFFIEnvModRegisterContextSymbol`).
static CONTEXT_SYMBOLS: Mutex<Vec<(Box<[u8]>, usize)>> = Mutex::new(Vec::new());
/// Symbols of the statically linked system library (`TVMFFIEnvModRegisterSystemLibSymbol`).
static SYSTEM_LIB_SYMBOLS: OnceLock<Mutex<HashMap<Box<[u8]>, usize>>> = OnceLock::new();

/// Records a context symbol for libraries loaded from now on.
pub fn register_context_symbol(name: &[u8], symbol: *mut c_void) {
    CONTEXT_SYMBOLS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((name.into(), symbol as usize));
}

/// The context symbols registered so far, in registration order.
pub fn context_symbols() -> Vec<(Box<[u8]>, *mut c_void)> {
    CONTEXT_SYMBOLS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|(n, s)| (n.clone(), *s as *mut c_void))
        .collect()
}

/// Adds (or replaces, with a warning when the address differs) a system-library symbol.
pub fn register_system_lib_symbol(name: &[u8], symbol: *mut c_void) {
    let table = SYSTEM_LIB_SYMBOLS.get_or_init(|| Mutex::new(HashMap::new()));
    let previous = table
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.into(), symbol as usize);
    if previous.is_some_and(|p| p != symbol as usize) {
        eprintln!(
            "[ffihub] warning: system library symbol {} is registered again with another address",
            String::from_utf8_lossy(name)
        );
    }
}

/// Looks a system-library symbol up.
pub fn system_lib_symbol(name: &[u8]) -> Option<*mut c_void> {
    let table = SYSTEM_LIB_SYMBOLS.get()?;
    table
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(name)
        .map(|s| *s as *mut c_void)
}

static INIT_ONCE_LOCK: Mutex<()> = Mutex::new(());

/// `TVMFFIHandleInitOnce`: fills `*slot` once with `init`'s result.
///
/// # Safety
/// `slot` is a valid, pointer-aligned location only accessed through these functions.
pub unsafe fn init_once(
    slot: *mut *mut c_void,
    init: unsafe extern "C" fn(*mut *mut c_void) -> i32,
) -> i32 {
    let atomic = AtomicPtr::from_ptr(slot);
    if !atomic.load(Ordering::Acquire).is_null() {
        return 0;
    }
    let _guard = INIT_ONCE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if !atomic.load(Ordering::Acquire).is_null() {
        return 0;
    }
    let mut result = std::ptr::null_mut();
    let code = init(&mut result);
    if code != 0 {
        return code;
    }
    if result.is_null() {
        return crate::value::error::raise(Error::new(
            "RuntimeError",
            "init_func must return a non-NULL handle",
        ));
    }
    atomic.store(result, Ordering::Release);
    0
}

/// `TVMFFIHandleDeinitOnce`: empties `*slot` and runs `deinit` on what it held.
///
/// # Safety
/// As for [`init_once`].
pub unsafe fn deinit_once(
    slot: *mut *mut c_void,
    deinit: unsafe extern "C" fn(*mut c_void) -> i32,
) -> i32 {
    let old = AtomicPtr::from_ptr(slot).swap(std::ptr::null_mut(), Ordering::AcqRel);
    if old.is_null() {
        0
    } else {
        deinit(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_per_thread_and_device() {
        let s1 = 0x10 as TVMFFIStreamHandle;
        assert!(set_stream(2, 0, s1).is_null());
        assert_eq!(stream(2, 0), s1);
        assert!(stream(2, 1).is_null());
        assert!(std::thread::spawn(|| stream(2, 0).is_null())
            .join()
            .unwrap());
        assert_eq!(set_stream(2, 0, std::ptr::null_mut()), s1);
    }

    #[test]
    fn default_allocator_writes_the_alloc_header() {
        unsafe {
            let a = &*custom_allocator();
            let body = a.allocate.unwrap()(40, 8, 64, a.context);
            assert_eq!(body as usize % 16, 0);
            let header = &*body.cast::<u8>().sub(8).cast::<TVMFFIObjectAllocHeader>();
            header.delete_space.unwrap()(body);
        }
    }
}
