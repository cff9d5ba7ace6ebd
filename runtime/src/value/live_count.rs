//! The live-object count (`ffihub.LiveObjectCount`), kept per thread so that allocation and
//! release cost no shared atomic operation, and only once someone has asked for it.
//!
//! Counting starts at the first read of the count: until then allocation and release pay one
//! well-predicted branch on a global flag instead of a thread-local access each (a call in a
//! shared library). An object counted at allocation carries [`COUNTED`] in its header's
//! `__padding`, so its release is counted exactly when its allocation was: the count is the
//! number of objects allocated since counting started and not freed yet, which is what a leak
//! check compares (a baseline read, the work, a second read).
//!
//! Each thread owns a counter that only it writes (a plain load and store, no locked
//! instruction); reading the count sums every thread's counter. An object freed on another
//! thread than the one that made it decrements the freeing thread's counter, so single counters
//! may go negative; only the sum means something. When a thread exits, its counter is folded
//! into `RETIRED` under the registry lock, so the sum never counts it twice or loses it.
//!
//! The sum is exact whenever no other thread is allocating or freeing at the same moment, which
//! is how leak checks use it.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Mutex;

/// Whether allocations are counted (set at the first read of the count, never cleared).
static COUNTING: AtomicBool = AtomicBool::new(false);

/// The header mark (`__padding`) of an object whose allocation was counted.
pub const COUNTED: u32 = 1;

/// Counters of the running threads (leaked: a few bytes per thread ever started, reused).
struct Registry {
    live: Vec<&'static AtomicI64>,
    free: Vec<&'static AtomicI64>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    free: Vec::new(),
});

/// Counts of exited threads, and of changes made while a thread's counter was being torn down.
static RETIRED: AtomicI64 = AtomicI64::new(0);

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// This thread's counter; registered on first use, retired by the destructor.
struct Slot(&'static AtomicI64);

impl Slot {
    fn register() -> Slot {
        let mut registry = registry();
        let counter = registry
            .free
            .pop()
            .unwrap_or_else(|| Box::leak(Box::new(AtomicI64::new(0))));
        registry.live.push(counter);
        Slot(counter)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // From now on this thread counts centrally (see `add_slow`): the counter goes back to
        // the free list for another thread.
        let _ = COUNTER.try_with(|c| c.set(None));
        let mut registry = registry();
        RETIRED.fetch_add(self.0.swap(0, Ordering::Relaxed), Ordering::Relaxed);
        registry.live.retain(|c| !std::ptr::eq(*c, self.0));
        registry.free.push(self.0);
    }
}

thread_local! {
    static SLOT: Slot = Slot::register();
    // Cached address of this thread's counter: one TLS read on the hot path.
    static COUNTER: Cell<Option<&'static AtomicI64>> = const { Cell::new(None) };
}

/// Out of line: counting is for leak checks, the allocation paths stay small without it.
#[inline(never)]
fn add(delta: i64) {
    let cached = COUNTER.try_with(|c| c.get()).ok().flatten();
    let counter = match cached {
        Some(counter) => counter,
        None => return add_slow(delta),
    };
    // Only this thread writes its counter: no read-modify-write instruction is needed.
    counter.store(counter.load(Ordering::Relaxed) + delta, Ordering::Relaxed);
}

#[cold]
fn add_slow(delta: i64) {
    // First use on this thread, or the thread is exiting (its TLS is being destroyed).
    match SLOT.try_with(|slot| slot.0) {
        Ok(counter) => {
            let _ = COUNTER.try_with(|c| c.set(Some(counter)));
            counter.store(counter.load(Ordering::Relaxed) + delta, Ordering::Relaxed);
        }
        // The thread is exiting and its slot is gone: count centrally.
        Err(_) => {
            RETIRED.fetch_add(delta, Ordering::Relaxed);
        }
    }
}

/// Records one allocated object, whose header is already written (without [`COUNTED`]), if
/// counting has started: marks it [`COUNTED`] for [`freed`]. The counting path is out of line,
/// so that allocation keeps no value in a register across it.
///
/// # Safety
/// `obj` points at the header of an object nobody else sees yet.
#[inline]
pub unsafe fn mark_allocated(obj: *mut crate::abi::TVMFFIObject) {
    if COUNTING.load(Ordering::Relaxed) {
        count_and_mark(obj);
    }
}

#[cold]
#[inline(never)]
unsafe fn count_and_mark(obj: *mut crate::abi::TVMFFIObject) {
    add(1);
    (*obj).__padding |= COUNTED;
}

/// Whether an object whose header carries `mark` was counted by [`mark_allocated`].
#[inline]
pub fn is_counted(mark: u32) -> bool {
    mark & COUNTED != 0
}

/// Records the release of an object whose header carries `mark` (from [`mark_allocated`]).
#[inline]
pub fn freed(mark: u32) {
    if is_counted(mark) {
        add(-1);
    }
}

/// The number of objects allocated since counting started and not freed yet, over all threads;
/// starts counting (the first read returns 0 unless other threads allocate meanwhile).
pub fn total() -> i64 {
    let registry = registry();
    COUNTING.store(true, Ordering::Relaxed);
    let live: i64 = registry
        .live
        .iter()
        .map(|c| c.load(Ordering::Relaxed))
        .sum();
    live + RETIRED.load(Ordering::Relaxed)
}
