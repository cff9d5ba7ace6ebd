//! Backtraces in the text form every TVM-FFI consumer parses: one line per frame,
//! `  File "<file>", line <n>, in <function>`, most recent call first.

use std::backtrace::Backtrace;
use std::fmt::Write;

/// Default frame limit, overridable with `TVM_TRACEBACK_LIMIT` as in Apache's runtime.
const DEFAULT_LIMIT: usize = 512;

fn frame_limit() -> usize {
    std::env::var("TVM_TRACEBACK_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_LIMIT)
}

/// Frames that only show how the backtrace was taken, or the Rust runtime around `main`.
fn is_noise(function: &str) -> bool {
    const PREFIXES: [&str; 7] = [
        "std::backtrace",
        "std::rt::",
        "std::panic",
        "std::panicking",
        "core::ops::function",
        "core::panic",
        "__rust",
    ];
    const OWN: [&str; 4] = [
        "tvm_ffi::backtrace::capture",
        "tvm_ffi::error::Error::new",
        "TVMFFIBacktrace",
        "tvm_ffi::c_api::error::raise_with_backtrace",
    ];
    PREFIXES.iter().any(|p| function.starts_with(p))
        || OWN.iter().any(|own| {
            function
                .strip_prefix(own)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
        })
        || function.starts_with("<alloc::boxed::Box<F,A> as core::ops::function")
        || matches!(
            function,
            "__libc_start_main" | "__libc_start_call_main" | "_start" | "rust_begin_unwind"
        )
}

/// Appends one frame line.
pub fn push_frame(out: &mut String, file: &str, line: u32, function: &str) {
    let _ = writeln!(out, "  File \"{file}\", line {line}, in {function}");
}

/// The current thread's backtrace, most recent call first, without the frames that capture it.
pub fn capture() -> String {
    format_frames(&Backtrace::force_capture().to_string(), frame_limit())
}

/// Turns `std`'s backtrace text (`  N: function` lines, each optionally followed by
/// `at file:line:col`) into TVM-FFI frame lines.
fn format_frames(text: &str, limit: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((number, function)) = line.trim_start().split_once(": ") else {
            continue;
        };
        if number.parse::<usize>().is_err() {
            continue;
        }
        let mut file = "<unknown>";
        let mut line_no = 0;
        if let Some(next) = lines.peek() {
            if let Some(location) = next.trim_start().strip_prefix("at ") {
                let mut parts = location.rsplitn(3, ':');
                let _column = parts.next();
                line_no = parts.next().and_then(|l| l.parse().ok()).unwrap_or(0);
                file = parts.next().unwrap_or("<unknown>");
                lines.next();
            }
        }
        if is_noise(function) || function.starts_with("0x") || function == "<unknown>" {
            continue;
        }
        if count >= limit {
            break;
        }
        push_frame(&mut out, file, line_no, function);
        count += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_std_backtrace_text() {
        let text = "   0: std::backtrace::Backtrace::force_capture\n             at /rustc/library/std/src/backtrace.rs:312:13\n   1: tvm_ffi::backtrace::capture\n   2: demo::kernel\n             at ./src/lib.rs:12:5\n   3: 0x7f00\n   4: main\n";
        assert_eq!(
            format_frames(text, 10),
            "  File \"./src/lib.rs\", line 12, in demo::kernel\n  File \"<unknown>\", line 0, in main\n"
        );
        assert_eq!(
            format_frames(text, 1),
            "  File \"./src/lib.rs\", line 12, in demo::kernel\n"
        );
    }

    #[test]
    fn capture_contains_the_caller() {
        fn a_distinctive_caller() -> String {
            capture()
        }
        let bt = a_distinctive_caller();
        assert!(bt.contains("a_distinctive_caller"), "{bt}");
        assert!(!bt.contains("std::backtrace"), "{bt}");
    }
}
