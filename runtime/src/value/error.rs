//! Error objects and the per-thread "raised error" slot of the safe-call convention.

use crate::abi::{
    TVMFFIByteArray, TVMFFIErrorCell, TVMFFIObject, TVMFFIObjectHandle, TVMFFITypeIndex,
};
use crate::tindex;
use crate::value::any::{byte_array, byte_array_slice};
use crate::value::object::{alloc_object, ObjectRef, RustObject};
use std::cell::RefCell;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

/// Payload of the Error objects this runtime creates: the ABI cell, then the storage it points at.
/// Each text is stored with a NUL after it (not counted in the cell's sizes), as Apache's
/// `std::string`-backed errors are: C++ code reads `message.data` as a C string
/// (`tvm::ffi::Error::what()`).
///
/// Backtraces are symbolized lazily: an error raised by the runtime keeps the raw return
/// addresses in `pending`, and the text is made when someone can read it: when the error is
/// fetched through the C API (`TVMFFIErrorMoveFromRaised`), handed out as an object, or read in
/// Rust. Errors that the runtime raises and handles itself never pay for symbols.
#[repr(C)]
struct ErrorPayload {
    cell: TVMFFIErrorCell,
    kind: Box<[u8]>,
    message: Box<[u8]>,
    backtrace: Vec<u8>,
    pending: Mutex<Option<ffihub_backtrace::Trace>>,
}

impl Drop for ErrorPayload {
    fn drop(&mut self) {
        // SAFETY: the cell owns one reference to each (possibly NULL) handle.
        unsafe {
            crate::value::object::dec_ref(self.cell.cause_chain.cast());
            crate::value::object::dec_ref(self.cell.extra_context.cast());
        }
    }
}

/// `update_backtrace` of our Error objects.
unsafe extern "C" fn update_backtrace(
    obj: TVMFFIObjectHandle,
    backtrace: *const TVMFFIByteArray,
    mode: i32,
) {
    let payload = &mut (*obj.cast::<RustObject<ErrorPayload>>()).payload;
    resolve_payload(payload);
    let text = byte_array_slice(&*backtrace);
    let append =
        mode == crate::abi::TVMFFIBacktraceUpdateMode::kTVMFFIBacktraceUpdateModeAppend as i32;
    let kept = if append {
        payload.backtrace.len() - 1
    } else {
        0
    };
    payload.backtrace.truncate(kept);
    payload.backtrace.extend_from_slice(text);
    payload.backtrace.push(0);
    payload.cell.backtrace = without_nul(&payload.backtrace);
}

/// `text` followed by a NUL.
fn nul_terminated(text: &[u8]) -> Vec<u8> {
    let mut stored = Vec::with_capacity(text.len() + 1);
    stored.extend_from_slice(text);
    stored.push(0);
    stored
}

/// The byte array of a NUL-terminated text, the NUL left out.
fn without_nul(stored: &[u8]) -> TVMFFIByteArray {
    byte_array(&stored[..stored.len() - 1])
}

/// Where the backtrace text of an error with a pending backtrace points (its size is 0).
static PENDING: [u8; 1] = [0];

/// Formats a pending backtrace into the payload's text (once).
fn resolve_payload(payload: &mut ErrorPayload) {
    let trace = payload
        .pending
        .get_mut()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(trace) = trace {
        payload.backtrace = nul_terminated(crate::value::backtrace::format(&trace).as_bytes());
        payload.cell.backtrace = without_nul(&payload.backtrace);
    }
}

/// An owned Error object (ours, or one created by foreign code: only its cell is used).
#[derive(Clone, Debug)]
pub struct Error(ObjectRef);

impl Error {
    /// A new error of `kind` with the current backtrace (symbolized when first needed).
    pub fn new(kind: &str, message: impl AsRef<str>) -> Error {
        Error::with_trace(
            kind.as_bytes(),
            message.as_ref().as_bytes(),
            crate::value::backtrace::capture_addresses(),
        )
    }

    /// A new error whose backtrace is `trace`, formatted when first needed.
    pub fn with_trace(kind: &[u8], message: &[u8], trace: ffihub_backtrace::Trace) -> Error {
        let error = Error::from_parts(kind, message, b"", None, None);
        // SAFETY: `from_parts` made an object of ours, not yet shared.
        let payload =
            unsafe { &mut (*error.0.as_ptr().cast::<RustObject<ErrorPayload>>()).payload };
        *payload.pending.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(trace);
        // The mark `resolve` looks for (an empty text until then).
        payload.cell.backtrace = byte_array(&PENDING[..0]);
        payload.cell.backtrace.data = PENDING.as_ptr().cast();
        error
    }

    /// A new error from its parts; `cause` and `extra_context` are owned by the new error.
    pub fn from_parts(
        kind: &[u8],
        message: &[u8],
        backtrace: &[u8],
        cause: Option<ObjectRef>,
        extra_context: Option<ObjectRef>,
    ) -> Error {
        let kind: Box<[u8]> = nul_terminated(kind).into();
        let message: Box<[u8]> = nul_terminated(message).into();
        let backtrace = nul_terminated(backtrace);
        let cell = TVMFFIErrorCell {
            kind: without_nul(&kind),
            message: without_nul(&message),
            backtrace: without_nul(&backtrace),
            update_backtrace: Some(update_backtrace),
            cause_chain: cause.map_or(std::ptr::null_mut(), |c| c.into_raw().cast()),
            extra_context: extra_context.map_or(std::ptr::null_mut(), |c| c.into_raw().cast()),
        };
        Error(alloc_object(
            tindex::ERROR,
            ErrorPayload {
                cell,
                kind,
                message,
                backtrace,
                pending: Mutex::new(None),
            },
            0,
        ))
    }

    /// Wraps an Error object.
    ///
    /// # Panics
    /// If `obj` is not an Error.
    pub fn from_object(obj: ObjectRef) -> Error {
        assert_eq!(
            obj.type_index(),
            TVMFFITypeIndex::kTVMFFIError as i32,
            "not an Error object"
        );
        Error(obj)
    }

    fn cell(&self) -> &TVMFFIErrorCell {
        // SAFETY: every Error object has the cell right after its header.
        unsafe { self.0.cell::<TVMFFIErrorCell>() }
    }

    /// The error kind, such as `ValueError`.
    pub fn kind(&self) -> &[u8] {
        // SAFETY: the cell's arrays are valid while the object lives.
        unsafe { byte_array_slice(&self.cell().kind) }
    }

    /// The message.
    pub fn message(&self) -> &[u8] {
        // SAFETY: as for `kind`.
        unsafe { byte_array_slice(&self.cell().message) }
    }

    /// The backtrace text.
    pub fn backtrace(&self) -> &[u8] {
        self.resolve();
        // SAFETY: as for `kind`.
        unsafe { byte_array_slice(&self.cell().backtrace) }
    }

    /// Makes the backtrace text of an error of ours whose backtrace is still pending, before
    /// anyone else can read its cell.
    pub fn resolve(&self) {
        let cell = std::ptr::addr_of!(self.cell().backtrace.data).cast_mut();
        // SAFETY: the pointer field is aligned and lives as long as the object; it is read
        // atomically because another thread may be resolving the same error.
        let data = unsafe { AtomicPtr::from_ptr(cell.cast::<*mut u8>()) };
        if data.load(Ordering::Acquire).cast_const() != PENDING.as_ptr() {
            return; // resolved, or a foreign error with its own text
        }
        // SAFETY: only errors of ours point at `PENDING`. The text is written under the lock,
        // and C code only gets the object after this ran (see `ErrorPayload`).
        unsafe {
            let payload = &mut (*self.0.as_ptr().cast::<RustObject<ErrorPayload>>()).payload;
            let mut pending = payload.pending.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(trace) = pending.take() {
                payload.backtrace =
                    nul_terminated(crate::value::backtrace::format(&trace).as_bytes());
                payload.cell.backtrace.size = payload.backtrace.len() - 1;
                data.store(payload.backtrace.as_ptr().cast_mut(), Ordering::Release);
            }
        }
    }

    /// The underlying object, with its backtrace text made (it may go anywhere now).
    pub fn into_object(self) -> ObjectRef {
        self.resolve();
        self.0
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}",
            String::from_utf8_lossy(self.kind()),
            String::from_utf8_lossy(self.message())
        )
    }
}

/// Messages of parsers and formatters become ValueErrors.
impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::new("ValueError", message)
    }
}

/// An allocation a caller sized and no memory could hold is a MemoryError (Python's
/// `MemoryError` through tvm_ffi).
impl From<crate::value::object::AllocError> for Error {
    fn from(error: crate::value::object::AllocError) -> Error {
        Error::new("MemoryError", error.to_string())
    }
}

thread_local! {
    /// The error raised by the last failing safe call on this thread.
    static RAISED: RefCell<Option<ObjectRef>> = const { RefCell::new(None) };
}

/// Stores `error` as this thread's raised error, releasing any previous one.
pub fn set_raised(error: ObjectRef) {
    let previous = RAISED.with(|slot| slot.borrow_mut().replace(error));
    // Dropped outside the borrow: a deleter may raise again.
    drop(previous);
}

/// Takes this thread's raised error, leaving the slot empty.
pub fn take_raised() -> Option<ObjectRef> {
    RAISED.with(|slot| slot.borrow_mut().take())
}

/// Takes this thread's raised error for a reader of its cell (the C API hands it out): an error
/// of ours gets its backtrace text now.
pub fn take_raised_resolved() -> Option<ObjectRef> {
    let error = take_raised();
    if let Some(obj) = &error {
        if obj.type_index() == tindex::ERROR {
            Error::from_object(obj.clone()).resolve();
        }
    }
    error
}

/// Raises `error` the safe-call way and returns -1. Its backtrace stays pending: whoever fetches
/// it ([`take_raised_resolved`] for `TVMFFIErrorMoveFromRaised`, or Rust code through
/// [`take_raised_or_unknown`]) resolves it.
pub fn raise(error: Error) -> i32 {
    set_raised(error.0);
    -1
}

/// Takes the error raised by a failed safe call, or makes one if the callee returned non-zero
/// without raising.
pub fn take_raised_or_unknown(code: i32) -> Error {
    match take_raised() {
        Some(obj) if obj.type_index() == tindex::ERROR => Error(obj),
        _ => Error::new(
            "RuntimeError",
            format!("a call failed with code {code} without raising an error"),
        ),
    }
}

/// Raw handle of an error object, for the C surface.
pub fn into_handle(error: Error) -> *mut TVMFFIObject {
    error.into_object().into_raw()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raised_slot_is_per_thread() {
        set_raised(Error::new("ValueError", "on main").into_object());
        let other = std::thread::spawn(|| take_raised().is_none())
            .join()
            .unwrap();
        assert!(other, "another thread must not see this thread's error");
        let error = Error::from_object(take_raised().expect("raised on this thread"));
        assert_eq!(error.kind(), b"ValueError");
        assert_eq!(error.message(), b"on main");
        assert!(take_raised().is_none(), "taking empties the slot");
    }

    #[test]
    fn error_moves_across_threads() {
        let error = std::thread::spawn(|| {
            set_raised(Error::new("IndexError", "from worker").into_object());
            take_raised().unwrap()
        })
        .join()
        .unwrap();
        set_raised(error);
        let error = Error::from_object(take_raised().unwrap());
        assert_eq!(error.to_string(), "IndexError: from worker");
    }

    #[test]
    fn update_backtrace_replaces_and_appends() {
        let error = Error::from_parts(b"RuntimeError", b"m", b"first\n", None, None);
        let cell = error.cell();
        let update = cell.update_backtrace.unwrap();
        let handle = error.0.as_ptr().cast();
        unsafe {
            update(handle, &byte_array(b"second\n"), 1);
            assert_eq!(error.backtrace(), b"first\nsecond\n");
            update(handle, &byte_array(b"only\n"), 0);
        }
        assert_eq!(error.backtrace(), b"only\n");
        assert_nul_after(&error.cell().backtrace);
    }

    fn assert_nul_after(text: &TVMFFIByteArray) {
        // SAFETY: the stored text has one more byte, the NUL, after the counted ones.
        assert_eq!(unsafe { *text.data.add(text.size) }, 0);
    }

    #[test]
    fn texts_are_c_strings_too() {
        // C++ reads `message.data` as a C string (tvm::ffi::Error::what()).
        let error = Error::from_parts(b"ValueError", b"bad value", b"", None, None);
        let cell = error.cell();
        for text in [&cell.kind, &cell.message, &cell.backtrace] {
            assert_nul_after(text);
        }
        assert_eq!(error.message(), b"bad value");
        let appended = byte_array(b"more\n");
        unsafe { cell.update_backtrace.unwrap()(error.0.as_ptr().cast(), &appended, 1) };
        assert_eq!(error.backtrace(), b"more\n");
        assert_nul_after(&error.cell().backtrace);
    }

    #[test]
    fn backtrace_text_is_made_when_the_error_is_fetched() {
        #[inline(never)]
        fn raises_lazily() -> i32 {
            raise(Error::new("ValueError", "lazy"))
        }
        assert_eq!(raises_lazily(), -1);
        // Still only addresses: nobody could read it yet.
        let pending = Error::from_object(take_raised().unwrap());
        assert_eq!(pending.cell().backtrace.size, 0);
        set_raised(pending.0);
        let handle = take_raised_resolved().unwrap().into_raw();
        // Read the cell the way C code does, without going through `Error`.
        let cell = unsafe {
            &*handle
                .cast::<u8>()
                .add(std::mem::size_of::<TVMFFIObject>())
                .cast::<TVMFFIErrorCell>()
        };
        let text =
            String::from_utf8_lossy(unsafe { byte_array_slice(&cell.backtrace) }).into_owned();
        assert!(text.contains("raises_lazily"), "{text}");
        assert_nul_after(&cell.backtrace);
        unsafe { crate::value::object::dec_ref(handle.cast()) };
    }

    #[test]
    fn new_error_has_a_backtrace_with_its_origin() {
        fn fails_on_purpose() -> Error {
            Error::new("TypeError", "boom")
        }
        let error = fails_on_purpose();
        let bt = String::from_utf8_lossy(error.backtrace()).into_owned();
        assert!(bt.contains("fails_on_purpose"), "{bt}");
    }
}
