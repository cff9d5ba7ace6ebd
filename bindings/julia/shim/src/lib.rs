//! `libtvmffi_julia.so`: the native entry points of the Julia support package TVMFFI
//! (`bindings/julia/TVMFFI`), for what must happen before or without any Julia code
//! ([ADR 0016](../../../docs/adr/0016-julia-native-entry.md)):
//!
//! - the safe-call entry of every Julia callback: on a Julia that cannot run Julia code on a
//!   thread it did not start (before 1.9), a call arriving on such a thread fails with a TVM-FFI
//!   error instead of entering Julia; otherwise it forwards to the Julia entry;
//! - the deleters the runtime may call on any thread (callback cells, DLPack blocks of tensors over
//!   Julia arrays): they only mark a keep-alive cell (and free C memory), which Julia code sweeps
//!   later;
//! - the GC-safe call: a packed call made with the calling Julia thread in GC-safe state, so that
//!   a library thread running a Julia callback (Julia 1.9+) can collect garbage while the Julia
//!   thread waits in the call; a callback that then comes back on a Julia thread leaves that state
//!   again before any Julia code runs.
//!
//! The library links nothing but libc: the runtime functions (the call, the one that raises the
//! error) and libjulia's GC-state transitions are handed over by TVMFFI (so the same library
//! serves ffihub's runtime and Apache's, and every Julia), and so is the text of the error
//! (worded for the running Julia). Every entry catches panics.

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::catch_unwind;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::OnceLock;

/// `TVMFFISafeCallType`.
type SafeCall = unsafe extern "C" fn(*mut c_void, *const c_void, i32, *mut c_void) -> c_int;
/// `TVMFFIErrorSetRaisedFromCStr`.
type SetRaised = unsafe extern "C" fn(*const c_char, *const c_char);
/// libjulia's `jl_gc_safe_enter` / `jl_gc_unsafe_enter`: the previous GC state.
type GcEnter = unsafe extern "C" fn() -> i8;
/// libjulia's `jl_gc_safe_leave` / `jl_gc_unsafe_leave`: back to the given state.
type GcLeave = unsafe extern "C" fn(i8);

/// Byte offset of the "released" mark in a keep-alive cell (TVMFFI's `_CELL_FLAG_OFFSET`).
const CELL_FLAG_OFFSET: usize = 40;
/// Byte offset of `manager_ctx` in a `DLManagedTensorVersioned` (after the 8-byte version).
const MANAGER_CTX_OFFSET: usize = 8;

/// What [`tvmffi_julia_init`] was given.
struct Setup {
    entry: SafeCall,
    set_raised: SetRaised,
    /// Whether the running Julia runs calls on threads it did not start (1.9+ adopts them).
    adopts: bool,
    message: CString,
}

static SETUP: OnceLock<Setup> = OnceLock::new();

/// What [`tvmffi_julia_init_gc_safe`] was given.
struct GcSafe {
    call: SafeCall,
    safe_enter: GcEnter,
    safe_leave: GcLeave,
    unsafe_enter: GcEnter,
    unsafe_leave: GcLeave,
}

static GC_SAFE: OnceLock<GcSafe> = OnceLock::new();
/// Set once by [`tvmffi_julia_init`], read on every call (after `SETUP` is filled).
static ENTRY: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

thread_local! {
    // Const-initialized and without a destructor: reading it on a library thread allocates
    // nothing and registers nothing.
    static JULIA_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Sets up the gate: `entry` is the Julia safe-call entry, `set_raised` the runtime's
/// `TVMFFIErrorSetRaisedFromCStr`, `adopts` nonzero when Julia runs calls on foreign threads,
/// `message` the error raised for a call on a thread Julia cannot serve. The first call wins
/// (one Julia per process); returns 0, or -1 if arguments are null.
///
/// # Safety
/// `entry` and `set_raised` are functions of the named types, `message` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn tvmffi_julia_init(
    entry: *mut c_void,
    set_raised: *mut c_void,
    adopts: c_int,
    message: *const c_char,
) -> c_int {
    catch_unwind(|| {
        if entry.is_null() || set_raised.is_null() || message.is_null() {
            return -1;
        }
        // SAFETY: the caller passes functions of these types and a C string.
        let setup = unsafe {
            Setup {
                entry: std::mem::transmute::<*mut c_void, SafeCall>(entry),
                set_raised: std::mem::transmute::<*mut c_void, SetRaised>(set_raised),
                adopts: adopts != 0,
                message: CStr::from_ptr(message).to_owned(),
            }
        };
        let stored = SETUP.get_or_init(|| setup);
        ENTRY.store(stored.entry as *mut c_void, Ordering::Release);
        0
    })
    .unwrap_or(-1)
}

/// Marks the calling thread as one Julia runs code on (TVMFFI calls it on each of its threads).
#[no_mangle]
pub extern "C" fn tvmffi_julia_mark_thread() {
    let _ = catch_unwind(|| JULIA_THREAD.with(|t| t.set(true)));
}

/// Whether a call on this thread may enter Julia.
#[no_mangle]
pub extern "C" fn tvmffi_julia_can_enter() -> c_int {
    catch_unwind(can_enter).map(c_int::from).unwrap_or(0)
}

fn can_enter() -> bool {
    SETUP.get().is_some_and(|s| s.adopts) || JULIA_THREAD.with(Cell::get)
}

/// The safe-call entry of Julia callbacks: forwards to the Julia entry when Julia can run code on
/// this thread, else raises a `RuntimeError` and returns -1 without running any Julia code.
///
/// # Safety
/// Called by the runtime with the arguments of a `TVMFFISafeCallType`.
#[no_mangle]
pub unsafe extern "C" fn tvmffi_julia_safe_call(
    handle: *mut c_void,
    args: *const c_void,
    num_args: i32,
    result: *mut c_void,
) -> c_int {
    if !catch_unwind(can_enter).unwrap_or(false) {
        let _ = catch_unwind(|| {
            if let Some(setup) = SETUP.get() {
                // SAFETY: the runtime's TVMFFIErrorSetRaisedFromCStr, two C strings.
                unsafe { (setup.set_raised)(c"RuntimeError".as_ptr(), setup.message.as_ptr()) };
            }
        });
        return -1;
    }
    let entry = ENTRY.load(Ordering::Acquire);
    if entry.is_null() {
        // Unreachable in practice: threads are marked only after `tvmffi_julia_init`.
        return -1;
    }
    // SAFETY: `entry` is the Julia entry stored by `tvmffi_julia_init`, which catches every
    // exception itself.
    let entry = unsafe { std::mem::transmute::<*mut c_void, SafeCall>(entry) };
    // A Julia thread may be inside a GC-safe call (`tvmffi_julia_call_gc_safe`): Julia code must
    // not run in that state, so leave it for the callback. (A thread Julia adopts on 1.9+ is
    // entered by the `@cfunction` itself, which makes that transition when it has a Julia state.)
    match GC_SAFE.get().filter(|_| JULIA_THREAD.with(Cell::get)) {
        // SAFETY: libjulia's transitions, on a thread Julia runs code on.
        Some(gc) => unsafe {
            let state = (gc.unsafe_enter)();
            let rc = entry(handle, args, num_args, result);
            (gc.unsafe_leave)(state);
            rc
        },
        // SAFETY: as above.
        None => unsafe { entry(handle, args, num_args, result) },
    }
}

/// Sets up GC-safe calls: `call` is the runtime's `TVMFFIFunctionCall`, the other four are
/// libjulia's `jl_gc_safe_enter`, `jl_gc_safe_leave`, `jl_gc_unsafe_enter`, `jl_gc_unsafe_leave`.
/// The first call wins; returns 0, or -1 if an argument is null.
///
/// # Safety
/// The arguments are functions of those types.
#[no_mangle]
pub unsafe extern "C" fn tvmffi_julia_init_gc_safe(
    call: *mut c_void,
    safe_enter: *mut c_void,
    safe_leave: *mut c_void,
    unsafe_enter: *mut c_void,
    unsafe_leave: *mut c_void,
) -> c_int {
    catch_unwind(|| {
        let all = [call, safe_enter, safe_leave, unsafe_enter, unsafe_leave];
        if all.iter().any(|p| p.is_null()) {
            return -1;
        }
        // SAFETY: the caller passes functions of these types.
        let gc = unsafe {
            GcSafe {
                call: std::mem::transmute::<*mut c_void, SafeCall>(call),
                safe_enter: std::mem::transmute::<*mut c_void, GcEnter>(safe_enter),
                safe_leave: std::mem::transmute::<*mut c_void, GcLeave>(safe_leave),
                unsafe_enter: std::mem::transmute::<*mut c_void, GcEnter>(unsafe_enter),
                unsafe_leave: std::mem::transmute::<*mut c_void, GcLeave>(unsafe_leave),
            }
        };
        let _ = GC_SAFE.set(gc);
        0
    })
    .unwrap_or(-1)
}

/// `TVMFFIFunctionCall` with the calling Julia thread in GC-safe state for the duration of the
/// call: while a library works (or waits for its own threads), other threads may collect
/// garbage. The arguments stay valid: Julia's collector moves nothing, and the caller roots them
/// (`GC.@preserve`). Returns -1 (with no error raised) if [`tvmffi_julia_init_gc_safe`] has not
/// run, which TVMFFI never does.
///
/// # Safety
/// Called from Julia code with the arguments of `TVMFFIFunctionCall`.
#[no_mangle]
pub unsafe extern "C" fn tvmffi_julia_call_gc_safe(
    func: *mut c_void,
    args: *const c_void,
    num_args: i32,
    result: *mut c_void,
) -> c_int {
    // No `catch_unwind`: nothing here can panic (a `OnceLock` read and three C calls, none of
    // which unwinds), and this is every packed call's path.
    let Some(gc) = GC_SAFE.get() else { return -1 };
    // SAFETY: libjulia's transitions on the calling Julia thread, and the runtime's call with
    // the caller's arguments.
    unsafe {
        let state = (gc.safe_enter)();
        let rc = (gc.call)(func, args, num_args, result);
        (gc.safe_leave)(state);
        rc
    }
}

fn cell_flag(cell: *mut c_void) -> &'static AtomicU64 {
    // SAFETY: a keep-alive cell is a 64-byte, 8-aligned C block (Libc.malloc) that lives until
    // Julia sweeps it, which it does only after this mark is set.
    unsafe { AtomicU64::from_ptr(cell.cast::<u8>().add(CELL_FLAG_OFFSET).cast()) }
}

/// Deleter of callback functions: marks the keep-alive cell released.
///
/// # Safety
/// `cell` is a keep-alive cell TVMFFI made.
#[no_mangle]
pub unsafe extern "C" fn tvmffi_julia_cell_deleter(cell: *mut c_void) {
    let _ = catch_unwind(|| {
        if !cell.is_null() {
            cell_flag(cell).store(1, Ordering::Release);
        }
    });
}

/// Whether the runtime has released the object behind `cell` (1) or not (0).
///
/// # Safety
/// `cell` is a keep-alive cell TVMFFI made and has not freed.
#[no_mangle]
pub unsafe extern "C" fn tvmffi_julia_cell_released(cell: *mut c_void) -> c_int {
    catch_unwind(|| c_int::from(cell_flag(cell).load(Ordering::Acquire) != 0)).unwrap_or(0)
}

/// Deleter of the `DLManagedTensorVersioned` of a tensor over a Julia array: marks the cell in its
/// `manager_ctx` released and frees the block (one `malloc`'d block with shape and strides).
///
/// # Safety
/// `managed` is a block TVMFFI made with `malloc`, passed once.
#[no_mangle]
pub unsafe extern "C" fn tvmffi_julia_dlpack_deleter(managed: *mut c_void) {
    let _ = catch_unwind(|| {
        if managed.is_null() {
            return;
        }
        // SAFETY: the block starts with a DLManagedTensorVersioned whose manager_ctx is a cell.
        unsafe {
            let cell = *managed
                .cast::<u8>()
                .add(MANAGER_CTX_OFFSET)
                .cast::<*mut c_void>();
            if !cell.is_null() {
                cell_flag(cell).store(1, Ordering::Release);
            }
            libc::free(managed);
        }
    });
}
