//! The native stack's bounds, for the two guards that keep deep recursion from crashing the
//! process: [`StackGuard`] for traversals that recurse on the nesting of their input, and the
//! check before entering a foreign callback ([`callback_stack_exhausted`], with the per-callback
//! [`CallbackStackHint`]), which turns unbounded host -> native -> host re-entry into the host's
//! exception.

use crate::value::error::Error;
use std::cell::Cell;

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
