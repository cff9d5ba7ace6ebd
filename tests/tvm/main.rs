//! Bindings for Apache TVM 0.27 at full scale: tests/tvm/run.sh (dump on Apache's runtime,
//! generate, compile, and call from C++, Node and Julia on Apache's runtime and on ffihub's;
//! the C++ headers compile with every
//! compiler and standard library of `CXX_MATRIX`). Needs scripts/setup-apache.sh,
//! scripts/setup-tvm.sh, scripts/setup-node.sh and scripts/setup-julia.sh (scripts/test.sh runs
//! them) and a built
//! workspace.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn tvm_bindings_generate_compile_and_call() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let tvm = root.join(".deps/apache-tvm/site/tvm/lib/libtvm_compiler.so");
    assert!(
        tvm.is_file(),
        "{} is missing: run scripts/setup-tvm.sh",
        tvm.display()
    );
    let out = root.join("target/tests/tvm");
    let ffihub = ffihub_tests::ffihub_runtime_checked();
    let status = Command::new(root.join("tests/tvm/run.sh"))
        .arg(&out)
        .arg(&ffihub.lib_dir)
        .status()
        .expect("cannot run tests/tvm/run.sh");
    assert!(status.success(), "tests/tvm/run.sh failed ({status})");
    // run.sh built and ran the programs with the first configuration; their headers (the
    // umbrella, and one namespace's alone) compile in every other one too.
    let configs: Vec<_> = ffihub_tests::CXX_MATRIX[1..].iter().collect();
    let programs = ["tvm.cpp", "tvm_ir.cpp"].map(|p| root.join("tests/tvm").join(p));
    let started = std::time::Instant::now();
    let failures = ffihub_tests::syntax_check_all(&configs, &programs, &[out.join("cpp")]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!(
        "TVM's headers compile in {} more configurations: {} ms",
        configs.len(),
        started.elapsed().as_millis()
    );
}
