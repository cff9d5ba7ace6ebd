//! ffihub used the way a user outside the checkout uses it, each test in a fresh folder under the
//! system's temporary folder, with none of the variables the workspace sets
//! (`TVM_FFI_LIB`, `TVM_FFI_LIB_DIR`, `FFIHUB_WORKSPACE_LIB_DIR`, `LD_LIBRARY_PATH`, ...):
//!
//! - `cargo install --path bindgen` gives an `ffihub` that runs from another folder, says what it
//!   tried when it finds no runtime, and finds one through `TVM_FFI_LIB` or its `../lib`;
//! - `scripts/install.sh --prefix P` installs the runtime, headers, generator, CMake package and
//!   pkg-config files: a CMake project with `find_package(ffihub)` generates the demo's header with
//!   `ffihub_generate()`, builds the C++ example of docs/cpp.md and runs it; a C program builds with
//!   `pkg-config tvm_ffi`;
//! - ffihub's crates (`ffihub-abi`, `ffihub-backtrace`, `ffihub-sys`, `ffihub-macros`, `ffihub`)
//!   pass `cargo package` and are published with `cargo publish` (after a `--dry-run`) to a local
//!   registry on 127.0.0.1 that stands in for crates.io (`registry.rs`);
//! - docs/extensions.md, run as written: a new crate depending on `ffihub = "0.1"`, resolved
//!   through that registry as crates.io would serve it (no path, no `[patch]`), builds an
//!   extension (linking the runtime through pkg-config), which stays loaded after `dlclose`, and
//!   which the generated Julia package and a CMake project call.
//!
//! To save time the generator is the workspace's debug build (`--debug`, which `cargo test` has
//! already built), the crates are packaged without `cargo package`'s verification build (the
//! extension's build compiles exactly the published files), and the extension crate builds in its
//! own target folder under `target/`.

mod registry;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

use ffihub_tests::{
    build_demo_and_generator, ffihub_runtime_checked, run_ok, run_ok_within, target_dir,
    workspace_root,
};

/// Variables through which the workspace (or the test harness) would hand a test its libraries.
const WORKSPACE_VARS: &[&str] = &[
    "TVM_FFI_LIB",
    "TVM_FFI_LIB_DIR",
    "FFIHUB_WORKSPACE_LIB_DIR",
    "FFIHUB_LIBRARY_PATH",
    "LD_LIBRARY_PATH",
    "PKG_CONFIG_PATH",
    "CARGO_TARGET_DIR",
];

/// A command with none of the workspace's library variables, run in `dir`.
fn outside(program: impl AsRef<std::ffi::OsStr>, dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(dir);
    for var in WORKSPACE_VARS {
        cmd.env_remove(var);
    }
    cmd
}

/// A fresh folder outside the checkout, `ffihub-install-<name>-<pid>` in the temporary folder.
/// Folders of earlier runs that are over are removed first (a failed test leaves its folder for
/// inspection, and the shared install prefix has no last user to remove it).
fn fresh_dir(name: &str) -> PathBuf {
    let stem = format!("ffihub-install-{name}-");
    if let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) {
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let pid = file_name.to_str().and_then(|n| n.strip_prefix(&stem));
            if pid.is_some_and(|pid| !Path::new("/proc").join(pid).exists()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("{stem}{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(workspace_root());
    cmd
}

/// The workspace's runtime, demo extension and generator, built (a no-op after `cargo build
/// --workspace`).
fn workspace_builds() -> &'static () {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        ffihub_runtime_checked();
        build_demo_and_generator();
    })
}

/// `scripts/install.sh --prefix <fresh folder> --debug`, once per test run.
fn prefix() -> &'static Path {
    static PREFIX: OnceLock<PathBuf> = OnceLock::new();
    PREFIX.get_or_init(|| {
        workspace_builds();
        let prefix = fresh_dir("prefix");
        let mut install = Command::new(workspace_root().join("scripts/install.sh"));
        install.arg("--prefix").arg(&prefix).arg("--debug");
        run_ok(install);
        prefix
    })
}

/// A bound for `cargo package` and `cargo publish` (which waits for each crate to appear in the
/// registry's index before publishing the next).
const CARGO_STEP: Duration = Duration::from_secs(5 * 60);

/// The crates an extension author depends on, in publishing order.
const PUBLISHED_CRATES: &[&str] = &[
    "ffihub-abi",
    "ffihub-backtrace",
    "ffihub-sys",
    "ffihub-macros",
    "ffihub",
];

/// A local registry holding ffihub's crates as `cargo publish` uploads them, and the cargo home
/// folder that uses it (once per test run).
fn published_crates() -> &'static (registry::Registry, PathBuf) {
    static PUBLISHED: OnceLock<(registry::Registry, PathBuf)> = OnceLock::new();
    PUBLISHED.get_or_init(|| {
        let registry = registry::Registry::start();
        // A cargo home of its own: the registry's port, part of its cache folder's name, changes
        // with every run.
        let cargo_home = fresh_dir("cargo-home");
        let crates = || {
            PUBLISHED_CRATES
                .iter()
                .flat_map(|c| ["-p", c])
                .collect::<Vec<_>>()
        };
        let mut package = cargo();
        package
            .args([
                "package",
                "--locked",
                "--offline",
                "--no-verify",
                "--allow-dirty",
            ])
            .args(crates());
        run_ok_within(package, CARGO_STEP);
        for name in PUBLISHED_CRATES {
            let file = target_dir().join(format!(
                "package/{name}-{}.crate",
                env!("CARGO_PKG_VERSION")
            ));
            let size = std::fs::metadata(&file)
                .unwrap_or_else(|e| panic!("cargo package did not write {}: {e}", file.display()))
                .len();
            eprintln!("{name}: {size} bytes packaged");
        }
        for dry_run in [true, false] {
            let mut publish = cargo();
            publish
                .args([
                    "publish",
                    "--locked",
                    "--no-verify",
                    "--allow-dirty",
                    "--registry",
                    registry::NAME,
                ])
                .args(crates())
                .env("CARGO_HOME", &cargo_home);
            registry.configure(&mut publish);
            if dry_run {
                publish.arg("--dry-run");
            }
            run_ok_within(publish, CARGO_STEP);
        }
        (registry, cargo_home)
    })
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The fenced block after `<!-- marker -->` in a Markdown file.
fn doc_block(doc: &str, marker: &str) -> String {
    let path = workspace_root().join(doc);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let after = text
        .split_once(&format!("<!-- {marker} -->"))
        .unwrap_or_else(|| panic!("{doc} has no <!-- {marker} --> block"))
        .1;
    let mut lines = after.lines().skip_while(|l| l.trim().is_empty());
    assert!(
        lines.next().is_some_and(|l| l.starts_with("```")),
        "{doc}: <!-- {marker} --> is not followed by a code block"
    );
    let mut block = String::new();
    for line in lines.take_while(|l| !l.starts_with("```")) {
        block.push_str(line);
        block.push('\n');
    }
    block
}

/// Writes `text` to `path`, creating folders.
fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Configures, builds and runs a CMake project with `find_package(ffihub)` from the install.
fn cmake_build_and_run(project: &Path, defines: &[(&str, &str)], program: &str) -> String {
    let mut configure = outside("cmake", project);
    configure
        .args(["-S", ".", "-B", "build"])
        .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix().display()));
    for (name, value) in defines {
        configure.arg(format!("-D{name}={value}"));
    }
    run_ok(configure);
    let mut build = outside("cmake", project);
    build.args(["--build", "build"]);
    run_ok(build);
    // No library variable: the runtime and the extension are found through rpaths.
    stdout(&run_ok(outside(
        project.join("build").join(program),
        project,
    )))
}

#[test]
fn generator_from_cargo_install_runs_from_another_folder() {
    workspace_builds();
    let root = fresh_dir("cargo-install");
    let mut install = cargo();
    install
        .args([
            "install",
            "--locked",
            "--offline",
            "--debug",
            "--path",
            "bindgen",
            "--root",
        ])
        .arg(&root)
        .env("CARGO_TARGET_DIR", target_dir());
    run_ok(install);
    let ffihub = root.join("bin/ffihub");
    let work = fresh_dir("generator-work");
    let demo = target_dir().join("debug/libffihub_demo.so");

    // No runtime anywhere: the error lists each place tried and what to set.
    let mut dump = outside(&ffihub, &work);
    dump.arg("dump").arg("--lib").arg(&demo);
    let out = dump.output().unwrap();
    let message = stderr(&out);
    assert!(!out.status.success(), "dump without a runtime succeeded");
    for expected in [
        "TVM_FFI_LIB (unset)",
        "TVM_FFI_LIB_DIR (unset)",
        &format!(
            "{} (no such file)",
            root.join("bin/libtvm_ffi.so").display()
        ),
        &format!(
            "{} (no such file)",
            root.join("lib/libtvm_ffi.so").display()
        ),
        "the system loader (",
        "Pass --runtime PATH, set TVM_FFI_LIB",
        "`generate --metadata FILE` needs no runtime",
    ] {
        assert!(
            message.contains(expected),
            "the error does not mention {expected:?}:\n{message}"
        );
    }

    // TVM_FFI_LIB as a folder.
    let mut dump = outside(&ffihub, &work);
    dump.args(["dump", "-o", "demo.yaml", "--lib"])
        .arg(&demo)
        .env("TVM_FFI_LIB", ffihub_runtime_checked().lib_dir);
    run_ok(dump);
    let yaml = std::fs::read_to_string(work.join("demo.yaml")).unwrap();
    assert!(yaml.contains("demo.add_one"), "the dump lacks demo.add_one");

    // A dump needs no runtime.
    let mut generate = outside(&ffihub, &work);
    generate.args([
        "generate",
        "--lang",
        "all",
        "--name",
        "demo",
        "--metadata",
        "demo.yaml",
        "--out",
        "out",
    ]);
    run_ok(generate);
    for file in [
        "out/cpp/demo.hpp",
        "out/julia/Project.toml",
        "out/node/package.json",
    ] {
        assert!(
            work.join(file).is_file(),
            "generate --metadata did not write {file}"
        );
    }

    // A runtime in the install's lib/ is found with no variable.
    std::fs::create_dir_all(root.join("lib")).unwrap();
    std::fs::copy(
        ffihub_runtime_checked().lib_dir.join("libtvm_ffi.so"),
        root.join("lib/libtvm_ffi.so"),
    )
    .unwrap();
    let mut generate = outside(&ffihub, &work);
    generate
        .args([
            "generate", "--lang", "cpp", "--name", "demo", "--out", "live", "--lib",
        ])
        .arg(&demo);
    run_ok(generate);
    assert!(work.join("live/demo.hpp").is_file());
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&work);
}

/// A CMake project in `project` that generates the demo's header with `ffihub_generate()` and
/// builds the C++ example of docs/cpp.md (`example`) against it.
fn docs_example_project(project: &Path) {
    let page = std::fs::read_to_string(workspace_root().join("docs/cpp.md")).unwrap();
    let example = page
        .split_once("<!-- cpp-example -->")
        .and_then(|(_, rest)| rest.split_once("```cpp\n"))
        .and_then(|(_, rest)| rest.split_once("\n```"))
        .expect("docs/cpp.md has the C++ example")
        .0;
    write(&project.join("example.cpp"), &format!("{example}\n"));
    write(
        &project.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.19)\n\
         project(demo_example CXX)\n\
         find_package(ffihub 0.1 REQUIRED)\n\
         ffihub_generate(demo_bindings NAME demo LIB \"${DEMO_LIB}\")\n\
         add_executable(example example.cpp)\n\
         target_compile_options(example PRIVATE -Wall -Wextra -Werror -pedantic)\n\
         target_link_libraries(example PRIVATE demo_bindings)\n",
    );
}

/// The output of docs/cpp.md's example.
fn assert_docs_example_output(out: &str) {
    assert!(
        out.starts_with("42\nHello, C++!\nclicks: 12 (step 10)\n")
            && out.ends_with("2 3 4\nValueError: cannot take the square root of -1\n"),
        "unexpected output of the example:\n{out}"
    );
}

#[test]
fn cmake_find_package_generates_and_runs_the_demo_example() {
    let project = fresh_dir("cmake-demo");
    docs_example_project(&project);
    // `load` has no rpath to the demo: FFIHUB_LIBRARY_PATH finds it, or the error lists the tries.
    write(
        &project.join("load.cpp"),
        "#include <ffihub/ffihub.hpp>\n#include <iostream>\n\
         int main(int, char** argv) {\n\
           try { ffihub::load_library(argv[1]); std::cout << \"loaded\\n\"; }\n\
           catch (const ffihub::RuntimeError& e) { std::cout << e.message() << \"\\n\"; }\n\
         }\n",
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(project.join("CMakeLists.txt"))
        .and_then(|mut f| {
            use std::io::Write;
            f.write_all(b"add_executable(load load.cpp)\ntarget_link_libraries(load PRIVATE ffihub::ffihub)\n")
        })
        .unwrap();
    let demo = target_dir().join("debug/libffihub_demo.so");
    let out = cmake_build_and_run(&project, &[("DEMO_LIB", demo.to_str().unwrap())], "example");
    assert_docs_example_output(&out);
    let load = |search: &Path| {
        let mut cmd = outside(project.join("build/load"), &project);
        cmd.arg("libffihub_demo.so")
            .env("FFIHUB_LIBRARY_PATH", search);
        stdout(&run_ok(cmd))
    };
    assert_eq!(load(demo.parent().unwrap()), "loaded\n");
    let nowhere = project.join("nowhere");
    let message = load(&nowhere);
    for expected in [
        format!(
            "cannot load libffihub_demo.so: tried {}/libffihub_demo.so (no such file)",
            nowhere.display()
        ),
        "the system loader (libffihub_demo.so: cannot open shared object file".to_string(),
        "add the library's folder to FFIHUB_LIBRARY_PATH".to_string(),
    ] {
        assert!(
            message.contains(&expected),
            "the error does not mention {expected:?}:\n{message}"
        );
    }

    // pkg-config: a C program against tvm_ffi.pc runs with no library path.
    let c = project.join("version.c");
    write(
        &c,
        "#include <stdio.h>\n#include <tvm/ffi/c_api.h>\n\
         int main(void) { TVMFFIVersion v; TVMFFIGetVersion(&v);\n\
         printf(\"ABI %u.%u\\n\", v.major, v.minor); return 0; }\n",
    );
    let flags = {
        let mut pc = outside("pkg-config", &project);
        pc.args(["--cflags", "--libs", "tvm_ffi"])
            .env("PKG_CONFIG_PATH", prefix().join("lib/pkgconfig"));
        stdout(&run_ok(pc))
    };
    let mut cc = outside("gcc", &project);
    cc.args(["-Wall", "-Werror", "version.c", "-o", "version"])
        .args(flags.split_whitespace());
    run_ok(cc);
    let version = stdout(&run_ok(outside(project.join("version"), &project)));
    assert!(
        version.starts_with("ABI 0."),
        "unexpected version: {version}"
    );
    let _ = std::fs::remove_dir_all(&project);
}

/// A project configured for clang with libc++ and C++20 (the CMake package's other end of
/// `CXX_MATRIX`) builds and runs the same example.
#[test]
fn cmake_package_serves_a_clang_libcxx_project() {
    let project = fresh_dir("cmake-clang");
    docs_example_project(&project);
    let config = ffihub_tests::cxx_config("clang_libcxx_cxx20");
    let demo = target_dir().join("debug/libffihub_demo.so");
    let flags = config.flags.join(" ");
    let out = cmake_build_and_run(
        &project,
        &[
            ("DEMO_LIB", demo.to_str().unwrap()),
            ("CMAKE_CXX_COMPILER", config.compiler),
            ("CMAKE_CXX_FLAGS", &flags),
        ],
        "example",
    );
    assert_docs_example_output(&out);
    let cache = std::fs::read_to_string(project.join("build/CMakeCache.txt")).unwrap();
    assert!(
        cache
            .lines()
            .any(|l| l.starts_with("CMAKE_CXX_COMPILER:STRING=") && l.ends_with(config.compiler)),
        "the project was not configured for {}",
        config.compiler
    );
    let _ = std::fs::remove_dir_all(&project);
}

/// `ffihub_generate(... LIB <Apache's wheel>/lib/libtvm_ffi_testing.so)`: the program's RUNPATH
/// lists the install's lib/ before the wheel's folder, which holds Apache's `libtvm_ffi.so` too, so
/// the program runs on the runtime it linked (ffihub's) and still finds the testing library.
#[test]
fn cmake_rpath_puts_the_installed_runtime_before_library_folders() {
    let project = fresh_dir("cmake-rpath");
    let wheel_lib = ffihub_tests::apache_root().join("lib");
    assert!(wheel_lib.join("libtvm_ffi.so").is_file());
    write(
        &project.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.19)\n\
         project(rpath_order CXX)\n\
         find_package(ffihub 0.1 REQUIRED)\n\
         ffihub_generate(testing_bindings NAME tvm_ffi_testing LIB \"${TESTING_LIB}\")\n\
         add_executable(which which.cpp)\n\
         target_link_libraries(which PRIVATE testing_bindings)\n",
    );
    write(
        &project.join("which.cpp"),
        "#include <dlfcn.h>\n#include <iostream>\n#include <tvm_ffi_testing.hpp>\n\
         int main() {\n\
           Dl_info info;\n\
           dladdr(reinterpret_cast<void*>(&TVMFFIGetVersion), &info);\n\
           std::cout << info.dli_fname << \"\\n\";\n\
           ffihub::load_library(\"libtvm_ffi_testing.so\");\n\
           std::cout << ffihub::Function::get_global_required(\"testing.add_one\").call<int64_t>(41) << \"\\n\";\n\
         }\n",
    );
    let out = cmake_build_and_run(
        &project,
        &[(
            "TESTING_LIB",
            wheel_lib.join("libtvm_ffi_testing.so").to_str().unwrap(),
        )],
        "which",
    );
    let runtime = prefix().join("lib/libtvm_ffi.so");
    assert_eq!(
        out,
        format!("{}\n42\n", runtime.display()),
        "the program did not run on the installed runtime"
    );
    let mut readelf = outside("readelf", &project);
    readelf.args(["-d", "build/which"]);
    let dynamic = stdout(&run_ok(readelf));
    let runpath = dynamic
        .lines()
        .find(|l| l.contains("(RUNPATH)"))
        .unwrap_or_else(|| panic!("no RUNPATH:\n{dynamic}"));
    let (ours, wheel) = (
        runpath.find(prefix().join("lib").to_str().unwrap()),
        runpath.find(wheel_lib.to_str().unwrap()),
    );
    assert!(
        ours.is_some() && wheel.is_some() && ours < wheel,
        "the install's lib/ does not come first: {runpath}"
    );
    let _ = std::fs::remove_dir_all(&project);
}

#[test]
fn first_extension_walkthrough_builds_and_runs_in_julia_and_cpp() {
    const DOC: &str = "docs/extensions.md";
    let checkout = workspace_root();
    let work = fresh_dir("first-extension");
    let crate_dir = work.join("hello");
    write(
        &crate_dir.join("Cargo.toml"),
        &doc_block(DOC, "extension-cargo-toml"),
    );
    write(
        &crate_dir.join("src/lib.rs"),
        &doc_block(DOC, "extension-lib-rs"),
    );
    // `ffihub = "0.1"` comes from the local registry that stands in for crates.io.
    let (registry, cargo_home) = published_crates();
    write(
        &crate_dir.join(".cargo/config.toml"),
        &registry.cargo_config(),
    );
    let crate_target = target_dir().join("ffihub-tests/first-extension");
    let build = |pkg_config: bool| {
        let mut cmd = outside(
            std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()),
            &crate_dir,
        );
        cmd.arg("build")
            .env("CARGO_HOME", cargo_home)
            .env("CARGO_TARGET_DIR", &crate_target);
        if pkg_config {
            cmd.env("PKG_CONFIG_PATH", prefix().join("lib/pkgconfig"));
        }
        cmd.output().unwrap()
    };

    // Without a runtime to link, the build says where it looked.
    let out = build(false);
    let message = stderr(&out);
    assert!(
        !out.status.success(),
        "the extension built without a runtime"
    );
    for expected in [
        "cannot find libtvm_ffi.so to link",
        "TVM_FFI_LIB (unset)",
        "pkg-config tvm_ffi",
        "Set TVM_FFI_LIB",
    ] {
        assert!(
            message.contains(expected),
            "the build error does not mention {expected:?}:\n{message}"
        );
    }
    // With the install's tvm_ffi.pc.
    let out = build(true);
    assert!(
        out.status.success(),
        "the extension did not build:\n{}",
        stderr(&out)
    );
    let lib = crate_target.join("debug/libhello.so");
    let served = registry.log();
    for name in PUBLISHED_CRATES {
        let download = format!("GET /dl/{name}/{}/download 200", env!("CARGO_PKG_VERSION"));
        assert!(
            served.contains(&download),
            "the extension did not download {name} from the registry: {served:#?}"
        );
    }
    let sys = registry.index_entries("ffihub-sys");
    assert_eq!(
        sys.first().map(|e| e["links"].clone()),
        Some(serde_json::json!("tvm_ffi")),
        "ffihub-sys's index entry: {sys:?}"
    );

    // The Julia package, generated by the installed generator with the installed runtime.
    let mut generate = outside(prefix().join("bin/ffihub"), &work);
    generate
        .args([
            "generate", "--lang", "julia", "--name", "hello", "--out", "Hello", "--lib",
        ])
        .arg(&lib);
    run_ok(generate);
    std::fs::create_dir_all(work.join("Hello/lib")).unwrap();
    let bundled = work.join("Hello/lib/libhello.so");
    std::fs::copy(&lib, &bundled).unwrap();

    // First: the extension stays loaded after dlclose (it marks itself RTLD_NODELETE when it
    // loads), with the install's runtime, which TVMFFI then uses (a runtime already loaded);
    // then the page's Julia block.
    let script = format!(
        "using Pkg; Pkg.activate(mktempdir())\n\
         using Libdl\n\
         Libdl.dlopen({runtime:?}, Libdl.RTLD_GLOBAL)\n\
         let lib = {bundled:?}, h = Libdl.dlopen(lib)\n\
             Libdl.dlclose(h)\n\
             Libdl.dlopen(lib, Libdl.RTLD_NOLOAD; throw_error = false) === nothing && error(\"$lib was unloaded by dlclose\")\n\
         end\n\
         {}",
        doc_block(DOC, "extension-julia"),
        bundled = bundled.display().to_string(),
        runtime = prefix().join("lib/libtvm_ffi.so").display().to_string(),
    );
    write(&work.join("check.jl"), &script);
    let mut julia = outside(checkout.join("scripts/julia"), &work);
    julia
        .args(["--startup-file=no", "check.jl"])
        .env("FFIHUB", &checkout);
    let out = stdout(&run_ok(julia));
    assert!(
        out.ends_with("5\nHello, Julia!\n10 15\n"),
        "unexpected Julia output:\n{out}"
    );

    // The page's CMake project.
    let project = work.join("cpp");
    write(
        &project.join("CMakeLists.txt"),
        &doc_block(DOC, "extension-cmake"),
    );
    write(&project.join("main.cpp"), &doc_block(DOC, "extension-cpp"));
    let out = cmake_build_and_run(&project, &[("HELLO_LIB", lib.to_str().unwrap())], "main");
    assert_eq!(out, "5\nHello, C++!\n10 15\n", "unexpected C++ output");
    let _ = std::fs::remove_dir_all(&work);
}
