//! tilelang 0.1.15 from PyPI (built on apache-tvm-ffi 0.1.12) on ffihub's runtime
//! (docs/compatibility.md). `scripts/setup-tilelang.sh` installs it, without its requirements,
//! into `.deps/tilelang`; `tests/tilelang/scenario.py` drives it:
//!
//! - its `libtvm_runtime.so` and `libtvm_compiler.so` load with every symbol bound on ffihub's
//!   runtime; on Apache's runtime of 0.1.15.post2 they do not (they import the by-value
//!   `json::Stringify` of 0.1.0 to 0.1.12);
//! - its bundled TVM (the Python package under `tilelang/3rdparty/tvm`, which unlike tilelang's
//!   own package does not need torch) runs tilelang's `tl.transform.Simplify` pass on a TE kernel,
//!   compiles it to C, builds and loads the shared library and runs it, with the same transcript
//!   on ffihub's runtime as on Apache's 0.1.12;
//! - it cannot share a process with Apache TVM 0.27's libraries, on any TVM-FFI runtime: both TVM
//!   builds register the same global functions (1,501 of the 1,829 of tilelang's) and type keys
//!   in the process's one registry, and the second build's registration fails
//!   ("... is already registered"), in either order;
//! - `generate --harvest` names its functions from its Python packages (docs/harvest.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use ffihub_tests::{apache_runtime, ffihub_runtime_checked, run_with_timeout, workspace_root};

const RUN_TIMEOUT: Duration = Duration::from_secs(300);

fn deps() -> PathBuf {
    let deps = workspace_root().join(".deps/tilelang");
    assert!(
        deps.join(".installed").exists(),
        "tilelang is not installed in {}: run scripts/setup-tilelang.sh",
        deps.display()
    );
    deps
}

fn scenario() -> PathBuf {
    workspace_root().join("tests/tilelang/scenario.py")
}

fn ffihub_lib() -> PathBuf {
    ffihub_runtime_checked()
        .lib_dir
        .join("libtvm_ffi.so")
        .canonicalize()
        .expect("ffihub's libtvm_ffi.so")
}

/// The python of `venv-<runtime>`; venv-ffihub's `libtvm_ffi.so` is (re)pointed at ffihub's.
fn python(runtime: &str) -> PathBuf {
    let venv = deps().join(format!("venv-{runtime}"));
    if runtime == "ffihub" {
        let lib_dir = venv.join("lib/python3.11/site-packages/tvm_ffi/lib");
        let tmp = lib_dir.join("libtvm_ffi.so.tilelang");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(ffihub_lib(), &tmp).expect("link ffihub's library");
        std::fs::rename(&tmp, lib_dir.join("libtvm_ffi.so")).expect("replace the venv's library");
    }
    venv.join("bin/python")
}

fn run(python: &Path, args: &[&Path]) -> Output {
    let mut cmd = Command::new(python);
    cmd.arg(scenario()).args(args).env_remove("LD_LIBRARY_PATH");
    run_with_timeout(cmd, RUN_TIMEOUT)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn tilelang_libraries_load_on_ffihub_not_on_apache_0_1_15() {
    let site = deps().join("site");
    let load = |runtime: &Path| run(Path::new("python3"), &[Path::new("load"), runtime, &site]);
    let ours = load(&ffihub_lib());
    assert!(
        ours.status.success(),
        "tilelang's libraries on ffihub's runtime:\n{}{}",
        text(&ours.stdout),
        text(&ours.stderr)
    );
    assert_eq!(
        text(&ours.stdout),
        "loaded libtvm_runtime.so\nloaded libtvm_compiler.so\n"
    );
    let theirs = load(&apache_runtime().lib_dir.join("libtvm_ffi.so"));
    assert!(
        !theirs.status.success()
            && text(&theirs.stdout).contains(
                "undefined symbol: _ZN3tvm3ffi4json9StringifyERKNS0_3AnyENS0_8OptionalIivEE"
            ),
        "tilelang's libraries on Apache's runtime of 0.1.15.post2 were expected to miss the \
         by-value json::Stringify:\n{}{}",
        text(&theirs.stdout),
        text(&theirs.stderr)
    );
}

#[test]
fn tilelang_tvm_runs_a_kernel_as_on_its_own_runtime() {
    let site = deps().join("site");
    let mut transcripts = Vec::new();
    for runtime in ["apache", "ffihub"] {
        let out = run(&python(runtime), &[Path::new("kernel"), &site]);
        let stdout = text(&out.stdout);
        print!("== {runtime}\n{stdout}");
        assert!(
            out.status.success() && stdout.contains("kernel result correct: True"),
            "tilelang's TVM on the {runtime} runtime: {}\n{stdout}{}",
            out.status,
            text(&out.stderr)
        );
        transcripts.push(stdout);
    }
    assert_eq!(
        transcripts[0], transcripts[1],
        "transcripts on Apache's 0.1.12 runtime and on ffihub's"
    );
}

#[test]
fn tilelang_tvm_and_apache_tvm_cannot_share_one_registry() {
    let site = deps().join("site");
    let tvm_libs = workspace_root().join(".deps/apache-tvm/site/tvm/lib");
    assert!(
        tvm_libs.join("libtvm_runtime.so").exists(),
        "Apache TVM is not installed: run scripts/setup-tvm.sh"
    );
    for (order, first) in [
        ("tilelang-first", "loaded tilelang's TVM"),
        ("tvm-first", "loaded Apache TVM's"),
    ] {
        let out = run(
            &python("ffihub"),
            &[Path::new("coload"), &site, &tvm_libs, Path::new(order)],
        );
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            !out.status.success()
                && stdout.starts_with(first)
                && stderr.contains("is already registered"),
            "{order}: expected the first TVM to load and the second to fail on a global function \
             the first registered:\n{stdout}{stderr}"
        );
    }
}

/// tilelang's libraries get their parameter names from its Python packages (`tilelang` and the
/// bundled `tvm`), with no hand overlay: `generate --harvest` on a dump made on ffihub's runtime
/// names at least 1,100 functions, methods and constructors from them.
#[test]
fn tilelang_signatures_are_harvested_from_its_python_packages() {
    let site = deps().join("site/tilelang");
    let lib = site.join("lib");
    let out = ffihub_tests::scratch_dir("tilelang-harvest");
    let ffihub = workspace_root().join("target/debug/ffihub");
    let runtime = ffihub_lib();
    let dump = out.join("tilelang.yaml");
    let mut cmd = Command::new(&ffihub);
    cmd.arg("dump").arg("--runtime").arg(&runtime);
    for l in ["libtvm_runtime.so", "libtvm_compiler.so", "libtilelang.so"] {
        cmd.arg("--lib").arg(lib.join(l));
    }
    let lib_path = format!("{}:{}", runtime.parent().unwrap().display(), lib.display());
    cmd.arg("-o").arg(&dump).env("LD_LIBRARY_PATH", lib_path);
    let o = run_with_timeout(cmd, RUN_TIMEOUT);
    assert!(o.status.success(), "dump: {}", text(&o.stderr));
    let mut cmd = Command::new(&ffihub);
    cmd.args([
        "generate",
        "--lang",
        "node",
        "--name",
        "tilelang",
        "--harvest",
    ])
    .arg("--metadata")
    .arg(&dump)
    .arg("--python")
    .arg(&site)
    .arg("--python")
    .arg(site.join("3rdparty/tvm/python/tvm"))
    .arg("--out")
    .arg(out.join("node"));
    let o = run_with_timeout(cmd, RUN_TIMEOUT);
    let report = text(&o.stderr);
    assert!(o.status.success(), "generate: {report}");
    print!("{report}");
    let harvested: usize = report
        .split(" from the harvest")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no harvest count in:\n{report}"));
    assert!(harvested >= 1100, "{report}");
    assert!(
        report.contains("harvest: 1135 Python files (0 not parsed)"),
        "{report}"
    );
}
