//! Backtraces in the text form every TVM-FFI consumer parses: one line per frame,
//! `  File "<file>", line <n>, in <function>`, most recent call first.
//!
//! Capturing only records return addresses; symbols are resolved one frame at a time (each
//! address once per process: they are cached) and only up to the FFI boundary (the function through which the host called in). Resolving a whole stack
//! would also symbolize the host's frames (a Julia or Node process has hundreds of large
//! libraries), which costs orders of magnitude more than the error itself.

use std::collections::HashMap;
use std::ffi::c_void;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

/// Default frame limit; `TVM_TRACEBACK_LIMIT` overrides it, as in Apache's runtime.
const DEFAULT_LIMIT: usize = 512;

/// The frame limit in force.
pub fn frame_limit() -> usize {
    std::env::var("TVM_TRACEBACK_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_LIMIT)
}

/// Appends one frame line.
pub fn push_frame(out: &mut String, file: &str, line: u32, function: &str) {
    let _ = writeln!(out, "  File \"{file}\", line {line}, in {function}");
}

/// The return addresses of the current thread's stack, most recent first (cheap: no symbols).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    addresses: Vec<usize>,
}

// Frames of the Rust runtime and of the capture itself, never worth showing.
fn is_machinery(function: &str) -> bool {
    const PREFIXES: [&str; 12] = [
        "backtrace::",
        "ffihub_backtrace::Trace::capture",
        "std::backtrace",
        "std::rt::",
        "std::sys::",
        "std::panic",
        "std::panicking",
        "core::ops::function",
        "core::panic",
        "<core::panic::unwind_safe::AssertUnwindSafe",
        "<alloc::boxed::Box<F,A> as core::ops::function",
        "__rust",
    ];
    PREFIXES.iter().any(|p| function.starts_with(p))
        || matches!(
            function,
            "__libc_start_main" | "__libc_start_call_main" | "_start" | "rust_begin_unwind"
        )
}

/// Frames inside the C++ headers' own plumbing (errors, function adaptors, `Any`) and the C++
/// standard library: TVM-FFI leaves them out of every backtrace.
fn is_header_plumbing(file: &str) -> bool {
    const FILES: [&str; 5] = [
        "include/tvm/ffi/error.h",
        "include/tvm/ffi/function_detail.h",
        "include/tvm/ffi/function.h",
        "include/tvm/ffi/any.h",
        "include/c++/",
    ];
    FILES.iter().any(|f| file.contains(f))
}

/// Where a frame stands relative to the text being built.
pub enum FrameKind {
    /// Show it.
    Keep,
    /// Leave it out (runtime plumbing between the error and the code that raised it).
    Skip,
    /// The FFI boundary: stop here, without this frame.
    Boundary,
}

impl Trace {
    /// Records the current stack.
    #[inline(never)]
    pub fn capture() -> Trace {
        let mut addresses = Vec::with_capacity(32);
        backtrace::trace(|frame| {
            addresses.push(frame.ip() as usize);
            addresses.len() < 4096
        });
        Trace { addresses }
    }

    /// Formats the frames, most recent first, asking `classify` about each resolved function
    /// name; machinery frames and frames without a name are left out.
    pub fn format(&self, classify: impl Fn(&str) -> FrameKind) -> String {
        self.format_skipping(0, classify)
    }

    /// [`Trace::format`] without the first `skip` frames it would show (frames a caller has
    /// already reported in its own words).
    pub fn format_skipping(&self, mut skip: usize, classify: impl Fn(&str) -> FrameKind) -> String {
        let limit = frame_limit();
        let mut out = String::new();
        let mut count = 0;
        'frames: for &address in &self.addresses {
            if count >= limit {
                break;
            }
            let mut stop = false;
            // Inlined calls give several symbols for one address, innermost first.
            for symbol in symbols_at(address).iter() {
                match classify(&symbol.name) {
                    FrameKind::Boundary => {
                        stop = true;
                        break;
                    }
                    FrameKind::Skip => {}
                    FrameKind::Keep => {
                        // Frames of Rust's standard library (its sources live under /rustc/).
                        let in_std = symbol
                            .file
                            .as_deref()
                            .is_some_and(|f| f.starts_with("/rustc/"));
                        let plumbing = symbol.file.as_deref().is_some_and(is_header_plumbing);
                        if !is_machinery(&symbol.name) && !in_std && !plumbing {
                            if skip > 0 {
                                skip -= 1;
                                continue;
                            }
                            if count >= limit {
                                break 'frames;
                            }
                            let file = symbol.file.as_deref().unwrap_or("<unknown>");
                            push_frame(&mut out, file, symbol.line, &symbol.name);
                            count += 1;
                        }
                    }
                }
            }
            if stop {
                break;
            }
        }
        out
    }
}

/// One named symbol of a code address.
struct Symbol {
    name: String,
    file: Option<String>,
    line: u32,
}

/// Symbols of the code addresses resolved so far. Errors are raised again and again from the
/// same few places, and resolving an address (debug-info lookups) costs far more than unwinding,
/// so each address is resolved once per process. The cache only grows with distinct addresses
/// of raising code paths, which are few.
static SYMBOLS: Mutex<Option<HashMap<usize, Arc<[Symbol]>>>> = Mutex::new(None);

/// The named symbols of a return address (innermost inlined call first).
fn symbols_at(address: usize) -> Arc<[Symbol]> {
    let mut cache = SYMBOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(symbols) = cache.get_or_insert_with(HashMap::new).get(&address) {
        return symbols.clone();
    }
    let mut symbols = Vec::new();
    // A return address points after its call: step back into the call instruction.
    backtrace::resolve(address.saturating_sub(1) as *mut c_void, |symbol| {
        if let Some(name) = symbol.name().map(|n| format!("{n:#}")) {
            symbols.push(Symbol {
                name,
                file: symbol.filename().map(|f| f.display().to_string()),
                line: symbol.lineno().unwrap_or(0),
            });
        }
    });
    let symbols: Arc<[Symbol]> = symbols.into();
    if let Some(map) = cache.as_mut() {
        map.insert(address, symbols.clone());
    }
    symbols
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn a_distinctive_caller() -> Trace {
        Trace::capture()
    }

    #[test]
    fn keeps_the_callers_and_drops_the_machinery() {
        let text = a_distinctive_caller().format(|_| FrameKind::Keep);
        assert!(text.contains("a_distinctive_caller"), "{text}");
        assert!(!text.contains("backtrace::trace"), "{text}");
        assert!(text.lines().all(|l| l.starts_with("  File \"")), "{text}");
    }

    #[test]
    fn stops_at_the_boundary() {
        let text = a_distinctive_caller().format(|name| {
            if name.contains("stops_at_the_boundary") {
                FrameKind::Boundary
            } else {
                FrameKind::Keep
            }
        });
        assert!(text.contains("a_distinctive_caller"), "{text}");
        assert!(!text.contains("stops_at_the_boundary"), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    }
}
