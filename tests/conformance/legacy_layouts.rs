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
use std::time::Duration;

use ffihub_tests::{
    apache_release, assert_checks_passed, built_once, command_on, ffihub_runtime, run_with_timeout,
    valgrind,
};

/// The release whose headers the producer is built with: the last one of each older layout.
const PRODUCER_HEADERS: &str = "0.1.7";

/// A library built with the old release's headers, which makes objects of its layouts.
fn producer() -> PathBuf {
    let headers = apache_release(PRODUCER_HEADERS).runtime();
    let (sources, args) = (
        ["tests/c/legacy_producer.cc"],
        ["-shared", "-fPIC", "-Wno-unused-parameter"],
    );
    built_once(
        &headers,
        "legacy_layouts/producer",
        "liblegacy_producer.so",
        &sources,
        &args,
    )
}

/// The host that loads the producer and reads its objects through ffihub's runtime.
fn driver() -> PathBuf {
    let (sources, args) = (["tests/c/legacy_driver.c"], ["-ldl"]);
    built_once(
        &ffihub_runtime(),
        "legacy_layouts/driver",
        "legacy_driver",
        &sources,
        &args,
    )
}

fn with_producer(mut cmd: Command) -> Command {
    cmd.arg(producer());
    cmd
}

#[test]
fn legacy_layouts_read_and_release_on_ffihub() {
    let cmd = with_producer(command_on(&ffihub_runtime(), &driver()));
    let out = run_with_timeout(cmd, Duration::from_secs(120));
    let transcript = assert_checks_passed(
        &format!("the driver of {PRODUCER_HEADERS}-header code on ffihub's runtime"),
        &out,
    );
    print!("{transcript}");
}

#[test]
fn valgrind_legacy_layouts_on_ffihub() {
    let cmd = valgrind::command_on(&ffihub_runtime(), &driver(), &[]);
    valgrind::assert_checks_clean(
        &format!("the driver of {PRODUCER_HEADERS}-header code on ffihub's runtime"),
        with_producer(cmd),
        valgrind::TIMEOUT,
    );
}
