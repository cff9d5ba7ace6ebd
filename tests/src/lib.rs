//! Shared harness of the cross-language tests: where things are, compiling C, running programs
//! against one runtime or the other (with a time limit, or under valgrind: [`valgrind`]), and
//! checking and comparing their transcripts.
//!
//! The runtime crate's own integration tests (`runtime/tests`) use it too, as a dev-dependency.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime};

pub mod http;
pub mod valgrind;

/// The line a C test program (`tests/c/*.c`) prints last when all its checks passed; before it,
/// one `ok ...` line per passed check.
pub const PASSED_LINE: &str = "PASSED: 0 check(s) failed";

/// The workspace root (the folder holding the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The cargo target directory (honours `CARGO_TARGET_DIR`).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        None => workspace_root().join("target"),
    }
}

/// A scratch folder for one test's build products, emptied first.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = target_dir().join("ffihub-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// One TVM-FFI runtime implementation under test.
#[derive(Clone, Debug)]
pub struct Runtime {
    /// Short name used in messages: "ffihub" or "apache".
    pub name: &'static str,
    /// Folder holding `libtvm_ffi.so`.
    pub lib_dir: PathBuf,
    /// Folder holding `tvm/ffi/c_api.h` and `dlpack/dlpack.h`.
    pub include_dir: PathBuf,
}

/// Our runtime: the release build of `ffihub-runtime` and the checked-in headers.
pub fn ffihub_runtime() -> Runtime {
    let lib_dir = std::env::var_os("FFIHUB_LIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("release"));
    assert!(
        lib_dir.join("libtvm_ffi.so").exists(),
        "{} is missing: build it first with `cargo build --release -p ffihub-runtime` (scripts/test.sh does)",
        lib_dir.join("libtvm_ffi.so").display()
    );
    Runtime {
        name: "ffihub",
        lib_dir,
        include_dir: workspace_root().join("runtime/include"),
    }
}

/// [`ffihub_runtime`], with a warning on stderr when its `libtvm_ffi.so` looks stale (see
/// [`warn_if_stale`]).
pub fn ffihub_runtime_checked() -> Runtime {
    let runtime = ffihub_runtime();
    warn_if_stale(&runtime.lib_dir.join("libtvm_ffi.so"));
    runtime
}

/// Warns on stderr when a file under `runtime/src` is newer than `lib` (ffihub's
/// `libtvm_ffi.so`): the library under test was probably built before the last change. Not an
/// error, since sources may be touched without changing anything.
pub fn warn_if_stale(lib: &Path) {
    let built = std::fs::metadata(lib).and_then(|m| m.modified()).ok();
    let newest = newest_file(&workspace_root().join("runtime/src"));
    if let (Some(built), Some((when, path))) = (built, newest) {
        if when > built {
            eprintln!(
                "warning: {} is older than {}: rebuild it with `cargo build --release -p ffihub-runtime`",
                lib.display(),
                path.display()
            );
        }
    }
}

/// The most recently modified file below `dir`, with its modification time.
fn newest_file(dir: &Path) -> Option<(SystemTime, PathBuf)> {
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let candidate = if path.is_dir() {
            newest_file(&path)
        } else {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .map(|t| (t, path))
        };
        newest = match (newest, candidate) {
            (Some(n), Some(c)) => Some(if c.0 > n.0 { c } else { n }),
            (n, c) => n.or(c),
        };
    }
    newest
}

/// Root of the unpacked `apache-tvm-ffi` wheel (the `tvm_ffi` package folder).
pub fn apache_root() -> PathBuf {
    let root = std::env::var_os("APACHE_TVM_FFI_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".deps/apache-tvm-ffi/tvm_ffi"));
    assert!(
        root.join("lib/libtvm_ffi.so").exists(),
        "the Apache TVM-FFI wheel is not installed at {}: run scripts/setup-apache.sh",
        root.display()
    );
    root
}

/// Apache's runtime from the wheel.
pub fn apache_runtime() -> Runtime {
    let root = apache_root();
    Runtime {
        name: "apache",
        lib_dir: root.join("lib"),
        include_dir: root.join("include"),
    }
}

/// One Apache TVM-FFI release of `tests/pysuite/releases.txt`, as `scripts/setup-pysuite.sh`
/// unpacked its wheel (headers and libraries) under `.deps/pysuites/<version>/wheel`.
#[derive(Clone, Debug)]
pub struct Release {
    /// The version, e.g. `0.1.12`.
    pub version: String,
    /// The wheel's `tvm_ffi` package folder (`include/`, `lib/libtvm_ffi.so`...).
    pub root: PathBuf,
}

impl Release {
    /// The release's own runtime and headers.
    pub fn runtime(&self) -> Runtime {
        Runtime {
            name: "apache",
            lib_dir: self.root.join("lib"),
            include_dir: self.root.join("include"),
        }
    }

    /// The release's `libtvm_ffi_testing.so`.
    pub fn testing_lib(&self) -> PathBuf {
        self.root.join("lib/libtvm_ffi_testing.so")
    }
}

/// The releases of `tests/pysuite/releases.txt`, oldest first.
pub fn apache_releases() -> Vec<Release> {
    let list = workspace_root().join("tests/pysuite/releases.txt");
    let text = std::fs::read_to_string(&list).expect("read tests/pysuite/releases.txt");
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let version = line
                .split_whitespace()
                .next()
                .expect("a version")
                .to_string();
            let root = workspace_root().join(format!(".deps/pysuites/{version}/wheel/tvm_ffi"));
            assert!(
                root.join("lib/libtvm_ffi.so").exists(),
                "apache-tvm-ffi {version} is not unpacked at {}: run scripts/setup-pysuite.sh",
                root.display()
            );
            Release { version, root }
        })
        .collect()
}

/// The release `version` of [`apache_releases`].
pub fn apache_release(version: &str) -> Release {
    apache_releases()
        .into_iter()
        .find(|r| r.version == version)
        .unwrap_or_else(|| panic!("{version} is not in tests/pysuite/releases.txt"))
}

/// Apache's `libtvm_ffi_testing.so`.
pub fn apache_testing_lib() -> PathBuf {
    apache_root().join("lib/libtvm_ffi_testing.so")
}

/// `sources` (under the workspace root) built once per test process against `runtime`'s headers
/// and linked with its `libtvm_ffi.so`, without rpath, so the library path picks the runtime
/// the result runs on: `target/ffihub-tests/<dir>/<file>`. C sources go through gcc, others
/// through g++; `extra_args` follow the link options (`-shared -fPIC` for a library). Each
/// `dir` is built once however many tests ask, and different ones build in parallel.
pub fn built_once<P: AsRef<Path>>(
    runtime: &Runtime,
    dir: &str,
    file: &str,
    sources: &[P],
    extra_args: &[&str],
) -> PathBuf {
    static BUILT: Mutex<Vec<(String, std::sync::Arc<OnceLock<PathBuf>>)>> = Mutex::new(Vec::new());
    let slot = {
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        match built.iter().find(|(d, _)| d == dir) {
            Some((_, slot)) => slot.clone(),
            None => {
                let slot = std::sync::Arc::new(OnceLock::new());
                built.push((dir.to_string(), slot.clone()));
                slot
            }
        }
    };
    slot.get_or_init(|| {
        let output = scratch_dir(dir).join(file);
        let root = workspace_root();
        let sources: Vec<PathBuf> = sources.iter().map(|s| root.join(s)).collect();
        let lib_dir = format!("-L{}", runtime.lib_dir.display());
        let mut args = vec![lib_dir.as_str(), "-ltvm_ffi"];
        args.extend_from_slice(extra_args);
        let is_c = sources
            .iter()
            .all(|s| s.extension().is_some_and(|e| e == "c"));
        let (compiler, std) = if is_c {
            ("gcc", "-std=c11")
        } else {
            ("g++", "-std=c++17")
        };
        compile(
            compiler,
            std,
            &sources,
            &runtime.include_dir,
            &output,
            &args,
        );
        output
    })
    .clone()
}

/// Compiles C sources with gcc into `output`, failing the test with gcc's messages on error.
pub fn compile_c(sources: &[PathBuf], include_dir: &Path, output: &Path, extra_args: &[&str]) {
    compile("gcc", "-std=c11", sources, include_dir, output, extra_args);
}

/// Runs `compiler` with the `std` option, warnings as errors, debug information and `-O1`,
/// failing the test with its messages on error.
fn compile(
    compiler: &str,
    std: &str,
    sources: &[PathBuf],
    include_dir: &Path,
    output: &Path,
    extra_args: &[&str],
) {
    let mut cmd = Command::new(compiler);
    cmd.args([std, "-Wall", "-Wextra", "-Werror", "-g", "-O1"])
        .arg("-I")
        .arg(include_dir)
        .args(sources)
        .arg("-o")
        .arg(output)
        .args(extra_args);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("run {compiler}: {e:?}"));
    assert!(
        out.status.success(),
        "{compiler} failed for {}:\n{}",
        output.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `tests/c/reflect_probe.cc`, a C++ extension that reaches objects only through reflection
/// (what the Julia and Node suites pass the object types they define to), compiled against
/// Apache's headers into `libreflect_probe.so` in the scratch folder `scratch` (one per test
/// binary: they run in parallel). It links `-ltvm_ffi` without an rpath, so it binds to the
/// runtime the loading process chose.
pub fn build_reflect_probe(scratch: &str) -> PathBuf {
    let (sources, args) = (
        ["tests/c/reflect_probe.cc"],
        ["-shared", "-fPIC", "-Wno-unused-parameter"],
    );
    built_once(
        &apache_runtime(),
        scratch,
        "libreflect_probe.so",
        &sources,
        &args,
    )
}

/// `tests/threads_lib/threads_lib.cc`, a C++ library calling the functions it is given from
/// threads of its own (`testing_threads.call_from_thread`, `call_from_threads`, `call_later`),
/// compiled against Apache's headers into `libtesting_threads.so` in the scratch folder
/// `scratch` (one per test binary). Linked like [`build_reflect_probe`]: it binds to the runtime
/// of the loading process.
pub fn build_threads_lib(scratch: &str) -> PathBuf {
    let (sources, args) = (
        ["tests/threads_lib/threads_lib.cc"],
        ["-shared", "-fPIC", "-pthread"],
    );
    built_once(
        &apache_runtime(),
        scratch,
        "libtesting_threads.so",
        &sources,
        &args,
    )
}

/// A command that runs `program` with `runtime`'s `libtvm_ffi.so` on the library path.
pub fn command_on(runtime: &Runtime, program: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("LD_LIBRARY_PATH", &runtime.lib_dir);
    cmd
}

/// A command that runs `program` with the `libtvm_ffi.so` of `lib_dir` on the library path, under
/// `wrapper` (a tool and its options, e.g. `["valgrind", ...]`) unless that is empty.
pub fn command_in(lib_dir: &Path, program: &Path, wrapper: &[&str]) -> Command {
    let mut cmd = match wrapper.split_first() {
        Some((tool, options)) => {
            let mut cmd = Command::new(tool);
            cmd.args(options).arg(program);
            cmd
        }
        None => Command::new(program),
    };
    cmd.env("LD_LIBRARY_PATH", lib_dir);
    cmd
}

/// Runs a command to completion with stdin closed and both output streams captured, killing it
/// and failing the test after `timeout`.
pub fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Output {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
    }
}

/// The lines of a C test program's transcript other than its `ok ...` lines: the failed checks
/// and the summary.
pub fn failed_checks(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| !l.starts_with("ok "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Fails the test with the failed checks and stderr unless the run of a C test program (named
/// `what` in the message) exited successfully and printed [`PASSED_LINE`]; returns its
/// transcript (stdout).
pub fn assert_checks_passed(what: &str, out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || !stdout.lines().any(|l| l == PASSED_LINE) {
        panic!(
            "{what} failed (status {}):\n{}\n--- stderr\n{}",
            out.status,
            failed_checks(&stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stdout
}

/// Fails the test unless two runs printed the same transcript (stdout), with a
/// [`transcript_diff`] of them (`-` only on `a`'s runtime, `+` only on `b`'s) and both exit
/// statuses; `what` names the transcripts ("the scenario transcripts"). It does not check that
/// the runs passed.
pub fn assert_same_transcripts(what: &str, a: (&Runtime, &Output), b: (&Runtime, &Output)) {
    let (a_text, b_text) = (
        String::from_utf8_lossy(&a.1.stdout),
        String::from_utf8_lossy(&b.1.stdout),
    );
    if a_text != b_text {
        panic!(
            "{what} differ between {a_name}'s runtime and {b_name}'s ({a_name}: {}, {b_name}: {}):\n{}",
            a.1.status,
            b.1.status,
            transcript_diff(a.0.name, &a_text, b.0.name, &b_text, usize::MAX),
            a_name = a.0.name,
            b_name = b.0.name,
        );
    }
}

/// Builds the demo extension (`debug/libffihub_demo.so`) and the generator (`debug/ffihub`) in
/// the target folder, with a nested `cargo build` (a no-op after `cargo build --workspace`).
pub fn build_demo_and_generator() {
    cargo_build(&[
        "-p",
        "ffihub-demo",
        "-p",
        "ffihub-bindgen",
        // `--bin` alone would leave the demo's library out of the build.
        "--lib",
        "--bin",
        "ffihub",
    ]);
}

/// `cargo build --locked ARGS` in the workspace (the nested builds of the drivers share the
/// target folder, so they are quick once the workspace is built).
/// Builds `target/release/libtvmffi_julia.so`, the native entry points of the Julia package TVMFFI
/// (`bindings/julia/shim`), which TVMFFI finds in the checkout's release folder; once per test
/// process.
pub fn build_julia_shim() {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| cargo_build(&["--release", "-p", "ffihub-julia-shim"]));
}

pub fn cargo_build(args: &[&str]) {
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build
        .args(["build", "--locked"])
        .args(args)
        .current_dir(workspace_root());
    run_ok(build);
}

/// The bytes of the files under `dir` (an installed package's size).
pub fn tree_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| match e.metadata() {
            Ok(meta) if meta.is_dir() => tree_size(&e.path()),
            Ok(meta) => meta.len(),
            Err(e) => panic!("{}: {e}", dir.display()),
        })
        .sum()
}

/// Held while a test runs Julia: the tests of one binary run in parallel, and Julia processes
/// precompiling the same packages into the same depot race on its cache files.
pub fn julia_lock() -> MutexGuard<'static, ()> {
    static JULIA: Mutex<()> = Mutex::new(());
    JULIA.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs a command and returns its output, failing the test with both streams if it failed.
pub fn run_ok(mut cmd: Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert_succeeded(&format!("{cmd:?}"), out)
}

/// [`run_ok`] that also fails the test if the command runs longer than `timeout`.
pub fn run_ok_within(cmd: Command, timeout: Duration) -> Output {
    let shown = format!("{cmd:?}");
    assert_succeeded(&shown, run_with_timeout(cmd, timeout))
}

fn assert_succeeded(shown: &str, out: Output) -> Output {
    assert!(
        out.status.success(),
        "{shown} failed with {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs the end-to-end script `tests/<area>/run.sh` with its output folder
/// `target/tests/<area>`, failing the test with its output if it fails or runs longer than
/// `timeout`. Returns its standard output.
pub fn run_area_script(area: &str, timeout: Duration) -> String {
    let root = workspace_root();
    let mut cmd = Command::new(root.join("tests").join(area).join("run.sh"));
    cmd.arg(target_dir().join("tests").join(area));
    let out = run_ok_within(cmd, timeout);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    print!("{stdout}");
    stdout
}

/// A C++ compiler, standard library and language standard the C++ support library and the
/// generated headers are tested with (one entry of [`CXX_MATRIX`]).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CxxConfig {
    /// The name in test names and messages (`clang_libcxx_cxx20`).
    pub name: &'static str,
    /// The compiler command.
    pub compiler: &'static str,
    /// The language standard and standard library options, for compiling and linking.
    pub flags: &'static [&'static str],
}

impl CxxConfig {
    /// `compiler` with `flags` and the warnings every C++ check uses (`-Wall -Wextra -Werror
    /// -pedantic`).
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(self.compiler);
        cmd.args(self.flags)
            .args(["-Wall", "-Wextra", "-Werror", "-pedantic"]);
        cmd
    }

    /// `-fsyntax-only` of `source` against the support headers and our C header, searching
    /// `include_dirs` first; the error is the compiler's messages.
    pub fn syntax_check(&self, source: &Path, include_dirs: &[PathBuf]) -> Result<(), String> {
        let mut cmd = self.command();
        cmd.arg("-fsyntax-only");
        let root = workspace_root();
        let own = [
            root.join("bindings/cpp/include"),
            root.join("runtime/include"),
        ];
        for dir in include_dirs.iter().chain(&own) {
            cmd.arg("-I").arg(dir);
        }
        let out = cmd
            .arg(source)
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e:?}", self.compiler));
        if out.status.success() {
            return Ok(());
        }
        Err(format!(
            "{} does not compile with {} ({} {}):\n{}",
            source.display(),
            self.name,
            self.compiler,
            self.flags.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Every compiler, standard library and standard the C++ side is tested with: g++ 12 (C++17,
/// what [`compile_cxx`] uses) and clang 16 (Debian's `clang-16`) with libstdc++ and libc++
/// (`libc++-16-dev`), C++17 and C++20. (g++ in C++20 would add a build of the suite that
/// clang's libstdc++ C++20 build mostly covers.) The C++ suite (`tests/cpp`), the generated headers
/// of TVM (`tests/tvm`) and xgrammar (`tests/xgrammar`) and the CMake package (`tests/install`)
/// are checked in each.
pub const CXX_MATRIX: &[CxxConfig] = &[
    CxxConfig {
        name: "gcc_cxx17",
        compiler: "g++",
        flags: &["-std=c++17"],
    },
    CxxConfig {
        name: "gcc_cxx20",
        compiler: "g++",
        flags: &["-std=c++20"],
    },
    CxxConfig {
        name: "clang_libstdcxx_cxx17",
        compiler: CLANGXX,
        flags: &["-std=c++17"],
    },
    CxxConfig {
        name: "clang_libstdcxx_cxx20",
        compiler: CLANGXX,
        flags: &["-std=c++20"],
    },
    CxxConfig {
        name: "clang_libcxx_cxx17",
        compiler: CLANGXX,
        flags: &["-std=c++17", "-stdlib=libc++"],
    },
    CxxConfig {
        name: "clang_libcxx_cxx20",
        compiler: CLANGXX,
        flags: &["-std=c++20", "-stdlib=libc++"],
    },
];

/// clang's C++ compiler, as Debian's `clang-16` installs it (scripts/setup-system.sh).
pub const CLANGXX: &str = "clang++-16";

/// [`CxxConfig::syntax_check`] of every source in every configuration of `configs`, as many
/// at a time as there are cores; the failures' messages.
pub fn syntax_check_all(
    configs: &[&CxxConfig],
    sources: &[PathBuf],
    include_dirs: &[PathBuf],
) -> Vec<String> {
    let jobs: Vec<(&CxxConfig, &PathBuf)> = configs
        .iter()
        .flat_map(|c| sources.iter().map(move |s| (*c, s)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(jobs.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((config, source)) = jobs.get(i) else {
                    break;
                };
                if let Err(e) = config.syntax_check(source, include_dirs) {
                    failures.lock().unwrap_or_else(|e| e.into_inner()).push(e);
                }
            });
        }
    });
    failures.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The entry of [`CXX_MATRIX`] called `name`.
pub fn cxx_config(name: &str) -> &'static CxxConfig {
    CXX_MATRIX
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("{name} is not in CXX_MATRIX"))
}

/// Compiles C++17 sources with g++ into `output` (warnings are errors), failing the test with
/// g++'s messages on error.
pub fn compile_cxx(sources: &[PathBuf], include_dir: &Path, output: &Path, extra_args: &[&str]) {
    compile(
        "g++",
        "-std=c++17",
        sources,
        include_dir,
        output,
        extra_args,
    );
}

/// The edit script of `a` into `b` by longest common subsequence: `(tag, index in a, index in b,
/// line)` with tag `' '` (in both), `'-'` (only in `a`) or `'+'` (only in `b`).
fn diff_ops<'t>(a: &[&'t str], b: &[&'t str]) -> Vec<(char, usize, usize, &'t str)> {
    // Longest common subsequence table, from the end.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // (tag, old line index, new line index, text)
    let mut ops: Vec<(char, usize, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', i, j, a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i, j, a[i]));
            i += 1;
        } else {
            ops.push(('+', i, j, b[j]));
            j += 1;
        }
    }
    ops
}

/// A line diff of `old` against `new` in unified style (`-` only in old, `+` only in new, three
/// lines of context, `@@ old-line,new-line @@` hunk headers); empty when they are equal. At most
/// `max_lines` lines are shown.
pub fn line_diff(old: &str, new: &str, max_lines: usize) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = diff_ops(&a, &b);
    let near_change = |k: usize| {
        ops[k.saturating_sub(3)..(k + 4).min(ops.len())]
            .iter()
            .any(|op| op.0 != ' ')
    };
    let mut out = Vec::new();
    let mut previous_shown = false;
    for (k, &(tag, i, j, text)) in ops.iter().enumerate() {
        if !near_change(k) {
            previous_shown = false;
            continue;
        }
        if !previous_shown {
            out.push(format!("@@ {},{} @@", i + 1, j + 1));
        }
        previous_shown = true;
        out.push(format!("{tag} {text}"));
    }
    if out.len() > max_lines {
        let more = out.len() - max_lines;
        out.truncate(max_lines);
        out.push(format!("... ({more} more diff lines)"));
    }
    out.join("\n")
}

/// A readable diff of two transcripts, `a` (named `a_name`) against `b` (named `b_name`): a
/// `--- a_name` / `+++ b_name` header, then each line only in `a` as `-<line number in a>: text`
/// and each line only in `b` as `+<line number in b>: text` (longest common subsequence). Just
/// the header when they are equal; at most `max_lines` differing lines are shown.
pub fn transcript_diff(a_name: &str, a: &str, b_name: &str, b: &str, max_lines: usize) -> String {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    let changes: Vec<String> = diff_ops(&a, &b)
        .into_iter()
        .filter_map(|(tag, i, j, text)| match tag {
            '-' => Some(format!("-{:>4}: {text}\n", i + 1)),
            '+' => Some(format!("+{:>4}: {text}\n", j + 1)),
            _ => None,
        })
        .collect();
    let mut out = format!("--- {a_name}\n+++ {b_name}\n");
    for line in changes.iter().take(max_lines) {
        out.push_str(line);
    }
    if changes.len() > max_lines {
        out.push_str(&format!(
            "... ({} more differing lines)\n",
            changes.len() - max_lines
        ));
    }
    out
}
