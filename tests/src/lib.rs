//! Shared harness of the cross-language tests: where things are, compiling C, running programs
//! against one runtime or the other.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// Apache's `libtvm_ffi_testing.so`.
pub fn apache_testing_lib() -> PathBuf {
    apache_root().join("lib/libtvm_ffi_testing.so")
}

/// Compiles C sources with gcc into `output`, failing the test with gcc's messages on error.
pub fn compile_c(sources: &[PathBuf], include_dir: &Path, output: &Path, extra_args: &[&str]) {
    let mut cmd = Command::new("gcc");
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-O1"])
        .arg("-I")
        .arg(include_dir)
        .args(sources)
        .arg("-o")
        .arg(output)
        .args(extra_args);
    let out = cmd.output().expect("run gcc");
    assert!(
        out.status.success(),
        "gcc failed for {}:\n{}",
        output.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles a C program that links `-ltvm_ffi` from `runtime`'s folder (no rpath: the library
/// path decides at run time which runtime is used).
pub fn compile_c_program(sources: &[PathBuf], runtime: &Runtime, output: &Path) {
    let lib_dir = format!("-L{}", runtime.lib_dir.display());
    compile_c(
        sources,
        &runtime.include_dir,
        output,
        &[&lib_dir, "-ltvm_ffi", "-ldl"],
    );
}

/// A command that runs `program` with `runtime`'s `libtvm_ffi.so` on the library path.
pub fn command_on(runtime: &Runtime, program: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("LD_LIBRARY_PATH", &runtime.lib_dir);
    cmd
}

/// Runs a command and returns its output, failing the test with both streams if it failed.
pub fn run_ok(mut cmd: Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed with {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Compiles C++17 sources with g++ into `output` (warnings are errors), failing the test with
/// g++'s messages on error.
pub fn compile_cxx(sources: &[PathBuf], include_dir: &Path, output: &Path, extra_args: &[&str]) {
    let mut cmd = Command::new("g++");
    cmd.args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-g", "-O1"])
        .arg("-I")
        .arg(include_dir)
        .args(sources)
        .arg("-o")
        .arg(output)
        .args(extra_args);
    let out = cmd.output().expect("run g++");
    assert!(
        out.status.success(),
        "g++ failed for {}:\n{}",
        output.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A line diff of `old` against `new` in unified style (`-` only in old, `+` only in new, three
/// lines of context, `@@ old-line,new-line @@` hunk headers); empty when they are equal. At most
/// `max_lines` lines are shown.
pub fn line_diff(old: &str, new: &str, max_lines: usize) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
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
