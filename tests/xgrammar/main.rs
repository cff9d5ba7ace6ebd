//! xgrammar end to end: tests/xgrammar/run.sh (xgrammar 0.2.8's library dumped, generated with
//! `--harvest` and the entries of examples/xgrammar/bindings.yaml the harvest cannot derive, and
//! the Julia, Node and C++ examples compared with Python through Apache's tvm_ffi, on both
//! runtimes; the C++ example compiles with every compiler and standard library of `CXX_MATRIX`);
//! and the harvest alone against the hand-written overlay it replaced. Needs scripts/setup-xgrammar.sh,
//! scripts/setup-apache.sh, scripts/setup-pysuite.sh, scripts/setup-node.sh and
//! scripts/setup-julia.sh (scripts/test.sh runs them) and a built workspace.

use ffihub_tests::{apache_runtime, command_on, run_ok, workspace_root};
use std::time::Duration;

/// The parameter names of every entry of a `signatures:` overlay, in order.
fn names(yaml: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let doc: serde_yaml::Value = serde_yaml::from_str(yaml).unwrap();
    let entries = doc["signatures"]["entries"].as_mapping().unwrap();
    entries
        .iter()
        .map(|(k, e)| {
            let params = e["params"].as_sequence().cloned().unwrap_or_default();
            let names = params
                .iter()
                .map(|p| {
                    p.as_str()
                        .or_else(|| p["name"].as_str())
                        .unwrap_or_default()
                        .to_string()
                })
                .collect();
            (k.as_str().unwrap().to_string(), names)
        })
        .collect()
}

/// `ffihub harvest` alone, on the wheel's library and the Python package around it, gives the
/// names of the hand-written overlay (tests/xgrammar/hand-written.yaml, what
/// examples/xgrammar/bindings.yaml was before the harvest) for at least 90% of its parameters.
#[test]
fn harvest_alone_gives_the_hand_written_names() {
    let root = workspace_root();
    let lib = root.join(".deps/xgrammar/xgrammar/libxgrammar_bindings.so");
    assert!(
        lib.is_file(),
        "{} is missing: run scripts/setup-xgrammar.sh",
        lib.display()
    );
    let apache = apache_runtime();
    let mut cmd = command_on(&apache, &root.join("target/debug/ffihub"));
    cmd.arg("harvest")
        .arg("--runtime")
        .arg(apache.lib_dir.join("libtvm_ffi.so"))
        .arg("--lib")
        .arg(&lib);
    let out = run_ok(cmd);
    let harvested = names(&String::from_utf8(out.stdout).unwrap());
    let hand =
        names(&std::fs::read_to_string(root.join("tests/xgrammar/hand-written.yaml")).unwrap());
    let (mut same, mut all) = (0, 0);
    let mut differ = Vec::new();
    for (entry, names) in &hand {
        let got = harvested.get(entry).cloned().unwrap_or_default();
        for (i, n) in names.iter().enumerate() {
            all += 1;
            if got.get(i) == Some(n) {
                same += 1;
            } else {
                differ.push(format!(
                    "{entry} parameter {}: {:?} for `{n}`",
                    i + 1,
                    got.get(i)
                ));
            }
        }
    }
    println!("harvest: {same} of {all} hand-written parameter names");
    assert!(
        same * 10 >= all * 9,
        "{same} of {all} names; differing:\n{}",
        differ.join("\n")
    );
}

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
