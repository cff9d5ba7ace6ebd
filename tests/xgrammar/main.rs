//! xgrammar end to end: tests/xgrammar/run.sh (xgrammar 0.2.8's library dumped, generated with
//! examples/xgrammar/bindings.yaml, and the Julia, Node and C++ examples compared with Python
//! through Apache's tvm_ffi, on both runtimes). Needs scripts/setup-xgrammar.sh,
//! scripts/setup-apache.sh, scripts/setup-pysuite.sh, scripts/setup-node.sh and
//! scripts/setup-julia.sh (scripts/test.sh runs them) and a built workspace.

use std::time::Duration;

#[test]
fn xgrammar_examples_match_python_on_both_runtimes() {
    let out = ffihub_tests::run_area_script("xgrammar", Duration::from_secs(1200));
    assert!(
        out.contains("ok: C++, Node and Julia on the apache runtime"),
        "{out}"
    );
    assert!(
        out.contains("ok: C++, Node and Julia on the ours runtime"),
        "{out}"
    );
    for check in [
        "ok: type truth: xgrammar:",
        "ok: Node errors name the parameters and options, and count the options object",
        "ok: Julia results as declared and errors in the caller's words, with keywords",
    ] {
        assert!(out.contains(check), "{out}");
    }
}
