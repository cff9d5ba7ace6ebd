//! Installing outside the checkout (docs/install.md): `npm pack` of the support package (its
//! `prepack` bundles the addon and ffihub's runtime) and of the demo's generated package (its
//! library bundled in `lib/`), `npm install` of both tarballs into a fresh folder under the
//! system's temporary folder, then
//! - a script using the demo package runs with no `FFIHUB_*`, `TVM_FFI_*` or `LD_LIBRARY_PATH`
//!   variables, on the bundled runtime and library;
//! - `TVM_FFI_LIB` swaps in Apache's runtime, a wrong one fails naming it, and without the
//!   bundled runtime the error names every place tried;
//! - `tsc` (the pinned TypeScript of tests/node) accepts a CommonJS and an ES module consumer under
//!   a default modern tsconfig (strict, es2022, no extra lib).

use super::{setup, SERIAL};
use ffihub_tests::{apache_runtime, run_ok, workspace_root};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh folder outside the checkout, removed when the test passes.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// `npm pack` in `dir`, the tarball into `dest`; returns its path.
fn npm_pack(dir: &Path, dest: &Path) -> PathBuf {
    let mut cmd = Command::new("npm");
    cmd.args(["pack", "--silent", "--pack-destination"])
        .arg(dest)
        .current_dir(dir);
    let out = run_ok(cmd);
    let name = String::from_utf8_lossy(&out.stdout);
    let tarball = dest.join(name.lines().last().unwrap_or_default().trim());
    assert!(
        tarball.is_file(),
        "npm pack did not write {}",
        tarball.display()
    );
    tarball
}

/// Copies the files of `from` into `to` (one level: a generated package is flat).
fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// `node <args>` in `dir` with an environment holding only PATH and HOME (and `extra`).
fn node_clean(dir: &Path, args: &[&str], extra: &[(&str, &Path)]) -> Command {
    let mut cmd = Command::new("node");
    cmd.args(args).current_dir(dir).env_clear();
    for var in ["PATH", "HOME"] {
        if let Some(value) = std::env::var_os(var) {
            cmd.env(var, value);
        }
    }
    for (var, value) in extra {
        cmd.env(var, value);
    }
    cmd
}

/// The trimmed stdout of `cmd`, which must succeed.
fn stdout_of(cmd: Command) -> String {
    String::from_utf8_lossy(&run_ok(cmd).stdout)
        .trim()
        .to_string()
}

#[test]
fn packed_packages_install_and_run_outside_the_checkout() {
    let setup = setup();
    let root = workspace_root();
    let fixtures = root.join("tests/node/fixtures/install");
    let tmp = TempDir::new("ffihub-node-install");

    // The pack briefly puts the addon into bindings/node: not while the suites run.
    let support = {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        npm_pack(&root.join("bindings/node"), &tmp.0)
    };
    assert!(
        !root.join("bindings/node/ffihub_node.node").exists(),
        "postpack left the bundled addon in bindings/node"
    );
    let demo_dir = tmp.0.join("demo");
    copy_files(&setup.packages.join("demo"), &demo_dir);
    std::fs::create_dir_all(demo_dir.join("lib")).unwrap();
    std::fs::copy(&setup.demo_lib, demo_dir.join("lib/libffihub_demo.so")).unwrap();
    let demo = npm_pack(&demo_dir, &tmp.0);

    let app = tmp.0.join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("package.json"),
        r#"{ "name": "app", "private": true }"#,
    )
    .unwrap();
    let mut npm = Command::new("npm");
    npm.args(["install", "--offline", "--no-audit", "--no-fund"])
        .arg(&support)
        .arg(&demo)
        .current_dir(&app);
    run_ok(npm);
    for file in ["main.js", "consumer.ts", "consumer.mts"] {
        std::fs::copy(fixtures.join(file), app.join(file)).unwrap();
    }

    assert_eq!(
        stdout_of(node_clean(&app, &["main.js"], &[])),
        r#"{"addOne":42,"concat":"ab","norm":5,"runtime":"ffihub","mapped":["node_modules/@ffihub/tvm-ffi/ffihub_node.node","node_modules/@ffihub/tvm-ffi/libtvm_ffi.so","node_modules/demo/lib/libffihub_demo.so"]}"#
    );

    let apache = apache_runtime().lib_dir.canonicalize().unwrap();
    let text = stdout_of(node_clean(&app, &["main.js"], &[("TVM_FFI_LIB", &apache)]));
    assert!(
        text.contains(r#""runtime":"other""#)
            && text.contains(&format!("\"{}\"", apache.join("libtvm_ffi.so").display()))
            && !text.contains("tvm-ffi/libtvm_ffi.so"),
        "TVM_FFI_LIB did not select Apache's runtime: {text}"
    );

    let missing = tmp.0.join("no-runtime-here");
    let out = node_clean(&app, &["main.js"], &[("TVM_FFI_LIB", &missing)])
        .output()
        .expect("run node");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && stderr.contains(&format!(
                "cannot load the TVM-FFI runtime {} given by TVM_FFI_LIB",
                missing.display()
            )),
        "a missing TVM_FFI_LIB should fail naming it:\n{stderr}"
    );

    // Without the bundled runtime (and nothing on the loader's path), the error lists each place.
    let support_dir = app.join("node_modules/@ffihub/tvm-ffi");
    std::fs::rename(
        support_dir.join("libtvm_ffi.so"),
        tmp.0.join("libtvm_ffi.so"),
    )
    .unwrap();
    let out = node_clean(&app, &["main.js"], &[])
        .output()
        .expect("run node");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "ffihub: cannot load the TVM-FFI runtime (libtvm_ffi.so) for {addon}: tried TVM_FFI_LIB (unset), \
         a runtime loaded in the process (none), {bundled} (no such file), the system loader (",
        addon = support_dir.join("ffihub_node.node").display(),
        bundled = support_dir.join("libtvm_ffi.so").display(),
    );
    assert!(
        !out.status.success()
            && stderr.contains(&expected)
            && stderr.contains("set TVM_FFI_LIB to a libtvm_ffi.so or its folder"),
        "expected `{expected}` in:\n{stderr}"
    );

    std::fs::write(
        app.join("tsconfig.json"),
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true } }"#,
    )
    .unwrap();
    let tsc = root.join("tests/node/node_modules/typescript/bin/tsc");
    let tsc = tsc.to_str().unwrap();
    run_ok(node_clean(
        &app,
        &[tsc, "-p", ".", "--pretty", "false"],
        &[],
    ));
}
