//! Thread stress (`tests/c/thread_stress.c`): 8 threads mixing calls, function objects, errors,
//! object churn and (on ours) global and type registration, 20 rounds, with the live-object
//! count back to its baseline after every round. Apache's runtime runs the same program without
//! registration: it crashes (double free) when threads register globals and types at once.

use std::path::PathBuf;
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, assert_checks_passed, built_once, command_on, ffihub_runtime, run_with_timeout,
    Runtime,
};

const ROUNDS: &str = "20";
const ITERATIONS: &str = "1000";

/// The program, compiled once against Apache's headers (linked without rpath).
fn binary() -> PathBuf {
    let sources = ["tests/c/thread_stress.c"];
    built_once(
        &apache_runtime(),
        "thread_stress",
        "thread_stress",
        &sources,
        &["-lpthread"],
    )
}

fn stress(runtime: &Runtime, mode: &str) {
    let mut cmd = command_on(runtime, &binary());
    cmd.args([mode, ROUNDS, ITERATIONS]);
    let out = run_with_timeout(cmd, Duration::from_secs(300));
    let what = format!("thread_stress {mode} on the {} runtime", runtime.name);
    let transcript = assert_checks_passed(&what, &out);
    let rounds = transcript
        .lines()
        .filter(|l| l.starts_with("ok round "))
        .count();
    assert_eq!(
        rounds.to_string(),
        ROUNDS,
        "{what}: rounds passed\n{transcript}"
    );
}

#[test]
fn thread_stress_with_registration_on_ffihub() {
    stress(&ffihub_runtime(), "all");
}

#[test]
fn thread_stress_without_registration_on_apache() {
    stress(&apache_runtime(), "calls");
}
