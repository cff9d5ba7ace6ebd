//! Runs the Node.js suites (`tests/node/*.test.mjs`, `node --test`) on ffihub's runtime and on
//! Apache's, against the generated packages of the demo extension and of the wheel's
//! `libtvm_ffi_testing.so`.
//!
//! Setup, done once per `cargo test` run: builds the addon (`-p ffihub-node`, release), the demo
//! extension and the `ffihub` binary (nested `cargo build`, same target folder), runs `npm ci`
//! in tests/node if its `node_modules` is missing (scripts/setup-node.sh does the same ahead of
//! time), and generates both packages into `target/ffihub-tests/node/packages` with
//! `ffihub generate --lang node`, and compiles `tests/c/reflect_probe.cc` against Apache's
//! headers (`FFIHUB_REFLECT_PROBE`: the C++ code define.test.mjs passes the types it defines
//! to) and `tests/threads_lib` (`FFIHUB_THREADS_LIB`: a library calling back from its own
//! threads, threads.test.mjs). Then each runtime gets one `node --test --expose-gc` run with
//! `TVM_FFI_LIB` pointing at it; the TAP summary is parsed and printed. The runs check the type
//! truth of the packages (type_truth.mjs): every value they return is checked against its
//! declared type, and the coverage is printed. `install.rs`: the packages published to a local
//! registry and installed by name outside the checkout.

mod install;

use ffihub_tests::{
    apache_root, apache_runtime, build_demo_and_generator, build_reflect_probe, build_threads_lib,
    cargo_build, ffihub_runtime, run_ok, target_dir, workspace_root, Runtime,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// What the suites need, built once.
struct Setup {
    addon: PathBuf,
    packages: PathBuf,
    demo_lib: PathBuf,
    /// `libreflect_probe.so` (define.test.mjs passes the types it defines to it).
    reflect_probe: PathBuf,
    /// `libtesting_threads.so` (threads.test.mjs: a library calling back from its own threads).
    threads_lib: PathBuf,
    /// `libffihub_dump.so` and the `ffihub` binary (define.test.mjs dumps its process and
    /// generates a package from the dump).
    dump_lib: PathBuf,
    ffihub_bin: PathBuf,
    /// The packages' declared types (`<name>.types.json`, type_truth.mjs).
    declared_types: PathBuf,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let root = workspace_root();
        let target = target_dir();
        let ours = ffihub_runtime();
        apache_root();

        cargo_build(&["--release", "-p", "ffihub-node"]);
        build_demo_and_generator();
        cargo_build(&["-p", "ffihub-dump"]);

        let tests = root.join("tests/node");
        if !tests.join("node_modules/typescript").is_dir() {
            // Needs the npm registry once (scripts/setup-node.sh does the same).
            let mut npm = Command::new("npm");
            npm.args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&tests);
            run_ok(npm);
        }

        let packages = target.join("ffihub-tests/node/packages");
        let demo_lib = target.join("debug/libffihub_demo.so");
        let generate = |lib: &Path, name: &str, dir: &str| {
            let mut cmd = Command::new(target.join("debug/ffihub"));
            cmd.args(["generate", "--lang", "node", "--runtime"])
                .arg(ours.lib_dir.join("libtvm_ffi.so"))
                .arg("--lib")
                .arg(lib)
                .args(["--name", name, "--out"])
                .arg(packages.join(dir));
            run_ok(cmd);
        };
        generate(&demo_lib, "demo", "demo");
        generate(
            &apache_root().join("lib/libtvm_ffi_testing.so"),
            "tvm-ffi-testing",
            "testing",
        );
        // Generated packages `require('@ffihub/tvm-ffi')`: resolve it to bindings/node.
        let link_dir = packages.join("node_modules/@ffihub");
        std::fs::create_dir_all(&link_dir).unwrap();
        let link = link_dir.join("tvm-ffi");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(root.join("bindings/node"), &link).unwrap();

        // The declared types of what the packages return, read once from their index.d.ts.
        let declared_types = target.join("ffihub-tests/node/declared-types");
        std::fs::create_dir_all(&declared_types).unwrap();
        for name in ["demo", "testing"] {
            let mut node = Command::new("node");
            node.arg(tests.join("type_truth.mjs"))
                .arg("declare")
                .arg(packages.join(name))
                .current_dir(&tests);
            let out = run_ok(node);
            std::fs::write(
                declared_types.join(format!("{name}.types.json")),
                out.stdout,
            )
            .unwrap();
        }

        Setup {
            addon: target.join("release/libffihub_node.so"),
            packages,
            demo_lib,
            reflect_probe: build_reflect_probe("node-reflect-probe"),
            threads_lib: build_threads_lib("node-threads-lib"),
            dump_lib: target.join("debug/libffihub_dump.so"),
            ffihub_bin: target.join("debug/ffihub"),
            declared_types,
        }
    })
}

/// Counts from the TAP summary of `node --test`.
#[derive(Debug, Default)]
struct Summary {
    tests: u64,
    pass: u64,
    fail: u64,
    cancelled: u64,
    skipped: u64,
}

fn summary(tap: &str) -> Summary {
    let mut s = Summary::default();
    for line in tap.lines() {
        let Some(rest) = line.strip_prefix("# ") else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let (Some(key), Some(value)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(n) = value.parse() else { continue };
        match key {
            "tests" => s.tests = n,
            "pass" => s.pass = n,
            "fail" => s.fail = n,
            "cancelled" => s.cancelled = n,
            "skipped" => s.skipped = n,
            _ => {}
        }
    }
    s
}

fn suites() -> Vec<PathBuf> {
    let dir = workspace_root().join("tests/node");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    files
}

/// One node process tree at a time: the machine is small and the GC stress test is heavy.
static SERIAL: Mutex<()> = Mutex::new(());

/// A fresh folder for the type-truth observations of one run, with the declared types in it.
fn type_truth_dir(setup: &Setup, runtime: &Runtime) -> PathBuf {
    let dir = target_dir().join(format!("ffihub-tests/node/type-truth/{}", runtime.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["demo", "testing"] {
        let file = format!("{name}.types.json");
        std::fs::copy(setup.declared_types.join(&file), dir.join(&file)).unwrap();
    }
    dir
}

fn run_suites(runtime: &Runtime) {
    let setup = setup();
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let truth = type_truth_dir(setup, runtime);
    let apache_lib = apache_runtime().lib_dir;
    let library_path =
        std::env::join_paths([setup.demo_lib.parent().unwrap(), &apache_lib]).unwrap();
    let mut cmd = Command::new("node");
    cmd.args(["--test", "--expose-gc", "--test-reporter=tap"])
        .args(suites())
        .current_dir(workspace_root().join("tests/node"))
        .env("TVM_FFI_LIB", &runtime.lib_dir)
        .env_remove("LD_LIBRARY_PATH")
        .env("FFIHUB_NODE_ADDON", &setup.addon)
        .env("FFIHUB_NODE_PACKAGES", &setup.packages)
        .env("FFIHUB_LIBRARY_PATH", library_path)
        .env("FFIHUB_DEMO_LIBRARY", &setup.demo_lib)
        .env("FFIHUB_REFLECT_PROBE", &setup.reflect_probe)
        .env("FFIHUB_THREADS_LIB", &setup.threads_lib)
        .env("FFIHUB_DUMP_LIBRARY", &setup.dump_lib)
        .env("FFIHUB_BIN", &setup.ffihub_bin)
        .env("FFIHUB_TYPE_TRUTH", &truth)
        .env("FFIHUB_RUNTIME", runtime.name);
    let out = cmd
        .output()
        .expect("run node (Node.js 20 or newer is required)");
    let tap = String::from_utf8_lossy(&out.stdout);
    let s = summary(&tap);
    println!(
        "node suites on {}'s runtime: {} tests, {} passed, {} failed, {} cancelled, {} skipped",
        runtime.name, s.tests, s.pass, s.fail, s.cancelled, s.skipped
    );
    let failures: Vec<&str> = tap
        .lines()
        .filter(|l| l.trim_start().starts_with("not ok"))
        .collect();
    assert!(
        out.status.success() && s.fail == 0 && s.cancelled == 0 && s.pass > 0,
        "node --test failed on {}'s runtime ({}): {s:?}\n{}\n--- TAP\n{tap}\n--- stderr\n{}",
        runtime.name,
        out.status,
        failures.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );

    // Type truth: every value the packages returned during the suites was of its declared type.
    let mut report = Command::new("node");
    report
        .arg(workspace_root().join("tests/node/type_truth.mjs"))
        .arg("report")
        .arg(&truth)
        .current_dir(workspace_root().join("tests/node"));
    let out = report.output().expect("run node");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("on {}'s runtime:\n{}", runtime.name, text.trim_end());
    assert!(
        out.status.success(),
        "values of other types than declared on {}'s runtime:\n{text}{}",
        runtime.name,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn node_suites_on_ffihub_runtime() {
    run_suites(&ffihub_runtime());
}

#[test]
fn node_suites_on_apache_runtime() {
    run_suites(&apache_runtime());
}
