//! Apache's exported C++ API and modules across the C++/runtime boundary (ADR 0005): a C++
//! extension (`tests/c/cxx_extension.cc`) and its host (`tests/c/cxx_host.cc`), both compiled
//! once against Apache's headers from the wheel and linked with `-ltvm_ffi` (no rpath), run on
//! Apache's runtime and on ours (library path swapped). The extension subclasses `ModuleObj`
//! and calls the exported C++ functions; the host passes modules both ways. Both runs must pass
//! with the same transcript, and a valgrind run on ours must be clean.
//! The host's `globals` part calls the exported C++ functions backed by global functions
//! (json::Parse/Stringify, StructuralEqual::Equal, ...) the same way.
//!
//! The same programs are also built against the headers of release 0.1.12 and compared between
//! that release's own runtime and ours (docs/compatibility.md): with those headers they import
//! the by-value `json::Stringify(Any const&, Optional<int>)` (an 8-byte `Optional<int>`) and read
//! the `Optional<String>` results of `GetFunctionDoc`/`GetFunctionMetadata` with 0.1.12's
//! declaration of `Optional<String>`.

use std::path::PathBuf;
use std::process::Output;
use std::sync::OnceLock;
use std::time::Duration;

use ffihub_tests::{
    apache_release, apache_runtime, assert_checks_passed, assert_same_transcripts, command_on,
    compile_cxx, ffihub_runtime, run_with_timeout, scratch_dir, valgrind, workspace_root, Runtime,
};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The last release whose headers declare the older `Optional` layouts.
const LEGACY_HEADERS: &str = "0.1.12";

/// The extension and the host built against one release's headers, and that release's runtime.
struct Programs {
    extension: PathBuf,
    host: PathBuf,
    scratch: PathBuf,
    apache: Runtime,
}

/// Builds the extension and the host against `apache`'s headers (which have unused parameters in
/// inline code, hence -Wno-unused-parameter).
fn build(apache: Runtime, name: &str) -> Programs {
    let dir = scratch_dir(name);
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
        apache,
    }
}

/// Built once per test process against the headers of the release ffihub implements.
fn programs() -> &'static Programs {
    static PROGRAMS: OnceLock<Programs> = OnceLock::new();
    PROGRAMS.get_or_init(|| build(apache_runtime(), "cxx_modules"))
}

/// Built once per test process against the headers of [`LEGACY_HEADERS`].
fn legacy_programs() -> &'static Programs {
    static PROGRAMS: OnceLock<Programs> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        build(
            apache_release(LEGACY_HEADERS).runtime(),
            "cxx_modules_legacy",
        )
    })
}

fn host_command(
    programs: &Programs,
    mut cmd: std::process::Command,
    part: &str,
) -> std::process::Command {
    cmd.arg(&programs.extension)
        .arg(&programs.scratch)
        .arg(part)
        .env_remove("TVM_FFI_REPR_WITH_ADDR");
    cmd
}

fn run(programs: &Programs, runtime: &Runtime, part: &str) -> Output {
    run_with_timeout(
        host_command(programs, command_on(runtime, &programs.host), part),
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

/// Runs `part` on the programs' Apache runtime and on ours: same transcript, both passed.
fn compare(programs: &Programs, part: &str) {
    let (apache, ours) = (&programs.apache, ffihub_runtime());
    let (apache_out, ours_out) = (run(programs, apache, part), run(programs, &ours, part));
    assert_same_transcripts(
        &format!("the C++ host's `{part}` transcripts"),
        (apache, &apache_out),
        (&ours, &ours_out),
    );
    assert_passed(apache, part, &apache_out);
    assert_passed(&ours, part, &ours_out);
}

/// Runs both parts under valgrind on ours.
fn assert_valgrind_clean(programs: &Programs, headers: &str) {
    for part in ["modules", "globals"] {
        let cmd = valgrind::command_on(&ffihub_runtime(), &programs.host, &[]);
        valgrind::assert_checks_clean(
            &format!("the C++ host ({part}, {headers} headers) on ffihub's runtime"),
            host_command(programs, cmd, part),
            valgrind::TIMEOUT,
        );
    }
}

#[test]
fn cxx_modules_transcripts_match() {
    compare(programs(), "modules");
}

#[test]
fn cxx_globals_transcripts_match() {
    compare(programs(), "globals");
}

#[test]
fn valgrind_cxx_host_on_ffihub() {
    assert_valgrind_clean(programs(), "current");
}

#[test]
fn legacy_headers_cxx_modules_transcripts_match() {
    compare(legacy_programs(), "modules");
}

#[test]
fn legacy_headers_cxx_globals_transcripts_match() {
    compare(legacy_programs(), "globals");
}

#[test]
fn legacy_headers_import_the_by_value_stringify() {
    let nm = ffihub_tests::run_ok({
        let mut cmd = std::process::Command::new("nm");
        cmd.args(["-D", "--undefined-only"])
            .arg(&legacy_programs().extension);
        cmd
    });
    let imports = String::from_utf8_lossy(&nm.stdout);
    assert!(
        imports.contains("_ZN3tvm3ffi4json9StringifyERKNS0_3AnyENS0_8OptionalIivEE"),
        "the extension built against {LEGACY_HEADERS}'s headers does not import the by-value \
         json::Stringify:\n{imports}"
    );
}

#[test]
fn valgrind_legacy_headers_cxx_host_on_ffihub() {
    assert_valgrind_clean(legacy_programs(), LEGACY_HEADERS);
}
