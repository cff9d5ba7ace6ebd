//! Our headers describe the same ABI as Apache's: tests/c/layouts.c prints the size, alignment
//! and field offsets of every struct, and the value of every enumerator and macro constant; built
//! against our headers and against the wheel's, both outputs must be identical. Built as C++17 it
//! also prints exact field/typedef/constant types and exercises the C++-only inline helpers, so it
//! doubles as the check that our headers compile as C++. No runtime library is involved.

use ffihub_tests::{
    apache_runtime, compile_c, compile_cxx, line_diff, run_ok, scratch_dir, workspace_root,
};
use std::path::{Path, PathBuf};
use std::process::Command;

type Compiler = fn(&[PathBuf], &Path, &Path, &[&str]);

/// Builds tests/c/layouts.c with `compile` against the headers in `include_dir`, runs it and
/// returns what it printed.
fn layouts_output(compile: Compiler, include_dir: &Path, scratch: &Path, name: &str) -> String {
    let source = workspace_root().join("tests/c/layouts.c");
    let program = scratch.join(name);
    compile(&[source], include_dir, &program, &[]);
    let out = run_ok(Command::new(&program));
    std::fs::write(program.with_extension("txt"), &out.stdout).expect("save the output");
    String::from_utf8(out.stdout).expect("layouts prints ASCII")
}

fn assert_same_layouts(compile: Compiler, language: &str) {
    crate::headers::bless_first();
    let scratch = scratch_dir(&format!("layouts_{language}"));
    let apache = layouts_output(
        compile,
        &apache_runtime().include_dir,
        &scratch,
        "layouts_apache",
    );
    let ours = layouts_output(
        compile,
        &workspace_root().join("runtime/include"),
        &scratch,
        "layouts_ffihub",
    );
    assert!(
        apache.lines().filter(|l| l.contains(" offset=")).count() > 100,
        "layouts.c printed too little:\n{apache}"
    );
    if ours != apache {
        let diff = line_diff(&apache, &ours, 200);
        panic!(
            "the ABI described by runtime/include differs from Apache's headers ({language}; \
             tests/c/layouts.c output, - Apache, + ffihub):\n{diff}\n\nfull outputs: {}/layouts_{{apache,ffihub}}.txt",
            scratch.display()
        );
    }
}

#[test]
fn layouts_c11_match_apache() {
    assert_same_layouts(compile_c, "c11");
}

#[test]
fn layouts_cxx17_match_apache() {
    assert_same_layouts(compile_cxx, "cxx17");
}
