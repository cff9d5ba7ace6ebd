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
use std::backtrace::Backtrace;
use std::borrow::Cow;
use std::fmt;
use std::fmt::Write;

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
        backtrace: Backtrace,
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
                backtrace: Backtrace::force_capture(),
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
        let mut handle: TVMFFIObjectHandle = std::ptr::null_mut();
        // SAFETY: `handle` is valid for a write.
        unsafe { sys::TVMFFIErrorMoveFromRaised(&mut handle) };
        if handle.is_null() {
            return Error::new(
                "InternalError",
                "a TVM-FFI call failed without raising an error",
            );
        }
        // SAFETY: the runtime handed over one reference to an ffi.Error object.
        unsafe { Error::from_error_object(ObjectRef::from_raw(handle)) }
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
            Repr::Rust { backtrace, .. } => format_backtrace(&format!("{backtrace:#}")),
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
                let backtrace = format_backtrace(&format!("{backtrace:#}"));
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

/// Frames that only show how the backtrace was taken, or the machinery around the call.
fn is_noise(function: &str) -> bool {
    const PREFIXES: [&str; 13] = [
        "std::backtrace",
        "<std::backtrace::Backtrace>",
        "<core::panic::unwind_safe::AssertUnwindSafe",
        "std::panic",
        "std::panicking",
        "std::rt::",
        "std::sys::",
        "core::ops::function",
        "core::panic",
        "__rust",
        "ffihub::error::",
        "ffihub::__private::",
        "<alloc::boxed::Box<F,A> as core::ops::function",
    ];
    PREFIXES.iter().any(|p| function.starts_with(p))
}

/// The function every safe-call entry of this crate runs user code under: frames from here on
/// (the callers: the runtime, the host) are not part of an extension's error backtrace.
pub(crate) const BOUNDARY: &str = "ffihub::__private::call_boundary";

/// Maximum number of frames kept (`TVM_TRACEBACK_LIMIT` overrides, as in Apache's runtime).
fn frame_limit() -> usize {
    std::env::var("TVM_TRACEBACK_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
}

/// A symbol as `std`'s full backtrace format prints it (`0x7f.. - std[1a2b]::f::h0123..`),
/// without the address, crate disambiguators and hash: `std::f`.
fn clean_symbol(text: &str) -> StdString {
    let text = match text.trim_start().split_once(" - ") {
        Some((address, rest)) if address.starts_with("0x") => rest,
        _ => text.trim_start(),
    };
    let mut out = StdString::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '[' {
            // `[0123abcd]` crate disambiguators of v0 symbol names.
            if let Some(end) = text[i + 1..].find(']') {
                let inner = &text[i + 1..i + 1 + end];
                if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_hexdigit()) {
                    for _ in 0..=end {
                        chars.next();
                    }
                    continue;
                }
            }
        }
        out.push(c);
    }
    // The legacy-mangling hash: `::h` and 16 hex digits.
    if let Some(pos) = out.rfind("::h") {
        let hash = &out[pos + 3..];
        if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            out.truncate(pos);
        }
    }
    out
}

/// Turns `std`'s backtrace text (`  N: function` lines, each optionally followed by
/// `at file:line:col`) into TVM-FFI frame lines, most recent call first, stopping at the
/// safe-call boundary. Frames without a source location are left out.
pub(crate) fn format_backtrace(text: &str) -> StdString {
    let mut out = StdString::new();
    let limit = frame_limit();
    let mut count = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let Some((index, function)) = trimmed.split_once(": ") else {
            continue;
        };
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let function = clean_symbol(function);
        let function = function.as_str();
        if function.starts_with(BOUNDARY) {
            break;
        }
        let location = match lines.peek() {
            Some(next) if next.trim_start().starts_with("at ") => {
                let at = lines.next().unwrap_or_default();
                Some(at.trim_start().trim_start_matches("at ").to_owned())
            }
            _ => None,
        };
        let Some(location) = location else { continue };
        if is_noise(function) {
            continue;
        }
        // `file:line:col`; the file itself may contain ':'.
        let mut parts = location.rsplitn(3, ':');
        let (_col, line_no, file) = (parts.next(), parts.next(), parts.next());
        let (Some(line_no), Some(file)) = (line_no.and_then(|l| l.parse::<u32>().ok()), file)
        else {
            continue;
        };
        let _ = writeln!(out, "  File \"{file}\", line {line_no}, in {function}");
        count += 1;
        if count >= limit {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::format_backtrace;

    #[test]
    fn cleans_full_format_symbols() {
        assert_eq!(
            super::clean_symbol(
                "    0x7fbcd40ee085 - <std[e28293b1aa0f68bd]::backtrace::Backtrace>::force_capture"
            ),
            "<std::backtrace::Backtrace>::force_capture"
        );
        assert_eq!(
            super::clean_symbol("0x1 - ffihub_demo::errors::raise_error::h4dcb0810de5036c3"),
            "ffihub_demo::errors::raise_error"
        );
        assert_eq!(super::clean_symbol("main"), "main");
    }

    #[test]
    fn formats_std_backtraces_as_tvm_ffi_frames() {
        let text = "   0: std::backtrace::Backtrace::force_capture\n             at /rustc/lib.rs:1:2\n   1: ffihub::error::Error::new\n             at ./src/error.rs:40:28\n   2: ffihub_demo::raise_error\n             at ./examples/demo/src/lib.rs:12:5\n   3: libc_frame\n   4: ffihub::__private::call_boundary\n             at ./src/private.rs:9:1\n   5: main\n             at ./src/main.rs:1:1\n";
        assert_eq!(
            format_backtrace(text),
            "  File \"./examples/demo/src/lib.rs\", line 12, in ffihub_demo::raise_error\n"
        );
    }
}
