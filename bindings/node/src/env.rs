//! Per-environment state. Node can load the addon in several environments (the main thread and
//! each `worker_thread`); each gets its own [`EnvData`] (Node-API instance data), and an
//! [`EnvShared`] that other threads may hold.
//!
//! Threads: JavaScript values of an environment are only touched on its thread. Other threads
//! reach it through one thread-safe function per environment, which is unref'd (it never keeps
//! the process alive) and carries two kinds of jobs: calls of JavaScript callbacks made by native
//! code on other threads (the calling thread waits for the result), and the release of
//! references dropped on other threads.
//!
//! A waiting thread must not wait for a JavaScript thread that waits for it (a library joining
//! the thread it called back from, while JavaScript is inside the synchronous call that started
//! it). The JavaScript thread counts its synchronous calls into TVM-FFI ([`SyncCall`]); a
//! callback still waiting for its turn when that thread has stayed inside one such call for
//! [`BLOCKED_AFTER`] fails with an error saying so, instead of hanging (docs/node.md).

use crate::ffi;
use crate::napi::{Env, Result};
use ffihub_abi::abi::{TVMFFIAny, TVMFFIObjectHandle};
use napi_sys::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

/// How long a callback from another thread waits while its JavaScript thread stays inside one
/// synchronous call before it fails (that call may be waiting for the callback's thread).
pub const BLOCKED_AFTER: Duration = Duration::from_millis(100);

/// The part of an environment's state that other threads may hold.
pub struct EnvShared {
    /// The environment's JavaScript thread.
    pub thread: ThreadId,
    /// Boundaries of the JavaScript thread's outermost synchronous calls into TVM-FFI (entries
    /// and exits): odd while it is inside one. Written only by that thread.
    sync_calls: AtomicU64,
    state: Mutex<SharedState>,
}

struct SharedState {
    /// False once the environment is being torn down.
    alive: bool,
    env: napi_env,
    /// The environment's thread-safe function (None once closed).
    tsfn: Option<TsfnPtr>,
    /// References dropped on other threads, deleted on the next drain.
    dropped: Vec<RefPtr>,
}

#[derive(Clone, Copy)]
struct TsfnPtr(napi_threadsafe_function);
#[derive(Clone, Copy)]
struct RefPtr(napi_ref);

// SAFETY: the raw pointers are only dereferenced by Node-API on the environment's thread, except
// for the thread-safe function, whose call/release functions may be called from any thread; the
// mutex serializes access to the containers.
unsafe impl Send for SharedState {}

/// A job for the environment's thread.
enum Job {
    /// Delete the references dropped on other threads.
    Drain,
    /// Run a JavaScript callback for a native caller waiting on another thread.
    Call(Arc<CrossCall>),
}

/// A JavaScript callback invoked on another thread, waiting for its result.
pub struct CrossCall {
    /// The callback (kept alive by the caller while it waits).
    pub callback: *const crate::function::JsCallback,
    /// The borrowed arguments (alive while the caller waits).
    pub args: *const TVMFFIAny,
    /// Number of arguments.
    pub num_args: usize,
    /// Where the call stands; the outcome once it ran.
    pub state: Mutex<CallState>,
    /// Signalled when the outcome is set.
    pub done: Condvar,
}

/// Where a [`CrossCall`] stands.
pub enum CallState {
    /// Queued, not started: the waiter may still give up.
    Queued,
    /// Running on the environment's thread: the waiter waits for it to end.
    Running,
    /// The waiter gave up before it started: the environment's thread skips it.
    Abandoned,
    /// Ok(owned result) or Err(owned error object).
    Done(std::result::Result<SendAny, SendHandle>),
}

// SAFETY: the waiting thread keeps the callback and the arguments alive until the call is done
// or abandoned (after which the environment's thread no longer reads them); the state is behind
// a mutex.
unsafe impl Sync for CrossCall {}
// SAFETY: as above.
unsafe impl Send for CrossCall {}

/// An owned Any moved between threads.
pub struct SendAny(pub TVMFFIAny);
// SAFETY: owned TVM-FFI values may be used from any thread (atomic reference counts).
unsafe impl Send for SendAny {}

/// An owned object handle moved between threads.
pub struct SendHandle(pub TVMFFIObjectHandle);
// SAFETY: as above.
unsafe impl Send for SendHandle {}

impl EnvShared {
    /// Whether the caller runs on the environment's thread.
    pub fn on_thread(&self) -> bool {
        std::thread::current().id() == self.thread
    }

    /// Whether the environment is still alive.
    pub fn alive(&self) -> bool {
        self.lock().alive
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SharedState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Deletes a reference created in this environment, from any thread: directly on the
    /// environment's thread, else on its next turn. A reference of a dead environment is
    /// dropped (the environment freed it).
    pub fn release_ref(&self, r: napi_ref) {
        let mut state = self.lock();
        if !state.alive {
            return;
        }
        if self.on_thread() {
            let env = state.env;
            drop(state);
            Env(env).delete_reference(r);
            return;
        }
        state.dropped.push(RefPtr(r));
        if state.dropped.len() == 1 {
            if let Some(tsfn) = state.tsfn {
                let job = Box::into_raw(Box::new(Job::Drain));
                // SAFETY: the thread-safe function may be called from any thread; on failure
                // (closing) the job is ours to free.
                let status = unsafe {
                    napi_call_threadsafe_function(
                        tsfn.0,
                        job.cast(),
                        ThreadsafeFunctionCallMode::nonblocking,
                    )
                };
                if status != Status::napi_ok {
                    // SAFETY: not queued, so still owned here.
                    drop(unsafe { Box::from_raw(job) });
                }
            }
        }
    }

    /// Runs `call` on the environment's thread and waits for its outcome. Fails when the
    /// environment is gone or closing, or with `blocked` when the environment's thread stays
    /// inside one synchronous call for [`BLOCKED_AFTER`] before the call started.
    pub fn call_on_thread(
        &self,
        call: &Arc<CrossCall>,
        blocked: impl FnOnce() -> String,
    ) -> std::result::Result<std::result::Result<SendAny, SendHandle>, String> {
        {
            let state = self.lock();
            let Some(tsfn) = state.tsfn.filter(|_| state.alive) else {
                return Err("the JavaScript environment of this callback has exited".to_string());
            };
            let job = Box::into_raw(Box::new(Job::Call(call.clone())));
            // SAFETY: as in release_ref.
            let status = unsafe {
                napi_call_threadsafe_function(
                    tsfn.0,
                    job.cast(),
                    ThreadsafeFunctionCallMode::nonblocking,
                )
            };
            if status != Status::napi_ok {
                // SAFETY: not queued.
                drop(unsafe { Box::from_raw(job) });
                return Err(
                    "the JavaScript environment of this callback is shutting down".to_string(),
                );
            }
        }
        let mut seen = self.sync_calls.load(Ordering::Acquire);
        let mut state = call.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match std::mem::replace(&mut *state, CallState::Abandoned) {
                CallState::Done(outcome) => return Ok(outcome),
                other => *state = other,
            }
            let (next, timeout) = call
                .done
                .wait_timeout(state, BLOCKED_AFTER)
                .unwrap_or_else(|e| e.into_inner());
            state = next;
            if !timeout.timed_out() || !matches!(*state, CallState::Queued) {
                continue;
            }
            // Still queued: is the JavaScript thread inside the same synchronous call as a
            // whole wait ago? Then it may be waiting for this thread: give up.
            let now = self.sync_calls.load(Ordering::Acquire);
            if now % 2 == 1 && now == seen {
                *state = CallState::Abandoned;
                return Err(blocked());
            }
            seen = now;
        }
    }

    /// Marks the start or the end of an outermost synchronous call (on the JavaScript thread).
    #[inline]
    fn sync_boundary(&self) {
        let n = self.sync_calls.load(Ordering::Relaxed);
        self.sync_calls.store(n.wrapping_add(1), Ordering::Release);
    }
}

/// A synchronous call into TVM-FFI made by the JavaScript thread, from [`SyncCall::enter`] to
/// the guard's drop: callbacks from other threads cannot run meanwhile (see the module doc).
pub struct SyncCall<'a>(&'a EnvData);

impl<'a> SyncCall<'a> {
    /// Enters a synchronous call (calls may nest: only the outermost counts).
    #[inline]
    pub fn enter(data: &'a EnvData) -> Self {
        let depth = data.sync_depth.get();
        if depth == 0 {
            data.shared.sync_boundary();
        }
        data.sync_depth.set(depth + 1);
        SyncCall(data)
    }
}

impl Drop for SyncCall<'_> {
    #[inline]
    fn drop(&mut self) {
        let data = self.0;
        let depth = data.sync_depth.get() - 1;
        data.sync_depth.set(depth);
        if depth == 0 {
            data.shared.sync_boundary();
            if !data.released_after_call.borrow().is_empty() {
                data.release_deferred();
            }
        }
    }
}

/// References to JavaScript values that index.js hands to the addon at start-up.
#[derive(Default)]
pub struct Hooks {
    /// `(kind, message, backtrace) => Error`: builds the error object of a kind.
    pub make_error: Option<napi_ref>,
    /// `(error) => [kind, message, backtrace]`: describes a JavaScript exception.
    pub error_parts: Option<napi_ref>,
    /// The prototype of the functions that wrap TVM-FFI functions.
    pub function_proto: Option<napi_ref>,
    /// `Object.setPrototypeOf`.
    pub set_prototype_of: Option<napi_ref>,
    /// The `DataType` class.
    pub data_type: Option<napi_ref>,
    /// The `Device` class.
    pub device: Option<napi_ref>,
    /// The `OpaquePtr` class.
    pub opaque_ptr: Option<napi_ref>,
    /// The global `Map` class.
    pub map: Option<napi_ref>,
    /// `(map) => [k0, v0, k1, v1, ...]`.
    pub flatten_map: Option<napi_ref>,
    /// `(array) => Float64Array | null`: the numbers of an all-number array.
    pub pack_numbers: Option<napi_ref>,
    /// `Object.prototype` (plain objects convert to maps).
    pub object_proto: Option<napi_ref>,
    /// The `ffi.Object` base class (for messages about disposed objects).
    pub object_base: Option<napi_ref>,
    /// `(value) => number`: the address of the object cell a wrapper carries, else 0.
    pub cell_of: Option<napi_ref>,
    /// `(arrayBuffer) => void`: marks a buffer untransferable (under a tensor).
    pub keep_attached: Option<napi_ref>,
    /// `Array.isArray` (which sees through proxies, unlike `napi_is_array`).
    pub is_array: Option<napi_ref>,
}

/// How a field is read and written (copied from its reflection record).
#[derive(Clone, Copy)]
pub struct FieldAccess {
    /// Offset from the object header.
    pub offset: i64,
    /// Reflection flags.
    pub flags: i64,
    /// The getter.
    pub getter: ffihub_abi::abi::TVMFFIFieldGetter,
    /// The setter (a C function, or a Function object with `SetterIsFunctionObj`).
    pub setter: *mut c_void,
}

/// A field name and where it has been found so far: `(type index, accessor)` pairs, usually
/// one (a class's instances rarely have several concrete types).
pub struct FieldSlot {
    /// The registered field name.
    pub name: Box<[u8]>,
    /// Accessors already resolved for a type index.
    pub by_type: Vec<(i32, FieldAccess)>,
}

/// The state of one environment, owned by Node-API's instance data.
pub struct EnvData {
    /// The environment.
    pub env: Env,
    /// What other threads hold.
    pub shared: Arc<EnvShared>,
    /// Start-up hooks.
    pub hooks: RefCell<Hooks>,
    /// Registered classes: type index -> shell constructor (a function whose prototype is the
    /// class's prototype, so instances are made without running the class constructor).
    pub registered: RefCell<HashMap<i32, napi_ref>>,
    /// Resolved classes: type index -> shell of the most derived registered class.
    pub resolved: RefCell<HashMap<i32, napi_ref>>,
    /// The wrappers that hold their reference, by object (shared with their cells, whose
    /// finalizers may run after this state's at teardown).
    pub wrappers: std::rc::Rc<crate::object::Wrappers>,
    /// Field names by id (JavaScript caches each name's id, so a field read passes a number
    /// instead of copying and hashing the name).
    pub field_ids: RefCell<HashMap<Box<[u8]>, u32>>,
    /// Per field id: its name and the accessors resolved so far, by type index.
    pub field_slots: RefCell<Vec<FieldSlot>>,
    /// The field readers made by `fieldGetters` (their functions point at them, so each is
    /// boxed: its address must not change when the vector grows).
    #[allow(clippy::vec_box)]
    pub field_readers: RefCell<Vec<Box<crate::object::FieldReader>>>,
    /// The field scratch: a 2-element `Float64Array` that `lib/object.js` keeps, through
    /// which field readers take a handle and return a number (see `object::read_field`).
    pub field_scratch: Cell<*mut f64>,
    /// The JavaScript containers being converted, outermost first (see `convert::Nesting`).
    pub open_containers: RefCell<Vec<napi_value>>,
    /// The `ffi.GetKwargsObject()` marker (owned), once fetched.
    pub kwargs_marker: Cell<TVMFFIObjectHandle>,
    /// The object made by the last `construct` and not yet adopted by its wrapper (owned),
    /// with the number of that construction (see `object::construct`).
    pub pending: Cell<(u64, TVMFFIObjectHandle)>,
    /// The thread-safe function (also stored in `shared`).
    tsfn: Cell<napi_threadsafe_function>,
    /// Synchronous calls into TVM-FFI in progress on this thread (see [`SyncCall`]).
    sync_depth: Cell<u32>,
    /// References of wrappers disposed during a synchronous call (which may borrow them),
    /// released when it ends.
    released_after_call: RefCell<Vec<TVMFFIObjectHandle>>,
    /// The tensors made for TypedArray arguments of the synchronous calls in progress (see
    /// `tensor::CallTensors`).
    pub call_tensors: RefCell<Vec<crate::tensor::CallTensor>>,
    /// The tensor the next call passing a TypedArray over the same memory takes (see
    /// `tensor::SpareTensor`).
    pub spare_tensor: Cell<Option<crate::tensor::SpareTensor>>,
}

impl EnvData {
    /// Creates the state of `env` and registers it as the environment's instance data.
    pub fn install(env: Env) -> Result<&'static EnvData> {
        let shared = Arc::new(EnvShared {
            thread: std::thread::current().id(),
            sync_calls: AtomicU64::new(0),
            state: Mutex::new(SharedState {
                alive: true,
                env: env.0,
                tsfn: None,
                dropped: Vec::new(),
            }),
        });
        let data = Box::new(EnvData {
            env,
            shared: shared.clone(),
            hooks: RefCell::default(),
            registered: RefCell::default(),
            resolved: RefCell::default(),
            wrappers: Default::default(),
            field_ids: RefCell::default(),
            field_slots: RefCell::default(),
            field_readers: RefCell::default(),
            field_scratch: Cell::new(ptr::null_mut()),
            open_containers: RefCell::default(),
            kwargs_marker: Cell::new(ptr::null_mut()),
            pending: Cell::new((0, ptr::null_mut())),
            tsfn: Cell::new(ptr::null_mut()),
            sync_depth: Cell::new(0),
            call_tensors: RefCell::default(),
            spare_tensor: Cell::new(None),
            released_after_call: RefCell::default(),
        });
        let data = Box::into_raw(data);
        // SAFETY: `data` is a fresh allocation owned by the environment from now on; the
        // finalizer frees it at teardown.
        env.check(unsafe {
            napi_set_instance_data(env.0, data.cast(), Some(finalize_env), ptr::null_mut())
        })?;
        // SAFETY: just allocated; lives until the environment is torn down.
        let data: &'static EnvData = unsafe { &*data };

        let name = env.string(b"ffihub")?;
        let mut tsfn = ptr::null_mut();
        let context = Arc::into_raw(shared.clone()) as *mut c_void;
        // SAFETY: `context` is an Arc reference released by `finalize_tsfn`; no JS function is
        // attached (`call_js` does the work).
        env.check(unsafe {
            napi_create_threadsafe_function(
                env.0,
                ptr::null_mut(),
                ptr::null_mut(),
                name,
                0,
                1,
                context,
                Some(finalize_tsfn),
                context,
                Some(call_js),
                &mut tsfn,
            )
        })?;
        // SAFETY: `tsfn` was just created on this env; unref'd, it does not keep the loop alive.
        env.check(unsafe { napi_unref_threadsafe_function(env.0, tsfn) })?;
        data.tsfn.set(tsfn);
        shared.lock().tsfn = Some(TsfnPtr(tsfn));
        Ok(data)
    }

    /// The environment state behind a native function's data pointer.
    ///
    /// # Safety
    /// `data` must be the pointer registered with the function (an `EnvData` of a live env).
    pub unsafe fn from_data<'a>(data: *mut c_void) -> &'a EnvData {
        // SAFETY: guaranteed by the caller.
        unsafe { &*(data as *const EnvData) }
    }

    /// The value of a start-up hook.
    pub fn hook(&self, pick: impl Fn(&Hooks) -> Option<napi_ref>) -> Result<napi_value> {
        let r = pick(&self.hooks.borrow());
        match r {
            Some(r) => self.env.deref(r),
            None => crate::napi::error("the ffihub addon was not initialized by index.js"),
        }
    }

    /// Whether a synchronous call into TVM-FFI is in progress on this thread.
    pub fn in_sync_call(&self) -> bool {
        self.sync_depth.get() > 0
    }

    /// Releases `handle` (owned) when the synchronous call in progress ends.
    pub fn release_after_call(&self, handle: TVMFFIObjectHandle) {
        self.released_after_call.borrow_mut().push(handle);
    }

    #[cold]
    fn release_deferred(&self) {
        let handles = std::mem::take(&mut *self.released_after_call.borrow_mut());
        for handle in handles {
            // SAFETY: owned references handed over by `release_after_call`.
            unsafe { ffi::TVMFFIObjectDecRef(handle) };
        }
    }

    /// The `ffi.GetKwargsObject()` marker (borrowed; owned by this state).
    pub fn kwargs_marker(&self) -> Result<TVMFFIObjectHandle> {
        let cached = self.kwargs_marker.get();
        if !cached.is_null() {
            return Ok(cached);
        }
        let marker = crate::function::call_global_for_object(b"ffi.GetKwargsObject")?;
        self.kwargs_marker.set(marker);
        Ok(marker)
    }
}

unsafe extern "C" fn finalize_env(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `data` is the EnvData installed by `install`, finalized once.
        let data = unsafe { Box::from_raw(data as *mut EnvData) };
        {
            let mut state = data.shared.lock();
            state.alive = false;
            state.dropped.clear();
            if let Some(tsfn) = state.tsfn.take() {
                // SAFETY: aborting makes further calls fail with napi_closing; queued jobs are
                // delivered with a NULL env (see call_js).
                unsafe {
                    napi_release_threadsafe_function(tsfn.0, ThreadsafeFunctionReleaseMode::abort)
                };
            }
        }
        data.release_deferred();
        drop(data.spare_tensor.take());
        for owned in [data.kwargs_marker.get(), data.pending.get().1] {
            if !owned.is_null() {
                // SAFETY: the marker and a pending construction are owned by this state.
                unsafe { ffi::TVMFFIObjectDecRef(owned) };
            }
        }
        // The environment frees its references itself at teardown.
    });
}

unsafe extern "C" fn finalize_tsfn(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `data` is the Arc reference handed over in `install`.
        let shared = unsafe { Arc::from_raw(data as *const EnvShared) };
        shared.lock().tsfn = None;
    });
}

unsafe extern "C" fn call_js(
    env: napi_env,
    _js_callback: napi_value,
    context: *mut c_void,
    data: *mut c_void,
) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `data` is a Job boxed by `release_ref` or `call_on_thread`.
        let job = unsafe { Box::from_raw(data as *mut Job) };
        // SAFETY: `context` is the Arc reference owned by the thread-safe function, alive until
        // `finalize_tsfn`, which runs after the last job.
        let shared = unsafe { &*(context as *const EnvShared) };
        match *job {
            Job::Drain => {
                let dropped = std::mem::take(&mut shared.lock().dropped);
                if !env.is_null() && shared.alive() {
                    for r in dropped {
                        Env(env).delete_reference(r.0);
                    }
                }
            }
            Job::Call(call) => {
                {
                    let mut state = call.state.lock().unwrap_or_else(|e| e.into_inner());
                    if !matches!(*state, CallState::Queued) {
                        // Abandoned by its waiter, which no longer holds its arguments.
                        return;
                    }
                    *state = CallState::Running;
                }
                let outcome = if env.is_null() || !shared.alive() {
                    Err(SendHandle(ffi::make_error(
                        "RuntimeError",
                        "the JavaScript environment of this callback has exited",
                        "",
                    )))
                } else {
                    // SAFETY: the callback object outlives the call (the waiter holds it), and
                    // we are on its environment's thread.
                    let callback = unsafe { &*call.callback };
                    // SAFETY: the waiting thread keeps the arguments alive.
                    let args = unsafe { std::slice::from_raw_parts(call.args, call.num_args) };
                    callback
                        .invoke(Env(env), args)
                        .map(SendAny)
                        .map_err(SendHandle)
                };
                *call.state.lock().unwrap_or_else(|e| e.into_inner()) = CallState::Done(outcome);
                call.done.notify_all();
            }
        }
    });
}
