//! The layouts earlier releases' header code gives what it hands to the runtime
//! (docs/compatibility.md): `tests/c/legacy_producer.cc`, built against the headers of 0.1.7,
//! raises an error whose cell lacks `cause_chain` and `extra_context` (0.1.8 added them), makes
//! objects without the allocation header 0.1.13 introduced, and reads type-attribute columns
//! with 0.1.7's layout (a `size_t` size, no `begin_index`: 0.1.9 changed it). The driver
//! `tests/c/legacy_driver.c`, built against ffihub's headers, checks on ffihub's runtime that the
//! error reads with the current layout, that the runtime uses and releases those objects, and
//! that every column entry reads the same both ways; a valgrind run must be clean. On Apache's
//! runtime of 0.1.15.post2 the error check fails (its `cause_chain` is the kind string's data).

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use ffihub_tests::{
    apache_release, assert_checks_passed, command_on, compile_c, compile_cxx, ffihub_runtime,
    run_with_timeout, scratch_dir, valgrind, workspace_root,
};

/// The release whose headers the producer is built with: the last one of each older layout.
const PRODUCER_HEADERS: &str = "0.1.7";

struct Programs {
    producer: PathBuf,
    driver: PathBuf,
}

fn programs() -> &'static Programs {
    static PROGRAMS: OnceLock<Programs> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        let dir = scratch_dir("legacy_layouts");
        let headers = apache_release(PRODUCER_HEADERS).runtime();
        let producer = dir.join("liblegacy_producer.so");
        let lib_dir = format!("-L{}", headers.lib_dir.display());
        compile_cxx(
            &[workspace_root().join("tests/c/legacy_producer.cc")],
            &headers.include_dir,
            &producer,
            &[
                "-shared",
                "-fPIC",
                "-Wno-unused-parameter",
                &lib_dir,
                "-ltvm_ffi",
            ],
        );
        let ours = ffihub_runtime();
        let driver = dir.join("legacy_driver");
        let lib_dir = format!("-L{}", ours.lib_dir.display());
        compile_c(
            &[workspace_root().join("tests/c/legacy_driver.c")],
            &ours.include_dir,
            &driver,
            &[&lib_dir, "-ltvm_ffi", "-ldl"],
        );
        Programs { producer, driver }
    })
}

fn with_producer(mut cmd: Command) -> Command {
    cmd.arg(&programs().producer);
    cmd
}

#[test]
fn legacy_layouts_read_and_release_on_ffihub() {
    let cmd = with_producer(command_on(&ffihub_runtime(), &programs().driver));
    let out = run_with_timeout(cmd, Duration::from_secs(120));
    let transcript = assert_checks_passed(
        &format!("the driver of {PRODUCER_HEADERS}-header code on ffihub's runtime"),
        &out,
    );
    print!("{transcript}");
}

#[test]
fn valgrind_legacy_layouts_on_ffihub() {
    let cmd = valgrind::command_on(&ffihub_runtime(), &programs().driver, &[]);
    valgrind::assert_checks_clean(
        &format!("the driver of {PRODUCER_HEADERS}-header code on ffihub's runtime"),
        with_producer(cmd),
        valgrind::TIMEOUT,
    );
}
