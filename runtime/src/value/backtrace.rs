//! Backtraces of errors raised by the runtime or through its C API, in TVM-FFI's text form (see
//! `ffihub-backtrace`): the frames from where the error was raised up to the FFI boundary, the
//! entry point through which the caller came in. Frames beyond it belong to the host, which adds
//! its own; resolving them would also cost far more than the error.

use ffihub_backtrace::{FrameKind, Trace};

pub use ffihub_backtrace::push_frame;

/// C entry points through which C code reports its own errors: their callers are the interesting
/// frames, so the text goes on past them.
const RAISING_ENTRIES: [&str; 3] = [
    "TVMFFIBacktrace",
    "TVMFFIErrorSetRaisedFromCStr",
    "TVMFFIErrorSetRaisedFromCStrParts",
];

/// The runtime's own plumbing between an error and the code that raised it (functions, with
/// their closures).
const PLUMBING: [&str; 9] = [
    "tvm_ffi::value::backtrace::capture",
    "tvm_ffi::value::backtrace::capture_after_caller",
    "tvm_ffi::value::backtrace::capture_addresses",
    "tvm_ffi::value::error::Error::new",
    "tvm_ffi::value::error::Error::with_trace",
    "tvm_ffi::value::error::Error::from_parts",
    "<tvm_ffi::value::error::Error as core::convert::From<alloc::string::String>>::from",
    "tvm_ffi::c_api::error::raise_with_backtrace",
    "tvm_ffi::c_api::safe_call",
];

/// Is `function` one of `names`, or a closure or item inside one?
fn is_one_of(function: &str, names: &[&str]) -> bool {
    names.iter().any(|n| {
        function
            .strip_prefix(n)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
    })
}

/// Trampolines through which every function object is entered (with the closures that adapt a
/// Function's arguments for the code it runs).
const TRAMPOLINES: [&str; 4] = [
    "tvm_ffi::value::function::call_closure",
    "tvm_ffi::value::function::call_extern_c",
    "tvm_ffi::value::function::from_closure",
    "tvm_ffi::registry::define::typed_function",
];

/// Frames of a host interpreter: the host shows its own frames (Python's interpreter, as in
/// Apache's runtime).
const HOST_PREFIXES: [&str; 4] = ["_Py", "PyObject", "slot_tp_call", "object_is_not_callable"];

/// C++ frames of TVM-FFI's function adaptors, the C library and libffi trampolines, which Apache's
/// runtime leaves out too.
const CXX_PLUMBING_PREFIXES: [&str; 4] = [
    "tvm::ffi::Function",
    "tvm::ffi::detail::",
    "__libc_",
    "ffi_call_",
];

/// Is `function` one of ffihub's own C entry points (a plain C name, unlike demangled C++
/// functions that merely start with `TVMFFI`, such as a binding's callbacks)?
fn is_own_entry(function: &str) -> bool {
    function.starts_with("TVMFFI") && !function.contains(['(', ':'])
}

fn classify(function: &str) -> FrameKind {
    if is_one_of(function, &RAISING_ENTRIES)
        || is_one_of(function, &PLUMBING)
        || CXX_PLUMBING_PREFIXES
            .iter()
            .any(|p| function.starts_with(p))
    {
        FrameKind::Skip
    } else if is_own_entry(function)
        || is_one_of(function, &TRAMPOLINES)
        || HOST_PREFIXES.iter().any(|p| function.starts_with(p))
    {
        FrameKind::Boundary
    } else {
        FrameKind::Keep
    }
}

/// The current thread's backtrace, up to the FFI boundary, without the frames that capture it.
#[inline(never)]
pub fn capture() -> String {
    Trace::capture().format(classify)
}

/// The current thread's return addresses, for [`format()`] later (cheap: no symbols).
#[inline(never)]
pub fn capture_addresses() -> Trace {
    Trace::capture()
}

/// The text of a trace from [`capture_addresses`], as [`capture`] would have made it.
pub fn format(trace: &Trace) -> String {
    trace.format(classify)
}

/// [`capture`] for a caller that reports its own location first (`TVMFFIBacktrace` with a file
/// and function): the caller's frame is left out, so that it is not named twice.
#[inline(never)]
pub fn capture_after_caller() -> String {
    Trace::capture().format_skipping(1, classify)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_contains_the_caller() {
        #[inline(never)]
        fn a_distinctive_caller() -> String {
            capture()
        }
        let bt = a_distinctive_caller();
        assert!(
            bt.lines()
                .next()
                .is_some_and(|l| l.contains("a_distinctive_caller")),
            "{bt}"
        );
        assert!(!bt.contains("tvm_ffi::value::backtrace::capture"), "{bt}");
    }

    #[test]
    fn a_caller_that_reports_its_location_is_not_named_twice() {
        #[inline(never)]
        fn a_reporting_caller() -> String {
            capture_after_caller()
        }
        let bt = a_reporting_caller();
        assert!(!bt.contains("a_reporting_caller"), "{bt}");
        assert!(
            bt.contains("a_caller_that_reports_its_location_is_not_named_twice"),
            "{bt}"
        );
    }

    #[test]
    fn host_interpreters_and_cxx_plumbing_are_classified_as_apache_does() {
        for host in [
            "_PyEval_EvalFrameDefault",
            "PyObject_Vectorcall",
            "slot_tp_call",
        ] {
            assert!(matches!(classify(host), FrameKind::Boundary), "{host}");
        }
        for plumbing in [
            "tvm::ffi::detail::FunctionObjImpl<F>::SafeCall(void*)",
            "tvm::ffi::FunctionObj::CppCallDedirectToSafeCall()",
            "__libc_start_call_main",
        ] {
            assert!(matches!(classify(plumbing), FrameKind::Skip), "{plumbing}");
        }
        // A binding's C++ callback is the caller's code, not one of our entry points.
        let callback = "TVMFFIPyCallback(void*, TVMFFIAny const*, int, TVMFFIAny*)";
        assert!(matches!(classify(callback), FrameKind::Keep));
        assert!(matches!(
            classify("TVMFFIFunctionCall"),
            FrameKind::Boundary
        ));
    }

    #[test]
    fn errors_of_a_builtin_end_at_the_call_boundary() {
        let f = crate::value::function::from_closure(|_| {
            Err(crate::value::error::Error::new("ValueError", "on purpose"))
        });
        // SAFETY: `f` is a live Function.
        let error = unsafe { crate::value::function::call(f.as_ptr(), &[]) }.unwrap_err();
        let bt = String::from_utf8_lossy(error.backtrace()).into_owned();
        assert!(
            bt.contains("errors_of_a_builtin_end_at_the_call_boundary::{{closure}}"),
            "{bt}"
        );
        assert!(!bt.contains("call_closure"), "{bt}");
        assert_eq!(
            bt.lines().count(),
            1,
            "only the closure lies between the error and the boundary: {bt}"
        );
    }
}
