//! Errors: a kind (`ValueError`, `TypeError`...), a message and a backtrace, as TVM-FFI carries
//! them across languages.
//!
//! An [`Error`] made in Rust captures the Rust backtrace where it is created; when it leaves
//! through the ABI it becomes an `ffi.Error` object whose backtrace lists those frames in
//! TVM-FFI's text form (`  File "<file>", line <n>, in <function>`, most recent call first). An
//! error raised by a call into the runtime wraps the `ffi.Error` object itself, so raising it
//! again passes the original kind, message and backtrace through unchanged.

use crate::object::{Object, ObjectRef};
use crate::sys;
use ffihub_abi::abi::{TVMFFIErrorCell, TVMFFIObjectHandle};
use ffihub_backtrace::{FrameKind, Trace};
use std::borrow::Cow;
use std::fmt;

type StdString = std::string::String;

/// `Result` with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error with a kind, a message and a backtrace.
pub struct Error {
    repr: Box<Repr>,
}

enum Repr {
    /// Created in Rust: the backtrace is resolved only when it is read.
    Rust {
        kind: StdString,
        message: StdString,
        backtrace: Trace,
    },
    /// An `ffi.Error` object (from a failed call, or already converted).
    Object(ObjectRef<Object>),
}

impl Error {
    /// A new error of `kind` with `message`; the current Rust backtrace is captured.
    pub fn new(kind: impl Into<StdString>, message: impl Into<StdString>) -> Error {
        Error {
            repr: Box::new(Repr::Rust {
                kind: kind.into(),
                message: message.into(),
                backtrace: Trace::capture(),
            }),
        }
    }

    /// A `ValueError`: a value of the right type but a wrong value.
    pub fn value_error(message: impl Into<StdString>) -> Error {
        Error::new("ValueError", message)
    }

    /// A `TypeError`: a value of the wrong type.
    pub fn type_error(message: impl Into<StdString>) -> Error {
        Error::new("TypeError", message)
    }

    /// An `IndexError`: an index out of range.
    pub fn index_error(message: impl Into<StdString>) -> Error {
        Error::new("IndexError", message)
    }

    /// A `KeyError`: a missing key.
    pub fn key_error(message: impl Into<StdString>) -> Error {
        Error::new("KeyError", message)
    }

    /// A `RuntimeError`: any other failure.
    pub fn runtime_error(message: impl Into<StdString>) -> Error {
        Error::new("RuntimeError", message)
    }

    /// A `MemoryError`: an allocation failed (see [`crate::alloc`]).
    pub fn memory_error(message: impl Into<StdString>) -> Error {
        Error::new("MemoryError", message)
    }

    /// An `AttributeError`: a missing or read-only field or method.
    pub fn attribute_error(message: impl Into<StdString>) -> Error {
        Error::new("AttributeError", message)
    }

    /// Wraps an `ffi.Error` object.
    ///
    /// # Safety
    /// `obj` is a live object of type `ffi.Error` (index 67) whose reference is handed over.
    pub(crate) unsafe fn from_error_object(obj: ObjectRef<Object>) -> Error {
        Error {
            repr: Box::new(Repr::Object(obj)),
        }
    }

    /// Takes the error the runtime raised on this thread (after a call returned non-zero).
    pub(crate) fn take_raised() -> Error {
        Error::try_take_raised().unwrap_or_else(|| {
            Error::new(
                "InternalError",
                "a TVM-FFI call failed without raising an error",
            )
        })
    }

    /// Takes the error raised on this thread, if any.
    pub(crate) fn try_take_raised() -> Option<Error> {
        let mut handle: TVMFFIObjectHandle = std::ptr::null_mut();
        // SAFETY: `handle` is valid for a write.
        unsafe { sys::TVMFFIErrorMoveFromRaised(&mut handle) };
        // SAFETY: the runtime handed over one reference to an ffi.Error object (or nothing).
        (!handle.is_null())
            .then(|| unsafe { Error::from_error_object(ObjectRef::from_raw(handle)) })
    }

    /// Drops the error raised on this thread, if any (before code whose raised error is
    /// checked for afterwards).
    pub(crate) fn discard_raised() {
        drop(Error::try_take_raised());
    }

    fn cell(obj: &ObjectRef<Object>) -> &TVMFFIErrorCell {
        // SAFETY: `obj` is an ffi.Error object: its cell follows the 24-byte header.
        unsafe { &*obj.as_ptr().cast::<u8>().add(24).cast::<TVMFFIErrorCell>() }
    }

    /// The kind (`ValueError`, `TypeError`, `InternalError`...).
    pub fn kind(&self) -> Cow<'_, str> {
        match &*self.repr {
            Repr::Rust { kind, .. } => Cow::Borrowed(kind),
            // SAFETY: the cell's byte arrays live as long as the error object.
            Repr::Object(obj) => {
                StdString::from_utf8_lossy(unsafe { sys::byte_slice(&Error::cell(obj).kind) })
            }
        }
    }

    /// The message.
    pub fn message(&self) -> Cow<'_, str> {
        match &*self.repr {
            Repr::Rust { message, .. } => Cow::Borrowed(message),
            // SAFETY: as for `kind`.
            Repr::Object(obj) => {
                StdString::from_utf8_lossy(unsafe { sys::byte_slice(&Error::cell(obj).message) })
            }
        }
    }

    /// The backtrace in TVM-FFI's text form, most recent call first.
    pub fn backtrace(&self) -> StdString {
        match &*self.repr {
            Repr::Rust { backtrace, .. } => format_backtrace(backtrace),
            // SAFETY: as for `kind`.
            Repr::Object(obj) => {
                StdString::from_utf8_lossy(unsafe { sys::byte_slice(&Error::cell(obj).backtrace) })
                    .into_owned()
            }
        }
    }

    /// The `ffi.Error` object for this error (created on first need).
    pub fn into_object(self) -> Result<ObjectRef<Object>> {
        match *self.repr {
            Repr::Object(obj) => Ok(obj),
            Repr::Rust {
                kind,
                message,
                backtrace,
            } => {
                let backtrace = format_backtrace(&backtrace);
                let mut handle: TVMFFIObjectHandle = std::ptr::null_mut();
                let (kind, message, backtrace) = (
                    sys::byte_array(kind.as_bytes()),
                    sys::byte_array(message.as_bytes()),
                    sys::byte_array(backtrace.as_bytes()),
                );
                // SAFETY: the byte arrays point at live strings; `handle` is valid for a write.
                let code =
                    unsafe { sys::TVMFFIErrorCreate(&kind, &message, &backtrace, &mut handle) };
                if code != 0 || handle.is_null() {
                    return Err(Error::take_raised());
                }
                // SAFETY: the runtime handed over one reference to a new error object.
                Ok(unsafe { ObjectRef::from_raw(handle) })
            }
        }
    }

    /// Stores this error as the thread's raised error (what a safe-call function does before
    /// returning -1).
    pub fn raise(self) {
        let obj = match self.into_object() {
            Ok(obj) => obj,
            // Creating the error object failed (out of memory): that error is raised instead.
            Err(other) => match *other.repr {
                Repr::Object(obj) => obj,
                Repr::Rust { .. } => return,
            },
        };
        // SAFETY: `obj` is a live error object; the runtime takes its own reference.
        unsafe { sys::TVMFFIErrorSetRaised(obj.as_ptr().cast()) };
    }

    /// The message prefixed with more context; kind and backtrace are kept.
    pub(crate) fn with_prefix(self, prefix: &str) -> Error {
        match *self.repr {
            Repr::Rust {
                kind,
                message,
                backtrace,
            } => Error {
                repr: Box::new(Repr::Rust {
                    kind,
                    message: format!("{prefix}{message}"),
                    backtrace,
                }),
            },
            Repr::Object(_) => self,
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind())
            .field("message", &self.message())
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind(), self.message())
    }
}

impl std::error::Error for Error {}

/// Turns a C return code into a `Result`, taking the raised error on failure.
pub(crate) fn check(code: i32) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(Error::take_raised())
    }
}

/// The function every safe-call entry of this crate runs user code under: frames from here on
/// (the callers: the runtime, the host) are not part of an extension's error backtrace.
pub(crate) const BOUNDARY: &str = "ffihub::__private::call_boundary";

/// Where a frame of an extension's error stands: this crate's error plumbing is left out, and the
/// text stops at the safe-call boundary.
fn classify(function: &str) -> FrameKind {
    if function.starts_with(BOUNDARY) {
        FrameKind::Boundary
    } else if [
        "ffihub::error::Error::",
        "<ffihub::error::Error",
        "ffihub::__private::",
    ]
    .iter()
    .any(|plumbing| function.starts_with(plumbing))
    {
        FrameKind::Skip
    } else {
        FrameKind::Keep
    }
}

/// The TVM-FFI text of a captured trace, most recent call first, up to the safe-call boundary.
pub(crate) fn format_backtrace(trace: &Trace) -> StdString {
    trace.format(classify)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn raise_here() -> Error {
        Error::value_error("on purpose")
    }

    #[test]
    fn backtraces_start_at_the_raising_function() {
        let text = raise_here().backtrace();
        let first = text.lines().next().unwrap_or_default();
        assert!(
            first.contains("raise_here") && first.contains("error.rs"),
            "{text}"
        );
        assert!(!text.contains("ffihub::error::Error::new"), "{text}");
    }

    #[test]
    fn the_safe_call_boundary_ends_the_text() {
        let text = crate::__private::call_boundary(|| raise_here().backtrace());
        // The raising function and the closure run under the boundary; nothing after it.
        let frames: Vec<&str> = text.lines().collect();
        assert_eq!(frames.len(), 2, "{text}");
        assert!(
            frames[0].contains("raise_here") && frames[1].contains("{{closure}}"),
            "{text}"
        );
    }
}
