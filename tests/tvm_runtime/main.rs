//! Apache TVM from PyPI (`apache-tvm`, installed by `scripts/setup-tvm.sh`) on Apache's
//! runtime and on ffihub's: `tests/tvm_runtime/scenarios.py` imports TVM, compiles and runs a TE vector
//! add, round-trips a TVMScript PrimFunc, compiles and runs a Relax program on the VM, and
//! exports both libraries; then each runtime loads the libraries the *other* one exported.
//! Every run checks its own results; both runtimes must print the same transcript. Last, TVM's
//! JSON round trip of the PrimFunc, on ffihub's runtime only (Apache's crashes on it).
//!
//! The two venvs differ only in `tvm_ffi/lib/libtvm_ffi.so`: the wheel's in `venv-apache`, a
//! link to ffihub's build in `venv-ffihub` (pointed here before the runs).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, assert_same_transcripts, ffihub_runtime_checked, run_with_timeout, scratch_dir,
    workspace_root, Runtime,
};

/// Importing TVM and compiling the two programs take seconds; this only catches hangs.
const TIMEOUT: Duration = Duration::from_secs(300);

struct Venv {
    runtime: Runtime,
    python: PathBuf,
    /// The `libtvm_ffi.so` its processes must map.
    library: PathBuf,
}

fn venvs() -> [Venv; 2] {
    let deps = workspace_root().join(".deps/apache-tvm");
    assert!(
        deps.join(".installed").exists(),
        "Apache TVM is not installed in {}: run scripts/setup-tvm.sh",
        deps.display()
    );
    let ffihub = ffihub_runtime_checked();
    let ffihub_library = canonical(&ffihub.lib_dir.join("libtvm_ffi.so"));
    point_library(&deps.join("venv-ffihub"), &ffihub_library);
    let apache_library = canonical(&deps.join(format!("venv-apache/{WHEEL_LIBRARY}")));
    [(apache_runtime(), apache_library), (ffihub, ffihub_library)].map(|(runtime, library)| Venv {
        python: deps.join(format!("venv-{}/bin/python", runtime.name)),
        runtime,
        library,
    })
}

/// Where the apache-tvm-ffi wheel puts its runtime in a venv.
const WHEEL_LIBRARY: &str = "lib/python3.11/site-packages/tvm_ffi/lib/libtvm_ffi.so";

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Makes the venv's `tvm_ffi/lib/libtvm_ffi.so` a link to `library` (replaced atomically, so a
/// concurrent run never sees it missing).
fn point_library(venv: &Path, library: &Path) {
    let link = venv.join(WHEEL_LIBRARY);
    let lib_dir = link.parent().expect("the library has a folder");
    assert!(
        lib_dir.is_dir(),
        "{} is missing: rerun scripts/setup-tvm.sh",
        lib_dir.display()
    );
    let tmp = lib_dir.join(format!("libtvm_ffi.so.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(library, &tmp).expect("create the library link");
    std::fs::rename(&tmp, &link).expect("replace the library link");
}

/// Runs `scenarios.py <mode> <dir>` in `venv`, failing the test with its output unless it
/// succeeded; the timings it reports on stderr are echoed.
fn scenarios(venv: &Venv, mode: &str, dir: &Path) -> Output {
    let mut cmd = Command::new(&venv.python);
    cmd.arg(workspace_root().join("tests/tvm_runtime/scenarios.py"))
        .arg(mode)
        .arg(dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("LD_PRELOAD");
    let out = run_with_timeout(cmd, TIMEOUT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "scenarios.py {mode} on {}'s runtime failed ({}):\n{}\n--- stderr\n{stderr}",
        venv.runtime.name,
        out.status,
        String::from_utf8_lossy(&out.stdout),
    );
    for line in stderr.lines().filter(|l| l.starts_with("timing ")) {
        eprintln!("{} {mode}: {line}", venv.runtime.name);
    }
    // The two runs must really be on the two runtimes.
    let mapped = stderr.lines().find_map(|l| l.strip_prefix("runtime "));
    assert_eq!(
        mapped.map(|path| canonical(Path::new(path))),
        Some(venv.library.clone()),
        "the libtvm_ffi.so scenarios.py ran on in venv-{}",
        venv.runtime.name
    );
    out
}

#[test]
fn apache_tvm_runs_on_ffihub() {
    let [apache, ffihub] = venvs();
    let out = scratch_dir("tvm");
    let (apache_dir, ffihub_dir) = (
        out.join("exported-by-apache"),
        out.join("exported-by-ffihub"),
    );

    let apache_built = scenarios(&apache, "build", &apache_dir);
    let ffihub_built = scenarios(&ffihub, "build", &ffihub_dir);
    assert_same_transcripts(
        "the TVM scenario transcripts",
        (&apache.runtime, &apache_built),
        (&ffihub.runtime, &ffihub_built),
    );

    // Each runtime loads and runs what the other one exported.
    let apache_loaded = scenarios(&apache, "load", &ffihub_dir);
    let ffihub_loaded = scenarios(&ffihub, "load", &apache_dir);
    assert_same_transcripts(
        "the transcripts of loading the other runtime's libraries",
        (&apache.runtime, &apache_loaded),
        (&ffihub.runtime, &ffihub_loaded),
    );
    // ... and prints what loading its own exports printed at the end of `build`.
    let loaded = String::from_utf8_lossy(&ffihub_loaded.stdout);
    assert!(
        String::from_utf8_lossy(&ffihub_built.stdout).ends_with(&*loaded) && !loaded.is_empty(),
        "loading Apache's exports on ffihub's runtime printed\n{loaded}\nunlike loading its own"
    );

    // tvm.ir.save_json / load_json: ffihub's runtime only, since Apache's crashes on TVM 0.27.0's
    // PrimType hash hook (see scenarios.py); the run checks the round trip itself.
    let json = scenarios(&ffihub, "json", &out.join("json"));
    let json = String::from_utf8_lossy(&json.stdout);
    assert!(
        json.contains("json round trip structurally equal: True"),
        "{json}"
    );
}
