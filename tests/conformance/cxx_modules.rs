//! Apache's exported C++ API and modules across the C++/runtime boundary (ADR 0005): a C++
//! extension (`tests/c/cxx_extension.cc`) and its host (`tests/c/cxx_host.cc`), both compiled
//! once against Apache's headers from the wheel and linked with `-ltvm_ffi` (no rpath), run on
//! Apache's runtime and on ours (library path swapped). The extension subclasses `ModuleObj`
//! and calls the exported C++ functions; the host passes modules both ways. Both runs must pass
//! with the same transcript, and a valgrind run on ours must be clean.
//! The host's `globals` part calls the exported C++ functions backed by global functions
//! (json::Parse/Stringify, StructuralEqual::Equal, ...) the same way.

use std::path::PathBuf;
use std::process::Output;
use std::sync::OnceLock;
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, assert_checks_passed, assert_same_transcripts, command_on, compile_cxx,
    ffihub_runtime, run_with_timeout, scratch_dir, valgrind, workspace_root, Runtime,
};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

struct Programs {
    extension: PathBuf,
    host: PathBuf,
    scratch: PathBuf,
}

/// The extension and the host, built once per test process against Apache's headers (which
/// have unused parameters in inline code, hence -Wno-unused-parameter).
fn programs() -> &'static Programs {
    static PROGRAMS: OnceLock<Programs> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        let apache = apache_runtime();
        let dir = scratch_dir("cxx_modules");
        let lib_dir = format!("-L{}", apache.lib_dir.display());
        let extension = dir.join("libcxx_extension.so");
        compile_cxx(
            &[workspace_root().join("tests/c/cxx_extension.cc")],
            &apache.include_dir,
            &extension,
            &[
                "-shared",
                "-fPIC",
                "-Wno-unused-parameter",
                &lib_dir,
                "-ltvm_ffi",
            ],
        );
        let host = dir.join("cxx_host");
        compile_cxx(
            &[workspace_root().join("tests/c/cxx_host.cc")],
            &apache.include_dir,
            &host,
            &["-Wno-unused-parameter", &lib_dir, "-ltvm_ffi"],
        );
        let scratch = dir.join("files");
        std::fs::create_dir_all(&scratch).expect("create the host's scratch folder");
        Programs {
            extension,
            host,
            scratch,
        }
    })
}

fn host_command(mut cmd: std::process::Command, part: &str) -> std::process::Command {
    let programs = programs();
    cmd.arg(&programs.extension)
        .arg(&programs.scratch)
        .arg(part)
        .env_remove("TVM_FFI_REPR_WITH_ADDR");
    cmd
}

fn run(runtime: &Runtime, part: &str) -> Output {
    run_with_timeout(
        host_command(command_on(runtime, &programs().host), part),
        RUN_TIMEOUT,
    )
}

fn assert_passed(runtime: &Runtime, part: &str, out: &Output) {
    let what = format!(
        "the C++ host ({part}) on the {} runtime ({})",
        runtime.name,
        runtime.lib_dir.display()
    );
    assert_checks_passed(&what, out);
}

/// Runs `part` on both runtimes: same transcript, both passed.
fn compare(part: &str) {
    let (apache, ours) = (apache_runtime(), ffihub_runtime());
    let (apache_out, ours_out) = (run(&apache, part), run(&ours, part));
    assert_same_transcripts(
        &format!("the C++ host's `{part}` transcripts"),
        (&apache, &apache_out),
        (&ours, &ours_out),
    );
    assert_passed(&apache, part, &apache_out);
    assert_passed(&ours, part, &ours_out);
}

#[test]
fn cxx_modules_transcripts_match() {
    compare("modules");
}

#[test]
fn cxx_globals_transcripts_match() {
    compare("globals");
}

#[test]
fn valgrind_cxx_host_on_ffihub() {
    for part in ["modules", "globals"] {
        let cmd = valgrind::command_on(&ffihub_runtime(), &programs().host, &[]);
        valgrind::assert_checks_clean(
            &format!("the C++ host ({part}) on ffihub's runtime"),
            host_command(cmd, part),
            valgrind::TIMEOUT,
        );
    }
}
