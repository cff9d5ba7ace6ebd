//! xgrammar end to end: tests/xgrammar/run.sh (xgrammar 0.2.8's library dumped, generated with
//! examples/xgrammar/bindings.yaml, and the Julia, Node and C++ examples compared with Python
//! through Apache's tvm_ffi, on both runtimes; the C++ example compiles with every compiler and
//! standard library of `CXX_MATRIX`). Needs scripts/setup-xgrammar.sh,
//! scripts/setup-apache.sh, scripts/setup-pysuite.sh, scripts/setup-node.sh and
//! scripts/setup-julia.sh (scripts/test.sh runs them) and a built workspace.

use std::time::Duration;

#[test]
fn xgrammar_examples_match_python_on_both_runtimes() {
    let out = ffihub_tests::run_area_script("xgrammar", Duration::from_secs(1200));
    // run.sh built the C++ example with the first configuration; it compiles in every other
    // one too.
    let configs: Vec<_> = ffihub_tests::CXX_MATRIX[1..].iter().collect();
    let root = ffihub_tests::workspace_root();
    let generated = ffihub_tests::target_dir().join("tests/xgrammar/xgrammar/cpp");
    let started = std::time::Instant::now();
    let failures = ffihub_tests::syntax_check_all(
        &configs,
        &[root.join("examples/xgrammar/example.cpp")],
        &[generated],
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!(
        "the xgrammar example compiles in {} more configurations: {} ms",
        configs.len(),
        started.elapsed().as_millis()
    );
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
