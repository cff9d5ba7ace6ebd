//! The C++ bindings' tests: `cargo test -p ffihub-tests --test cpp`.
//!
//! Generates the C++ headers of the demo extension (`target/debug/libffihub_demo.so`) and of
//! the wheel's `libtvm_ffi_testing.so` with the `ffihub` binary, compiles every program
//! `tests/cpp/test_<feature>.cpp` against them and the support headers (`bindings/cpp/include`,
//! our C header only), and runs each one
//!
//! - built with every compiler, standard library and standard of `CXX_MATRIX`
//!   (`tests/src/lib.rs`), `-Wall -Wextra -Werror -pedantic`, and with clang's AddressSanitizer
//!   (and its LeakSanitizer) and UndefinedBehaviorSanitizer,
//! - on ffihub's runtime and on Apache's (the same binary; the library path picks the runtime).
//!
//! It also compiles every header on its own in each configuration, checks that the headers
//! generated on either runtime are identical, and runs the C++ example of `docs/cpp.md`.
//!
//! The `ffihub` binary and the demo extension are built by cargo: `cargo test --workspace`
//! builds every binary and library of the workspace before running tests. Running this test on
//! its own needs them built first (`cargo build -p ffihub-bindgen -p ffihub-demo`); the test
//! fails with that command when they are missing or older than their sources. `FFIHUB_BIN`
//! overrides the `ffihub` binary (no age check).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use ffihub_tests::{
    apache_runtime, apache_testing_lib, command_on, compile_c, compile_cxx, cxx_config,
    ffihub_runtime, run_ok_within, run_with_timeout, scratch_dir, target_dir, workspace_root,
    CxxConfig, Runtime, CXX_MATRIX,
};

/// How long one test program may run (ASan and a loaded machine included).
const RUN_TIMEOUT: Duration = Duration::from_secs(600);

/// The last line of a passing test program starts with this.
const PASSED: &str = "PASSED: ";

/// The generated headers and the libraries they bind.
struct Setup {
    /// Folder of this test's build products.
    dir: PathBuf,
    /// Include folders of the generated headers (demo.hpp, tvm_ffi_testing.hpp, demo_stale.hpp).
    includes: Vec<PathBuf>,
    demo_lib: PathBuf,
    testing_lib: PathBuf,
    /// examples/add_one_c compiled as a kernel library (test_modules.cpp).
    add_one_c: PathBuf,
}

/// The newest modification time of the files below `dir`, skipping the generator's other
/// language backends (`lang/julia`, `lang/node`), which the C++ output does not depend on.
fn newest_mtime(dir: &Path) -> SystemTime {
    let mut newest = SystemTime::UNIX_EPOCH;
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let other_backend = path.ends_with("lang/julia") || path.ends_with("lang/node");
            let docs = path.extension().is_some_and(|e| e == "md");
            let t = if other_backend || docs {
                SystemTime::UNIX_EPOCH
            } else if path.is_dir() {
                newest_mtime(&path)
            } else {
                entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH)
            };
            newest = newest.max(t);
        }
    }
    newest
}

/// A cargo-built artifact of the debug profile, checked to be newer than its sources.
fn built_artifact(file: &str, sources: &[&str], build: &str) -> PathBuf {
    let path = target_dir().join("debug").join(file);
    let built = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| {
            panic!(
                "{} is missing: build it with `{build}` (`cargo test --workspace` does)",
                path.display()
            )
        });
    for src in sources {
        let newest = newest_mtime(&workspace_root().join(src));
        assert!(
            newest <= built,
            "{} is older than {src}: rebuild it with `{build}` (`cargo test --workspace` does)",
            path.display()
        );
    }
    path
}

fn ffihub_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("FFIHUB_BIN") {
        return PathBuf::from(bin);
    }
    built_artifact(
        "ffihub",
        &["bindgen/src", "templates/cpp", "schema/src"],
        "cargo build -p ffihub-bindgen",
    )
}

fn run_ok(cmd: Command) -> Output {
    run_ok_within(cmd, RUN_TIMEOUT)
}

/// `ffihub generate --lang cpp` for one library (loaded into `runtime`) into `out`.
fn generate(ffihub: &Path, runtime: &Runtime, lib: &Path, name: &str, out: &Path) {
    let mut cmd = Command::new(ffihub);
    cmd.args(["generate", "--lang", "cpp", "--name", name])
        .arg("--lib")
        .arg(lib)
        .arg("--runtime")
        .arg(runtime.lib_dir.join("libtvm_ffi.so"))
        .arg("--out")
        .arg(out)
        .env_remove("TVM_FFI_LIB_DIR");
    run_ok(cmd);
}

/// A dump of the demo edited the way a library evolves after its header was generated: a
/// function changes its signature, a field its type, and a function the header knows is gone.
fn stale_demo_metadata(dump: &str) -> String {
    let edits = [
        (
            "- name: demo.add_one\n  doc: Returns `x + 1`.\n  signature:\n    params:\n    - type: int\n",
            "- name: demo.add_one\n  doc: Returns `x + 1`.\n  signature:\n    params:\n    - type: float\n",
        ),
        (
            "- name: demo.add_one_inplace\n",
            "- name: demo.gone\n  signature:\n    params: []\n    return:\n      type: int\n- name: demo.add_one_inplace\n",
        ),
        (
            "  - name: step\n    type:\n      type: int\n",
            "  - name: step\n    type:\n      type: float\n",
        ),
    ];
    let mut text: String = dump
        .lines()
        .filter(|l| !l.starts_with("checksum:"))
        .map(|l| format!("{l}\n"))
        .collect();
    for (from, to) in edits {
        assert!(
            text.contains(from),
            "the demo's dump changed: cannot find {from:?} to make demo_stale.hpp; update \
             stale_demo_metadata in tests/cpp/driver.rs"
        );
        text = text.replacen(from, to, 1);
    }
    text
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let dir = scratch_dir("cpp");
        let ffihub = ffihub_binary();
        let demo_lib = built_artifact(
            "libffihub_demo.so",
            &["examples/demo/src", "bindings/rust/ffihub/src"],
            "cargo build -p ffihub-demo",
        );
        let testing_lib = apache_testing_lib();
        let ours = ffihub_runtime();
        let gen = dir.join("generated");
        generate(&ffihub, &ours, &demo_lib, "demo", &gen.join("demo"));
        generate(
            &ffihub,
            &ours,
            &testing_lib,
            "tvm_ffi_testing",
            &gen.join("testing"),
        );
        // demo_stale.hpp: generated from an edited dump of the demo (test_metadata.cpp).
        let dump = gen.join("demo.yaml");
        let mut cmd = Command::new(&ffihub);
        cmd.arg("dump")
            .arg("--lib")
            .arg(&demo_lib)
            .arg("--runtime")
            .arg(ours.lib_dir.join("libtvm_ffi.so"))
            .arg("-o")
            .arg(&dump);
        run_ok(cmd);
        let stale = gen.join("demo_stale.yaml");
        std::fs::write(
            &stale,
            stale_demo_metadata(&std::fs::read_to_string(&dump).unwrap()),
        )
        .unwrap();
        let mut cmd = Command::new(&ffihub);
        cmd.args(["generate", "--lang", "cpp", "--name", "demo_stale"])
            .arg("--metadata")
            .arg(&stale)
            .arg("--out")
            .arg(gen.join("stale"));
        run_ok(cmd);
        let add_one_c = dir.join("add_one_c.so");
        let root = workspace_root();
        compile_c(
            &[root.join("examples/add_one_c/add_one_c.c")],
            &root.join("runtime/include"),
            &add_one_c,
            // The seeds' verbatim code has an unused variable and parameters.
            &[
                "-shared",
                "-fPIC",
                "-Wno-unused-variable",
                "-Wno-unused-parameter",
            ],
        );
        Setup {
            includes: ["demo", "testing", "stale"]
                .iter()
                .map(|d| gen.join(d))
                .collect(),
            dir,
            demo_lib,
            testing_lib,
            add_one_c,
        }
    })
}

/// How a test program is built.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Build {
    /// With one compiler, standard library and standard of the matrix.
    With(&'static CxxConfig),
    /// With clang's AddressSanitizer (and its LeakSanitizer) and UndefinedBehaviorSanitizer.
    Sanitized,
}

impl Build {
    fn name(self) -> &'static str {
        match self {
            Build::With(config) => config.name,
            Build::Sanitized => "sanitized",
        }
    }

    /// The compiler with its standard, warnings and code generation options.
    fn command(self) -> Command {
        match self {
            // The first configuration builds as the other suites do (-O1, debug information);
            // the others only need to compile and behave the same, so they skip optimization
            // and debug information, which take most of the compile time.
            Build::With(config) if std::ptr::eq(config, &CXX_MATRIX[0]) => {
                let mut cmd = config.command();
                cmd.args(["-g", "-O1"]);
                cmd
            }
            Build::With(config) => {
                let mut cmd = config.command();
                cmd.arg("-O0");
                cmd
            }
            // -O0 halves the compile time of these template-heavy programs, and the sanitizers
            // check every access at any level. Every finding is fatal. clang links the
            // sanitizer runtime into the program, the one instrumented part: the runtime and
            // the extensions it loads are not, and need no LD_PRELOAD (docs/cpp.md).
            Build::Sanitized => {
                let mut cmd = cxx_config("clang_libstdcxx_cxx17").command();
                cmd.args([
                    "-g",
                    "-O0",
                    "-fsanitize=address,undefined",
                    "-fno-sanitize-recover=all",
                    "-fno-omit-frame-pointer",
                ]);
                cmd
            }
        }
    }
}

/// Compiles a C++ program once per build (concurrent tests wait for it).
fn binary(source: &Path, stem: &str, build: Build) -> PathBuf {
    type Slot = Arc<OnceLock<PathBuf>>;
    static BUILDS: OnceLock<Mutex<HashMap<(String, Build), Slot>>> = OnceLock::new();
    let slot = BUILDS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry((stem.to_string(), build))
        .or_default()
        .clone();
    slot.get_or_init(|| {
        let s = setup();
        let out_dir = s.dir.join(build.name());
        std::fs::create_dir_all(&out_dir).unwrap();
        let output = out_dir.join(stem);
        let mut cmd = build.command();
        for dir in [
            workspace_root().join("bindings/cpp/include"),
            workspace_root().join("tests/cpp"),
            workspace_root().join("runtime/include"),
        ]
        .iter()
        .chain(&s.includes)
        {
            cmd.arg("-I").arg(dir);
        }
        cmd.arg(source)
            .arg("-o")
            .arg(&output)
            .arg(format!("-L{}", ffihub_runtime().lib_dir.display()))
            .args(["-ltvm_ffi", "-ldl", "-lpthread"]);
        let started = Instant::now();
        let out = cmd.output().expect("run the C++ compiler");
        assert!(
            out.status.success(),
            "{stem} does not compile ({}):\n{}",
            build.name(),
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!(
            "compiled {stem} ({}) in {} ms",
            build.name(),
            started.elapsed().as_millis()
        );
        output
    })
    .clone()
}

fn program_command(program: &Path, runtime: &Runtime, build: Build) -> Command {
    let s = setup();
    let mut cmd = command_on(runtime, program);
    cmd.env("FFIHUB_DEMO_LIB", &s.demo_lib)
        .env("FFIHUB_TESTING_LIB", &s.testing_lib)
        .env("FFIHUB_ADD_ONE_C_LIB", &s.add_one_c)
        .env_remove("TVM_FFI_REPR_WITH_ADDR");
    if build == Build::Sanitized {
        // Leaks are reported (what is still reachable at exit, such as the runtime's
        // registries, is not a leak); the first finding of either sanitizer ends the program.
        cmd.env(
            "ASAN_OPTIONS",
            "detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1",
        )
        .env("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1");
    }
    cmd
}

/// Builds and runs `tests/cpp/<name>.cpp` on `runtime`; it must print "PASSED" and, under the
/// sanitizers, report nothing.
fn run_test(name: &str, runtime: &Runtime, build: Build) {
    let source = workspace_root().join(format!("tests/cpp/{name}.cpp"));
    let program = binary(&source, name, build);
    let out = run_with_timeout(program_command(&program, runtime, build), RUN_TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let passed = stdout.lines().last().is_some_and(|l| l.starts_with(PASSED));
    let sanitizer = stderr.contains("Sanitizer") || stderr.contains("runtime error:");
    if !out.status.success() || !passed || sanitizer {
        let failed: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("ok ")).collect();
        panic!(
            "{name} ({}) failed on the {} runtime ({}), status {}:\n{}\n--- stderr\n{stderr}",
            build.name(),
            runtime.name,
            runtime.lib_dir.display(),
            out.status,
            failed.join("\n")
        );
    }
}

/// One #[test] per program, runtime and build: a module per configuration of `CXX_MATRIX`
/// (listed again here as names: `every_configuration_is_tested` keeps the lists equal) and
/// one for the sanitizers.
macro_rules! cpp_tests {
    (configs: [$($config:ident),* $(,)?], tests: $tests:tt $(,)?) => {
        /// Every configuration with a module of tests.
        const CONFIGS: &[&str] = &[$(stringify!($config)),*];
        cpp_tests!(@names $tests);
        cpp_tests!(@build sanitized, crate::Build::Sanitized, $tests);
        $(cpp_tests!(
            @build $config,
            crate::Build::With(crate::cxx_config(stringify!($config))),
            $tests,
            // Per configuration, so that a test filter selects one configuration's whole
            // share of the matrix (`scripts/test.sh --fast` runs the first only).
            #[test]
            fn every_header_compiles_on_its_own() {
                crate::every_header_compiles_on_its_own(crate::cxx_config(stringify!($config)))
            }
        );)*
    };
    (@names [$($name:ident),* $(,)?]) => {
        /// Every test program.
        const TESTS: &[&str] = &[$(stringify!($name)),*];
    };
    (@build $module:ident, $build:expr, [$($name:ident),* $(,)?] $(, $extra:item)*) => {
        mod $module {
            $($extra)*
            mod on_ffihub {
                $(#[test] fn $name() { crate::run_test(stringify!($name), &crate::ffihub_runtime(), $build) })*
            }
            mod on_apache {
                $(#[test] fn $name() { crate::run_test(stringify!($name), &crate::apache_runtime(), $build) })*
            }
        }
    };
}

cpp_tests!(
    configs: [
        gcc_cxx17,
        gcc_cxx20,
        clang_libstdcxx_cxx17,
        clang_libstdcxx_cxx20,
        clang_libcxx_cxx17,
        clang_libcxx_cxx20,
    ],
    tests: [
    test_any,
    test_bad_input,
    test_callbacks,
    test_containers,
    test_errors,
    test_metadata,
    test_modules,
    test_objects,
    test_packed,
    test_scalars,
    test_strings,
    test_stress,
    test_tensors,
    test_testing_functions,
    test_testing_objects,
    test_threads,
    ],
);

#[test]
fn every_configuration_is_tested() {
    let matrix: Vec<&str> = CXX_MATRIX.iter().map(|c| c.name).collect();
    assert_eq!(matrix, CONFIGS, "list every CXX_MATRIX entry in cpp_tests!");
}

#[test]
fn every_test_program_is_listed() {
    let on_disk: BTreeSet<String> = std::fs::read_dir(workspace_root().join("tests/cpp"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name.starts_with("test_") && name.ends_with(".cpp"))
                .then(|| name.trim_end_matches(".cpp").to_string())
        })
        .collect();
    let listed: BTreeSet<String> = TESTS.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        on_disk, listed,
        "list every tests/cpp/test_*.cpp in cpp_tests!"
    );
}

/// A file that includes only `header`, in `scratch`.
fn including_only(header: &Path, scratch: &Path) -> PathBuf {
    // The folder's name too: containers/map.hpp and a generated map.hpp are different files.
    let folder = header
        .parent()
        .and_then(Path::file_name)
        .unwrap_or_default();
    let main = scratch.join(format!(
        "{}.{}.check.cpp",
        folder.to_string_lossy(),
        header.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&main, format!("#include \"{}\"\n", header.display())).unwrap();
    main
}

fn every_header_compiles_on_its_own(config: &CxxConfig) {
    let s = setup();
    let support = workspace_root().join("bindings/cpp/include");
    let scratch = s.dir.join("headers");
    std::fs::create_dir_all(&scratch).unwrap();
    // The support library's headers and its per-container ones (ffihub/containers/).
    let mut headers: Vec<PathBuf> = ["ffihub", "ffihub/containers"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(support.join(dir)).unwrap().flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "hpp"))
        .collect();
    headers.sort();
    for inc in &s.includes {
        for e in std::fs::read_dir(inc).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "hpp") {
                headers.push(e.path());
            }
        }
    }
    assert!(headers.len() > 10, "{headers:?}");
    // Each standard library includes other headers from its own, so a missing include shows
    // in some configurations only.
    let mains: Vec<PathBuf> = headers
        .iter()
        .map(|h| including_only(h, &scratch))
        .collect();
    let failures = ffihub_tests::syntax_check_all(&[config], &mains, &[]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Calls with wrong arguments do not compile, and g++ says it in the caller's words: the
/// function as spelled, the type expected and the one given, and (quoting the generated
/// declaration) the parameter's name (docs/errors.md).
#[test]
fn wrong_arguments_are_compile_errors_naming_the_parameter() {
    let s = setup();
    let scratch = s.dir.join("wrong-arguments");
    std::fs::create_dir_all(&scratch).unwrap();
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "wrong_type",
            "demo::add_one(\"x\")",
            &["demo::add_one", "const char*", "int64_t", "int64_t x"],
        ),
        (
            "missing",
            "demo::add_one()",
            &["too few arguments", "demo::add_one", "int64_t x"],
        ),
        (
            "extra",
            "demo::add_one(1, 2)",
            &["too many arguments", "demo::add_one", "int64_t x"],
        ),
        (
            "method",
            "demo::Point(1, 2).translate(1, std::string(\"b\"))",
            &["translate", "std::string", "double dy"],
        ),
    ];
    for (name, call, expected) in cases {
        let source = scratch.join(format!("{name}.cpp"));
        std::fs::write(
            &source,
            format!("#include <demo.hpp>\n#include <string>\nint main() {{ (void){call}; }}\n"),
        )
        .unwrap();
        // g++'s wording (the first configuration).
        let mut cmd = CXX_MATRIX[0].command();
        cmd.arg("-fsyntax-only");
        for dir in s.includes.iter().chain([
            &workspace_root().join("bindings/cpp/include"),
            &workspace_root().join("runtime/include"),
        ]) {
            cmd.arg("-I").arg(dir);
        }
        let out = cmd.arg(&source).output().expect("run g++");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{call} compiled");
        for text in *expected {
            assert!(
                stderr.contains(text),
                "{call}: g++ does not say `{text}`:\n{stderr}"
            );
        }
    }
}

#[test]
fn generated_headers_are_the_same_on_both_runtimes() {
    let s = setup();
    let ffihub = ffihub_binary();
    let apache = apache_runtime();
    let out = s.dir.join("generated-on-apache");
    let _ = std::fs::remove_dir_all(&out);
    generate(&ffihub, &apache, &s.demo_lib, "demo", &out.join("demo"));
    generate(
        &ffihub,
        &apache,
        &s.testing_lib,
        "tvm_ffi_testing",
        &out.join("testing"),
    );
    for (dir, file) in [("demo", "demo.hpp"), ("testing", "tvm_ffi_testing.hpp")] {
        let mut ours =
            std::fs::read_to_string(s.dir.join("generated").join(dir).join(file)).unwrap();
        let theirs = std::fs::read_to_string(out.join(dir).join(file)).unwrap();
        if dir == "testing" {
            // The docs of the testing library's `GlobalDef().def(..., doc)` globals, which
            // Apache's runtime keeps to itself (so the metadata checksum differs too).
            for doc in [
                " * Get sum of the pair\n *\n",
                " * variant passthrough\n *\n",
            ] {
                assert!(ours.contains(doc), "{file} lacks the doc {doc:?}");
                ours = ours.replacen(doc, "", 1);
            }
            let checksum = |text: &str| {
                let start = text.find("fnv1a64:").expect("a metadata checksum");
                text[start..start + 24].to_owned()
            };
            ours = ours.replace(&checksum(&ours), &checksum(&theirs));
        }
        assert!(
            ours == theirs,
            "{file} differs when generated on Apache's runtime:\n{}",
            ffihub_tests::line_diff(&ours, &theirs, 40)
        );
    }
}

/// The page whose C++ example (its "Getting started") the suite compiles and runs.
const DOC: &str = "docs/cpp.md";

/// The first ```lang block after `marker` in `text`.
fn code_block<'a>(text: &'a str, marker: &str, lang: &str) -> &'a str {
    let from = text
        .find(marker)
        .unwrap_or_else(|| panic!("{DOC} has no {marker:?}"));
    let fence = format!("```{lang}\n");
    let start = text[from..]
        .find(&fence)
        .unwrap_or_else(|| panic!("no ```{lang} block after {marker:?} in {DOC}"))
        + from
        + fence.len();
    let end = text[start..].find("```").expect("closing fence") + start;
    &text[start..end]
}

#[test]
fn the_documented_example_runs_on_both_runtimes() {
    let s = setup();
    let doc = std::fs::read_to_string(workspace_root().join(DOC)).unwrap();
    let source = code_block(&doc, "<!-- cpp-example -->", "cpp");
    let expected = code_block(&doc, "<!-- cpp-example-output -->", "text");
    let dir = s.dir.join("example");
    std::fs::create_dir_all(&dir).unwrap();
    let main = dir.join("example.cpp");
    std::fs::write(&main, source).unwrap();
    let program = dir.join("example");
    let demo_dir = s.demo_lib.parent().unwrap().display().to_string();
    let args = [
        "-pedantic".to_string(),
        "-I".into(),
        workspace_root()
            .join("runtime/include")
            .display()
            .to_string(),
        "-I".into(),
        s.includes[0].display().to_string(),
        format!("-L{}", ffihub_runtime().lib_dir.display()),
        "-ltvm_ffi".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    compile_cxx(
        &[main],
        &workspace_root().join("bindings/cpp/include"),
        &program,
        &args,
    );
    for runtime in [ffihub_runtime(), apache_runtime()] {
        // The example loads libffihub_demo.so from the library path. The runtime's folder goes
        // first: target/debug, where the demo is, holds a debug build of the runtime too.
        let path = format!("{}:{demo_dir}", runtime.lib_dir.display());
        let mut cmd = Command::new(&program);
        cmd.env("LD_LIBRARY_PATH", path);
        let out = run_ok(cmd);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected,
            "the example's output on the {} runtime differs from {DOC}",
            runtime.name
        );
    }
}
