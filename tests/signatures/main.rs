//! Parameter names end to end: tests/signatures/run.sh (a C++ library built against Apache's
//! headers with `arg_names` metadata and docstring parameter lists, Apache's testing library
//! and the demo extension, dumped, generated and checked from C++, Node and Julia on both
//! runtimes). Needs scripts/setup-apache.sh, scripts/setup-node.sh and scripts/setup-julia.sh
//! (scripts/test.sh runs them) and a built workspace.

use std::time::Duration;

#[test]
fn parameter_names_reach_every_language_on_both_runtimes() {
    let out = ffihub_tests::run_area_script("signatures", Duration::from_secs(1200));
    assert_eq!(out.matches("ok: ").count(), 4, "{out}");
}
