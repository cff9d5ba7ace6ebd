//! Error objects and the per-thread "raised error" slot of the safe-call convention.

use crate::abi::{
    TVMFFIByteArray, TVMFFIErrorCell, TVMFFIObject, TVMFFIObjectHandle, TVMFFITypeIndex,
};
use crate::any::{byte_array, byte_array_slice};
use crate::object::{alloc_object, ObjectRef, RustObject};
use crate::tindex;
use std::cell::RefCell;

/// Payload of the Error objects this runtime creates: the ABI cell, then the storage it points at.
/// Each text is stored with a NUL after it (not counted in the cell's sizes), as Apache's
/// `std::string`-backed errors are: C++ code reads `message.data` as a C string
/// (`tvm::ffi::Error::what()`).
#[repr(C)]
struct ErrorPayload {
    cell: TVMFFIErrorCell,
    kind: Box<[u8]>,
    message: Box<[u8]>,
    backtrace: Vec<u8>,
}

impl Drop for ErrorPayload {
    fn drop(&mut self) {
        // SAFETY: the cell owns one reference to each (possibly NULL) handle.
        unsafe {
            crate::object::dec_ref(self.cell.cause_chain.cast());
            crate::object::dec_ref(self.cell.extra_context.cast());
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

/// An owned Error object (ours, or one created by foreign code: only its cell is used).
#[derive(Clone, Debug)]
pub struct Error(ObjectRef);

impl Error {
    /// A new error of `kind` with the current backtrace.
    pub fn new(kind: &str, message: impl AsRef<str>) -> Error {
        let backtrace = crate::backtrace::capture();
        Error::from_parts(
            kind.as_bytes(),
            message.as_ref().as_bytes(),
            backtrace.as_bytes(),
            None,
            None,
        )
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
        // SAFETY: as for `kind`.
        unsafe { byte_array_slice(&self.cell().backtrace) }
    }

    /// The underlying object.
    pub fn into_object(self) -> ObjectRef {
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

/// Raises `error` the safe-call way and returns -1.
pub fn raise(error: Error) -> i32 {
    set_raised(error.into_object());
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
    error.0.into_raw()
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
    fn new_error_has_a_backtrace_with_its_origin() {
        fn fails_on_purpose() -> Error {
            Error::new("TypeError", "boom")
        }
        let error = fails_on_purpose();
        let bt = String::from_utf8_lossy(error.backtrace()).into_owned();
        assert!(bt.contains("fails_on_purpose"), "{bt}");
    }
}
