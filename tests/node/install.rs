//! Installing from an npm registry, as a user does (docs/install.md, "Node.js"). A local registry
//! (verdaccio, pinned in tests/node/registry) runs on a free port of 127.0.0.1 with its storage
//! in a temporary folder, started by the test and stopped when it ends. Published to it:
//! `@ffihub/tvm-ffi`, its prebuilt package for this platform (`npm/linux-x64-gnu`: its `prepack`
//! builds the addon and the runtime and strips their debug info) and the demo's generated package
//! with its own prebuilt package (`package.platforms` in the generator's `--config`, the library
//! stripped into `npm/<platform>/lib/`). Then, in a fresh folder whose `.npmrc` names the registry,
//! `npm install demo` with no variables but `PATH` and a fresh `HOME`, and:
//! - a script using the demo package runs on the prebuilt addon, runtime and library;
//! - `TVM_FFI_LIB` swaps in Apache's runtime, a wrong one fails naming it, and without the
//!   prebuilt runtime, addon or library the errors name every place tried;
//! - `tsc` (the pinned TypeScript of tests/node) accepts a CommonJS and an ES module consumer under
//!   a default modern tsconfig (strict, es2022, no extra lib).
//!
//! It prints the size of each package, packed (as stored by the registry) and installed.

use super::{setup, SERIAL};
use ffihub_tests::{
    apache_runtime, ffihub_runtime, run_ok, run_ok_within, target_dir, tree_size, workspace_root,
};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the registry may take to answer its first ping.
const REGISTRY_START: Duration = Duration::from_secs(60);
/// A bound for each npm command (a publish with a `prepack` that builds may take longest).
const NPM_STEP: Duration = Duration::from_secs(15 * 60);
/// This platform, as prebuilt packages name it (lib/platform.js).
const PLATFORM: &str = "linux-x64-gnu";

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

/// A verdaccio process serving `url` from `storage`; killed when dropped.
struct Registry {
    child: Child,
    url: String,
    storage: PathBuf,
}

impl Registry {
    fn start(dir: &Path) -> Registry {
        let registry = workspace_root().join("tests/node/registry");
        if !registry.join("node_modules/verdaccio").is_dir() {
            // Needs the npm registry once (scripts/setup-node.sh does the same).
            let mut npm = Command::new("npm");
            npm.args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&registry);
            run_ok_within(npm, NPM_STEP);
        }
        let storage = dir.join("storage");
        let config = dir.join("config.yaml");
        std::fs::write(
            &config,
            format!(
                "storage: {storage}\n\
                 auth:\n  htpasswd:\n    file: {htpasswd}\n    max_users: -1\n\
                 uplinks: {{}}\n\
                 packages:\n  '**':\n    access: $all\n    publish: $all\n\
                 log: {{ type: stdout, format: pretty, level: warn }}\n",
                storage = storage.display(),
                htpasswd = dir.join("htpasswd").display(),
            ),
        )
        .unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let log = std::fs::File::create(dir.join("verdaccio.log")).unwrap();
        let child = Command::new("node")
            .arg(registry.join("node_modules/verdaccio/bin/verdaccio"))
            .arg("--config")
            .arg(&config)
            .arg("--listen")
            .arg(format!("127.0.0.1:{port}"))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .expect("start verdaccio");
        let mut registry = Registry {
            child,
            url: format!("http://127.0.0.1:{port}/"),
            storage,
        };
        let start = Instant::now();
        while !ping(port) {
            let log = || std::fs::read_to_string(dir.join("verdaccio.log")).unwrap_or_default();
            if let Some(status) = registry.child.try_wait().unwrap() {
                panic!("verdaccio exited ({status}):\n{}", log());
            }
            assert!(
                start.elapsed() < REGISTRY_START,
                "verdaccio did not answer on port {port} within {REGISTRY_START:?}:\n{}",
                log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        registry
    }

    /// The size of the tarball the registry stores for `name` at `version`.
    fn tarball_size(&self, name: &str, version: &str) -> u64 {
        let base = name.rsplit('/').next().unwrap();
        let file = self
            .storage
            .join(name)
            .join(format!("{base}-{version}.tgz"));
        std::fs::metadata(&file)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            .len()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether the registry on `port` answers `GET /-/ping` with 200.
fn ping(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reply = String::new();
    stream
        .write_all(b"GET /-/ping HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .and_then(|()| stream.read_to_string(&mut reply))
        .is_ok()
        && reply.starts_with("HTTP/1.1 200")
}

/// `npm publish` of the package in `dir` with the publisher's npm configuration.
fn npm_publish(dir: &Path, userconfig: &Path) {
    let mut npm = Command::new("npm");
    npm.args(["publish", "--no-audit", "--no-fund", "--userconfig"])
        .arg(userconfig)
        .current_dir(dir);
    run_ok_within(npm, NPM_STEP);
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

/// `program <args>` in `dir` with an environment holding only PATH and `home` as HOME (and
/// `extra`).
fn clean(
    program: &str,
    dir: &Path,
    home: &Path,
    args: &[&str],
    extra: &[(&str, &Path)],
) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .env("HOME", home);
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
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

/// The stderr of `cmd`, which must fail.
fn failure_of(mut cmd: Command) -> String {
    let out = cmd.output().expect("run node");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "expected a failure, got:\n{stderr}");
    stderr
}

#[test]
fn published_packages_install_by_name_and_run_outside_the_checkout() {
    let setup = setup();
    let root = workspace_root();
    let fixtures = root.join("tests/node/fixtures/install");
    let tmp = TempDir::new("ffihub-node-install");
    let registry = Registry::start(&tmp.0);
    let publisher = tmp.0.join("publisher.npmrc");
    let host = registry.url.trim_start_matches("http:");
    std::fs::write(
        &publisher,
        format!(
            "registry={url}\n{host}:_authToken=rehearsal\ncache={cache}\n",
            url = registry.url,
            cache = tmp.0.join("publisher-cache").display()
        ),
    )
    .unwrap();

    // The prebuilt package's pack briefly writes the addon into the checkout: not while the
    // suites run.
    {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let prebuilt = root.join("bindings/node/npm").join(PLATFORM);
        npm_publish(&prebuilt, &publisher);
        assert!(
            !prebuilt.join("ffihub_node.node").exists() && !prebuilt.join("libtvm_ffi.so").exists(),
            "postpack left the bundled files in {}",
            prebuilt.display()
        );
    }
    npm_publish(&root.join("bindings/node"), &publisher);

    // The demo package with its library in a prebuilt package, stripped of debug info.
    let demo_dir = tmp.0.join("demo");
    let config = tmp.0.join("demo-config.yaml");
    std::fs::write(&config, format!("package:\n  platforms: [{PLATFORM}]\n")).unwrap();
    let mut generate = Command::new(target_dir().join("debug/ffihub"));
    generate
        .args(["generate", "--lang", "node", "--name", "demo", "--config"])
        .arg(&config)
        .arg("--lib")
        .arg(&setup.demo_lib)
        .arg("--out")
        .arg(&demo_dir)
        .arg("--runtime")
        .arg(ffihub_runtime().lib_dir.join("libtvm_ffi.so"));
    run_ok(generate);
    let demo_prebuilt = demo_dir.join("npm").join(PLATFORM);
    std::fs::create_dir_all(demo_prebuilt.join("lib")).unwrap();
    let mut strip = Command::new("objcopy");
    strip
        .arg("--strip-debug")
        .arg(&setup.demo_lib)
        .arg(demo_prebuilt.join("lib/libffihub_demo.so"));
    run_ok(strip);
    npm_publish(&demo_prebuilt, &publisher);
    npm_publish(&demo_dir, &publisher);

    // A user's project: its .npmrc names the registry, HOME is new, nothing else is set.
    let app = tmp.0.join("app");
    let home = tmp.0.join("home");
    std::fs::create_dir_all(&home).unwrap();
    copy_files(&fixtures, &app);
    std::fs::write(
        app.join("package.json"),
        r#"{ "name": "app", "private": true }"#,
    )
    .unwrap();
    std::fs::write(app.join(".npmrc"), format!("registry={}\n", registry.url)).unwrap();
    run_ok_within(
        clean(
            "npm",
            &app,
            &home,
            &["install", "--no-audit", "--no-fund", "demo"],
            &[],
        ),
        NPM_STEP,
    );

    let modules = app.join("node_modules");
    let prebuilt_name = format!("@ffihub/tvm-ffi-{PLATFORM}");
    let demo_prebuilt_name = format!("demo-{PLATFORM}");
    for name in [
        "@ffihub/tvm-ffi",
        &prebuilt_name,
        "demo",
        &demo_prebuilt_name,
    ] {
        eprintln!(
            "{name}: {} bytes packed, {} bytes installed",
            registry.tarball_size(name, "0.1.0"),
            tree_size(&modules.join(name))
        );
    }

    let node = |extra: &[(&str, &Path)]| clean("node", &app, &home, &["main.js"], extra);
    assert_eq!(
        stdout_of(node(&[])),
        format!(
            r#"{{"addOne":42,"concat":"ab","norm":5,"runtime":"ffihub","mapped":["node_modules/{prebuilt_name}/ffihub_node.node","node_modules/{prebuilt_name}/libtvm_ffi.so","node_modules/{demo_prebuilt_name}/lib/libffihub_demo.so"]}}"#
        )
    );

    let apache = apache_runtime().lib_dir.canonicalize().unwrap();
    let text = stdout_of(node(&[("TVM_FFI_LIB", &apache)]));
    assert!(
        text.contains(r#""runtime":"other""#)
            && text.contains(&format!("\"{}\"", apache.join("libtvm_ffi.so").display()))
            && !text.contains("tvm-ffi-linux-x64-gnu/libtvm_ffi.so"),
        "TVM_FFI_LIB did not select Apache's runtime: {text}"
    );

    let missing = tmp.0.join("no-runtime-here");
    let stderr = failure_of(node(&[("TVM_FFI_LIB", &missing)]));
    assert!(
        stderr.contains(&format!(
            "cannot load the TVM-FFI runtime {} given by TVM_FFI_LIB",
            missing.display()
        )),
        "a missing TVM_FFI_LIB should fail naming it:\n{stderr}"
    );

    // Without the prebuilt runtime (and nothing on the loader's path), the error lists each place.
    let prebuilt_dir = modules.join(&prebuilt_name);
    let aside = tmp.0.join("aside");
    std::fs::create_dir_all(&aside).unwrap();
    let move_aside = |from: &Path, name: &str| std::fs::rename(from, aside.join(name)).unwrap();
    let restore = |to: &Path, name: &str| std::fs::rename(aside.join(name), to).unwrap();
    move_aside(&prebuilt_dir.join("libtvm_ffi.so"), "libtvm_ffi.so");
    let stderr = failure_of(node(&[]));
    let expected = format!(
        "ffihub: cannot load the TVM-FFI runtime (libtvm_ffi.so) for {addon}: tried TVM_FFI_LIB (unset), \
         a runtime loaded in the process (none), {bundled} (no such file), the system loader (",
        addon = prebuilt_dir.join("ffihub_node.node").display(),
        bundled = prebuilt_dir.join("libtvm_ffi.so").display(),
    );
    assert!(
        stderr.contains(&expected)
            && stderr.contains("set TVM_FFI_LIB to a libtvm_ffi.so or its folder"),
        "expected `{expected}` in:\n{stderr}"
    );
    restore(&prebuilt_dir.join("libtvm_ffi.so"), "libtvm_ffi.so");

    // Without the demo's prebuilt library.
    let demo_prebuilt_dir = modules.join(&demo_prebuilt_name);
    move_aside(&demo_prebuilt_dir, &demo_prebuilt_name);
    let stderr = failure_of(node(&[]));
    let expected = format!(
        "ffihub: cannot load libffihub_demo.so (package demo): tried {lib} (no such file), \
         {demo_prebuilt_name} (not installed: were optional dependencies omitted?), FFIHUB_LIBRARY_PATH (unset), \
         the system loader (",
        lib = modules.join("demo/lib/libffihub_demo.so").display(),
    );
    assert!(
        stderr.contains(&expected)
            && stderr.contains(&format!("; install {demo_prebuilt_name}, put the library")),
        "expected `{expected}` in:\n{stderr}"
    );
    restore(&demo_prebuilt_dir, &demo_prebuilt_name);

    // Without the prebuilt addon.
    move_aside(&prebuilt_dir, "addon");
    let stderr = failure_of(node(&[]));
    let expected = format!(
        "ffihub: no Node addon of @ffihub/tvm-ffi for {PLATFORM}: tried FFIHUB_NODE_ADDON (unset), \
         {prebuilt_name} (not installed: were optional dependencies omitted?). Install @ffihub/tvm-ffi with its optional dependencies"
    );
    assert!(
        stderr.contains(&expected),
        "expected `{expected}` in:\n{stderr}"
    );
    restore(&prebuilt_dir, "addon");

    std::fs::write(
        app.join("tsconfig.json"),
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true } }"#,
    )
    .unwrap();
    let tsc = root.join("tests/node/node_modules/typescript/bin/tsc");
    run_ok(clean(
        "node",
        &app,
        &home,
        &[tsc.to_str().unwrap(), "-p", ".", "--pretty", "false"],
        &[],
    ));
}
