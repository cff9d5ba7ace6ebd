//! Memory checking with valgrind's memcheck, the same way in every test: a program run under
//! valgrind on a runtime must exit successfully, pass its own checks, and leave valgrind's
//! summary with no error and no definitely or indirectly lost bytes.
//!
//! ```no_run
//! use ffihub_tests::{ffihub_runtime, run_with_timeout, valgrind};
//! # let program = std::path::Path::new("program");
//! let out = run_with_timeout(
//!     valgrind::command_on(&ffihub_runtime(), program, &[]),
//!     valgrind::TIMEOUT,
//! );
//! let passed = String::from_utf8_lossy(&out.stdout).contains("OK");
//! valgrind::assert_clean("the program on ffihub's runtime", &out, passed);
//! ```

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use crate::{command_in, failed_checks, run_with_timeout, Runtime, PASSED_LINE};

/// The project's memcheck options: full leak checking, definitely and indirectly lost blocks
/// count as errors, and any error makes valgrind exit with status 99.
pub const OPTIONS: [&str; 3] = [
    "--error-exitcode=99",
    "--leak-check=full",
    "--errors-for-leak-kinds=definite,indirect",
];

/// The usual time limit of a run under valgrind, which slows programs down a lot.
pub const TIMEOUT: Duration = Duration::from_secs(900);

/// Fails the test with how to install valgrind unless `valgrind --version` works.
pub fn require() {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "`valgrind --version` failed with {}: is valgrind installed correctly?",
            out.status
        ),
        Err(e) => panic!(
            "valgrind is not available ({e}); install it with `apt-get install -y valgrind` \
             (scripts/test.sh does this before running the tests)"
        ),
    }
}

/// A command that runs `program` under valgrind with [`OPTIONS`] (after `extra_options`, such as
/// `--suppressions=<file>`), with `runtime`'s `libtvm_ffi.so` on the library path as in a plain
/// run. Add the program's arguments with `.arg`/`.args`. Fails the test if valgrind is missing.
pub fn command_on(runtime: &Runtime, program: &Path, extra_options: &[&str]) -> Command {
    require();
    let wrapper: Vec<&str> = std::iter::once("valgrind")
        .chain(extra_options.iter().copied())
        .chain(OPTIONS)
        .collect();
    command_in(&runtime.lib_dir, program, &wrapper)
}

/// The numbers of valgrind's final summary that the tests assert on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    pub errors: u64,
    pub definitely_lost: u64,
    pub indirectly_lost: u64,
}

impl Summary {
    /// No error, nothing definitely or indirectly lost.
    pub const CLEAN: Summary = Summary {
        errors: 0,
        definitely_lost: 0,
        indirectly_lost: 0,
    };

    pub fn is_clean(&self) -> bool {
        *self == Summary::CLEAN
    }
}

/// Parses `N` from "`<label> N ...`" on the last line containing `label` (`1,234` allowed).
pub fn number_after(text: &str, label: &str) -> Option<u64> {
    let line = text.lines().rev().find(|l| l.contains(label))?;
    let rest = &line[line.find(label)? + label.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .collect();
    digits.replace(',', "").parse().ok()
}

/// Reads valgrind's ERROR SUMMARY and LEAK SUMMARY from its stderr.
pub fn parse_summary(stderr: &str) -> Result<Summary, String> {
    let errors = number_after(stderr, "ERROR SUMMARY:").ok_or("no ERROR SUMMARY line")?;
    // With nothing left on the heap, valgrind prints no LEAK SUMMARY at all.
    let no_leaks = stderr.contains("All heap blocks were freed -- no leaks are possible");
    let lost = |label: &str| match number_after(stderr, label) {
        Some(n) => Ok(n),
        None if no_leaks => Ok(0),
        None => Err(format!("no `{label}` line in the leak summary")),
    };
    Ok(Summary {
        errors,
        definitely_lost: lost("definitely lost:")?,
        indirectly_lost: lost("indirectly lost:")?,
    })
}

/// Fails the test unless a run under valgrind (of `what`, for the message) exited successfully,
/// the program passed its own checks (`program_passed`, judged by the caller from its stdout)
/// and valgrind's summary is [clean](Summary::is_clean). The message has the exit status, the
/// summary, the program's output other than its `ok ...` lines, and valgrind's report: in full
/// when it found something, else its last 20 lines.
pub fn assert_clean(what: &str, out: &Output, program_passed: bool) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary = parse_summary(&stderr);
    let clean = summary.as_ref().is_ok_and(Summary::is_clean);
    if out.status.success() && clean && program_passed {
        return;
    }
    let report: String = if clean {
        let lines: Vec<&str> = stderr.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    } else {
        stderr.into_owned()
    };
    panic!(
        "valgrind run of {what} failed: status {}, program {}, summary {summary:?}\n\
         --- program output (failed checks)\n{}\n--- valgrind\n{report}",
        out.status,
        if program_passed { "passed" } else { "FAILED" },
        failed_checks(&stdout),
    );
}

/// Runs `cmd` (a C test program under valgrind, from [`command_on`]) within `timeout`, then
/// [`assert_clean`] with the program passed when it printed [`PASSED_LINE`].
pub fn assert_checks_clean(what: &str, cmd: Command, timeout: Duration) {
    let out = run_with_timeout(cmd, timeout);
    let passed = String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l == PASSED_LINE);
    assert_clean(what, &out, passed);
}
