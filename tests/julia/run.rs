//! Runs the Julia suites on ffihub's runtime and on Apache's, through the `scripts/julia` wrapper
//! that `scripts/setup-julia.sh` installs:
//!
//! - the suite of the TVMFFI support package (tests/julia/runtests.jl), which loads Apache's
//!   `libtvm_ffi_testing.so` and compiles a small C kernel;
//! - the suite of the generated packages (tests/julia/generated/runtests.jl): set up once per
//!   `cargo test` run, it builds the demo extension and the `ffihub` binary (nested
//!   `cargo build`, same target folder), generates the Julia packages `Demo` (the demo extension)
//!   and `TestingLib` (the wheel's `libtvm_ffi_testing.so`) with `ffihub generate --lang julia`
//!   into `target/ffihub-tests/julia/packages`, and writes a Julia environment next to them
//!   (`Project.toml` + `Manifest.toml` with `path` entries for both packages and the local
//!   TVMFFI: no registry, no network). The packages find their libraries through
//!   `FFIHUB_LIBRARY_PATH`. It also compiles `tests/c/reflect_probe.cc` against Apache's headers
//!   (`FFIHUB_REFLECT_PROBE`), the C++ code that test_define.jl passes the types it defines to,
//!   and builds `libffihub_dump.so` (`FFIHUB_DUMP_LIBRARY`, with `FFIHUB_BIN`), with which it
//!   dumps its own process.
//! - `Pkg.test` of the generated Demo package (its own `test/runtests.jl`), generated into a fresh
//!   folder outside the checkout with its library bundled in `lib/`, and developed into a fresh
//!   environment, as a user would;
//! - `release.rs`: `Pkg.add` of TVMFFI and the Demo package from a registry into a fresh depot,
//!   their libraries installed as artifacts (no runtime variable there).
//!
//! The runtime is selected with `TVM_FFI_LIB` alone (docs/install.md): libraries that carry
//! `DT_NEEDED libtvm_ffi.so` bind to the runtime TVMFFI opened, by its SONAME (ADR 0001). The suites
//! precompile into a depot per runtime, so the runs on the two runtimes go side by side.

mod release;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, apache_testing_lib, build_demo_and_generator, build_julia_shim,
    build_reflect_probe, built_once, cargo_build, ffihub_runtime, ffihub_runtime_checked,
    julia_lock, run_ok, run_with_timeout, target_dir, workspace_root, Runtime,
};

/// The whole suite takes a few minutes (a 1,000,000-call GC stress test included).
const SUITE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The Julia wrapper, checked to run; fails with the setup command otherwise.
fn julia() -> PathBuf {
    let wrapper = workspace_root().join("scripts/julia");
    let ok = Command::new(&wrapper)
        .args(["--startup-file=no", "-e", "nothing"])
        .output()
        .map(|out| out.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "Julia is not set up: `{}` cannot run Julia. Run scripts/setup-julia.sh (as root; \
         scripts/test.sh does) to install Julia 1.5.3 and its libunwind into .deps/",
        wrapper.display()
    );
    wrapper
}

/// `julia: N passed, N failed, N skipped`, the last line the suite prints.
fn counts_line(stdout: &str) -> Option<&str> {
    stdout.lines().rev().find(|l| l.starts_with("julia: "))
}

/// The depot path of the suites run on `runtime`: a depot of that runtime's first, where Julia
/// writes its precompiled packages, then the usual ones (an empty entry stands for Julia's
/// default path, on every Julia version). The runs on the two runtimes so precompile into
/// different folders and can run at the same time; runs on one runtime wait for each other
/// ([`runtime_depot_lock`]).
fn runtime_depot_path(runtime: &Runtime) -> std::ffi::OsString {
    let own = target_dir()
        .join("ffihub-tests/julia-depots")
        .join(runtime.name);
    let mut path = own.into_os_string();
    path.push(":");
    if let Some(user) = std::env::var_os("JULIA_DEPOT_PATH") {
        path.push(user);
    }
    path
}

/// Held while a suite runs on `runtime` (see [`runtime_depot_path`]).
fn runtime_depot_lock(runtime: &Runtime) -> std::sync::MutexGuard<'static, ()> {
    static LOCKS: [std::sync::Mutex<()>; 2] =
        [std::sync::Mutex::new(()), std::sync::Mutex::new(())];
    let lock = &LOCKS[usize::from(runtime.name == "apache")];
    lock.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `scripts/julia --project=<project> <script> <args>` on `runtime` and checks its counts
/// line.
fn run_julia(
    what: &str,
    runtime: &Runtime,
    project: &Path,
    script: &[&Path],
    env: &[(&str, PathBuf)],
) {
    build_julia_shim();
    let _serial = runtime_depot_lock(runtime);
    let root = workspace_root();
    let mut cmd = Command::new(julia());
    cmd.current_dir(&root)
        .env("JULIA_DEPOT_PATH", runtime_depot_path(runtime))
        .arg("--startup-file=no")
        .arg(format!("--project={}", project.display()))
        .args(script)
        .env("TVM_FFI_LIB", runtime.lib_dir.join("libtvm_ffi.so"))
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("FFIHUB_LIBRARY_PATH")
        .env("TVM_FFI_TESTING_LIB", apache_testing_lib())
        .env_remove("TVM_FFI_LIB_DIR")
        .env_remove("TVM_FFI_REPR_WITH_ADDR");
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = run_with_timeout(cmd, SUITE_TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let counts = counts_line(&stdout).unwrap_or("julia: no test counts printed");
    let times = stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("julia times: "))
        .unwrap_or("not printed");
    // Straight to stderr (not eprintln!, which the test harness captures): the counts and the
    // time of each file are shown even when the test passes.
    let _ = writeln!(
        std::io::stderr(),
        "{what} on {}: {} (per file: {times})",
        runtime.name,
        counts.trim_start_matches("julia: ")
    );
    assert!(
        out.status.success() && counts.contains(" 0 failed"),
        "the {what} failed on {}'s runtime ({}):\n--- stdout\n{}\n--- stderr\n{}",
        runtime.name,
        out.status,
        stdout,
        stderr
    );
}

/// `libthreads_lib.so` (tests/julia/threads_lib.cc, against Apache's headers): a library that calls
/// back from threads of its own and keeps tensors, for test_threads.jl.
fn threads_lib() -> PathBuf {
    let (sources, args) = (
        ["tests/julia/threads_lib.cc"],
        ["-shared", "-fPIC", "-pthread"],
    );
    built_once(
        &apache_runtime(),
        "julia-threads-lib",
        "libthreads_lib.so",
        &sources,
        &args,
    )
}

fn run_suite(runtime: &Runtime) {
    let root = workspace_root();
    run_julia(
        "Julia suite",
        runtime,
        &root.join("bindings/julia/TVMFFI"),
        &[&root.join("tests/julia/runtests.jl")],
        &[("FFIHUB_THREADS_LIB", threads_lib())],
    );
}

/// test_threads.jl again with four Julia threads (the suite runs with one).
fn run_threads(runtime: &Runtime) {
    let root = workspace_root();
    run_julia(
        "Julia library-thread tests with 4 threads",
        runtime,
        &root.join("bindings/julia/TVMFFI"),
        &[
            &root.join("tests/julia/runtests.jl"),
            Path::new("test_threads.jl"),
        ],
        &[
            ("FFIHUB_THREADS_LIB", threads_lib()),
            ("JULIA_NUM_THREADS", PathBuf::from("4")),
        ],
    );
}

/// The generated packages and their Julia environment, made once per test run.
struct Generated {
    /// The environment (Project.toml + Manifest.toml) that has Demo, TestingLib and TVMFFI.
    env: PathBuf,
    /// The folders of `libffihub_demo.so` and `libtvm_ffi_testing.so`, as `FFIHUB_LIBRARY_PATH`.
    library_path: PathBuf,
    /// `libreflect_probe.so` (test_define.jl passes the types it defines to it).
    reflect_probe: PathBuf,
    /// `libffihub_dump.so` (test_define.jl dumps its process and generates a package from it).
    dump_lib: PathBuf,
}

/// A package's name and UUID from its Project.toml.
fn package_identity(project_toml: &Path) -> (String, String) {
    let text = std::fs::read_to_string(project_toml)
        .unwrap_or_else(|e| panic!("{}: {e}", project_toml.display()));
    let value = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key} = \"")))
            .and_then(|rest| rest.strip_suffix('"'))
            .unwrap_or_else(|| panic!("{} has no {key}", project_toml.display()))
            .to_string()
    };
    (value("name"), value("uuid"))
}

fn generated() -> &'static Generated {
    static GENERATED: OnceLock<Generated> = OnceLock::new();
    GENERATED.get_or_init(|| {
        let root = workspace_root();
        let target = target_dir();
        build_demo_and_generator();
        cargo_build(&["-p", "ffihub-dump"]);
        let demo_lib = target.join("debug/libffihub_demo.so");
        let base = target.join("ffihub-tests/julia");
        let packages = base.join("packages");
        let generate = |lib: &Path, name: &str, dir: &str| {
            let mut cmd = Command::new(target.join("debug/ffihub"));
            cmd.args(["generate", "--lang", "julia", "--runtime"])
                .arg(ffihub_runtime().lib_dir.join("libtvm_ffi.so"))
                .arg("--lib")
                .arg(lib)
                .args(["--name", name, "--out"])
                .arg(packages.join(dir));
            run_ok(cmd);
            packages.join(dir)
        };
        let demo = generate(&demo_lib, "demo", "Demo");
        let testing = generate(&apache_testing_lib(), "testing_lib", "TestingLib");

        // An environment with path entries only (Julia 1.5's manifest format, which current
        // Julia still reads): `using Demo` works offline, without Pkg or a registry.
        let tvmffi = root.join("bindings/julia/TVMFFI");
        let mut project = String::from("[deps]\n");
        let mut manifest = String::new();
        for (dir, deps) in [(&demo, "[\"TVMFFI\"]"), (&testing, "[\"TVMFFI\"]"), (&tvmffi, "[\"Libdl\", \"Pkg\", \"SHA\"]")] {
            let (name, uuid) = package_identity(&dir.join("Project.toml"));
            project.push_str(&format!("{name} = \"{uuid}\"\n"));
            manifest.push_str(&format!(
                "[[{name}]]\ndeps = {deps}\npath = {:?}\nuuid = \"{uuid}\"\nversion = \"0.1.0\"\n\n",
                dir.display().to_string()
            ));
        }
        for (stdlib, uuid) in [
            ("Libdl", "8f399da3-3557-5675-b5ff-fb832c97cbdb"),
            ("Pkg", "44cfe95a-1eb2-52ea-b672-e2afdf69b78f"),
            ("SHA", "ea8e919c-243c-51af-8825-aaa63cd721ce"),
        ] {
            manifest.push_str(&format!("[[{stdlib}]]\nuuid = \"{uuid}\"\n\n"));
        }
        let env = base.join("env");
        std::fs::create_dir_all(&env).unwrap();
        std::fs::write(env.join("Project.toml"), project).unwrap();
        std::fs::write(env.join("Manifest.toml"), manifest).unwrap();
        Generated {
            env,
            library_path: std::env::join_paths([
                demo_lib.parent().unwrap(),
                apache_testing_lib().parent().unwrap(),
            ])
            .unwrap()
            .into(),
            reflect_probe: build_reflect_probe("julia-reflect-probe"),
            dump_lib: target.join("debug/libffihub_dump.so"),
        }
    })
}

fn run_generated(runtime: &Runtime) {
    let g = generated();
    run_julia(
        "Julia suite of the generated packages",
        runtime,
        &g.env,
        &[&workspace_root().join("tests/julia/generated/runtests.jl")],
        &[
            ("FFIHUB_LIBRARY_PATH", g.library_path.clone()),
            ("FFIHUB_REFLECT_PROBE", g.reflect_probe.clone()),
            ("FFIHUB_DUMP_LIBRARY", g.dump_lib.clone()),
            ("FFIHUB_BIN", target_dir().join("debug/ffihub")),
        ],
    );
}

/// `Pkg.test` of the generated Demo package, generated into a fresh folder outside the checkout
/// with its library copied into the package's `lib/` (no library variables set), and added to a
/// fresh Julia environment with `Pkg.develop` (with TVMFFI): runs the package's
/// own `test/runtests.jl` the way a user would. `Test` resolves through the placeholder registry
/// that scripts/setup-julia.sh provides.
fn run_pkg_test(runtime: &Runtime) {
    generated();
    build_julia_shim();
    let _serial = julia_lock();
    let target = target_dir();
    let folder = std::env::temp_dir().join(format!("ffihub-julia-pkg-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let demo = folder.join("Demo");
    let mut generate = Command::new(target.join("debug/ffihub"));
    generate
        .args(["generate", "--lang", "julia", "--runtime"])
        .arg(runtime.lib_dir.join("libtvm_ffi.so"))
        .arg("--lib")
        .arg(target.join("debug/libffihub_demo.so"))
        .args(["--name", "demo", "--out"])
        .arg(&demo);
    run_ok(generate);
    std::fs::create_dir_all(demo.join("lib")).unwrap();
    std::fs::copy(
        target.join("debug/libffihub_demo.so"),
        demo.join("lib/libffihub_demo.so"),
    )
    .unwrap();
    let mut cmd = Command::new(julia());
    cmd.current_dir(&folder)
        .args([
            "--startup-file=no",
            "-e",
            "using Pkg; Pkg.activate(mktempdir()); \
             Pkg.develop([PackageSpec(path = ARGS[1]), PackageSpec(path = ARGS[2])]); \
             Pkg.test(\"Demo\")",
        ])
        .arg(workspace_root().join("bindings/julia/TVMFFI"))
        .arg(&demo)
        .env("TVM_FFI_LIB", &runtime.lib_dir)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("FFIHUB_LIBRARY_PATH")
        .env_remove("TVM_FFI_LIB_DIR");
    let out = run_with_timeout(cmd, SUITE_TIMEOUT);
    let _ = std::fs::remove_dir_all(&folder);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains("Demo tests passed"),
        "Pkg.test of the generated Demo package failed on {}'s runtime ({}):\n--- stdout\n{}\n--- stderr\n{}",
        runtime.name,
        out.status,
        String::from_utf8_lossy(&out.stdout),
        stderr
    );
}

/// A runtime that cannot be loaded fails `using TVMFFI` with a message naming the variable, the
/// file and the loader's reason (docs/install.md, "Errors").
#[test]
fn julia_missing_runtime_names_what_was_tried() {
    let _serial = julia_lock();
    let missing = std::env::temp_dir().join("ffihub-no-runtime-here/libtvm_ffi.so");
    let mut cmd = Command::new(julia());
    cmd.current_dir(workspace_root())
        .arg("--startup-file=no")
        .arg(format!(
            "--project={}",
            workspace_root().join("bindings/julia/TVMFFI").display()
        ))
        .args(["-e", "using TVMFFI"])
        .env("TVM_FFI_LIB", &missing)
        .env_remove("TVM_FFI_LIB_DIR");
    let out = run_with_timeout(cmd, SUITE_TIMEOUT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "TVMFFI: cannot load the TVM-FFI runtime {0} given by TVM_FFI_LIB: {0}: cannot open shared object file",
        missing.display()
    );
    assert!(
        !out.status.success() && stderr.contains(&expected),
        "expected `{expected}` in:\n{stderr}"
    );
}

#[test]
fn julia_generated_demo_pkg_test_on_ffihub_runtime() {
    run_pkg_test(&ffihub_runtime_checked());
}

#[test]
fn julia_suite_on_ffihub_runtime() {
    run_suite(&ffihub_runtime_checked());
}

#[test]
fn julia_suite_on_apache_runtime() {
    run_suite(&apache_runtime());
}

#[test]
fn julia_threads_with_4_threads_on_ffihub_runtime() {
    run_threads(&ffihub_runtime_checked());
}

#[test]
fn julia_threads_with_4_threads_on_apache_runtime() {
    run_threads(&apache_runtime());
}

#[test]
fn julia_generated_packages_on_ffihub_runtime() {
    run_generated(&ffihub_runtime_checked());
}

#[test]
fn julia_generated_packages_on_apache_runtime() {
    run_generated(&apache_runtime());
}
