//! The module driver (`tests/c/module_driver.c`) under valgrind on ffihub's runtime: loading,
//! lookups, imports, the system library, `__tvm_ffi__library_bin` and malformed blobs must report
//! no memory errors and no definitely or indirectly lost bytes.

mod module_util;

use module_util::*;
use std::path::PathBuf;
use std::process::Command;
use tvm_ffi::module::library_bin::{serialize, Entry};

/// `N` from the last "<label> N" line of valgrind's output (`1,234` allowed).
fn number_after(text: &str, label: &str) -> Option<u64> {
    let line = text.lines().rev().find(|l| l.contains(label))?;
    let rest = &line[line.find(label)? + label.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .collect();
    digits.replace(',', "").parse().ok()
}

fn valgrind_clean(runtime: &Runtime, driver: &PathBuf, args: &[&std::ffi::OsStr]) {
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--error-exitcode=99",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite,indirect",
    ])
    .arg(driver)
    .args(args)
    .env("LD_LIBRARY_PATH", &runtime.lib_dir);
    let out = cmd.output().expect("run valgrind");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let no_leaks = stderr.contains("no leaks are possible");
    let lost = |label| number_after(&stderr, label).or(no_leaks.then_some(0));
    let errors = number_after(&stderr, "ERROR SUMMARY:");
    assert!(
        out.status.success()
            && stdout.lines().any(|l| l.starts_with("ok "))
            && errors == Some(0)
            && lost("definitely lost:") == Some(0)
            && lost("indirectly lost:") == Some(0),
        "valgrind {args:?}: {}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
}

#[test]
fn module_driver_under_valgrind_on_ffihub() {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        _ => panic!("valgrind is not available: install it with `apt-get install -y valgrind`"),
    }
    let runtime = ffihub();
    let dir = scratch("valgrind", &runtime);
    let driver = build_driver(&runtime, &dir);
    let lib = dir.join("libmodule_test.so");
    build_library(&runtime, "module_lib.c", &lib, &[]);
    let import = dir.join("libmodule_import.so");
    build_library(&runtime, "module_lib_import.c", &import, &[]);
    let alias = dir.join("module_test_alias.dso");
    std::os::unix::fs::symlink(&lib, &alias).unwrap();
    let text = dir.join("not_a_library.so");
    std::fs::write(&text, "not ELF\n").unwrap();
    let blob = serialize(
        &[
            Entry::Lib,
            Entry::Custom {
                kind: b"testkind",
                payload: b"tk1.",
            },
        ],
        &[vec![1], vec![]],
    );
    let bin = build_blob_library(&runtime, &dir, "bin_lib_root", &blob);
    let mut lying = blob.clone();
    lying[..8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let lying = build_blob_library(&runtime, &dir, "lying", &lying);
    let truncated = {
        let body = &blob[8..blob.len() - 3];
        let mut b = (body.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(body);
        build_blob_library(&runtime, &dir, "truncated", &b)
    };

    let os = |s: &'static str| std::ffi::OsStr::new(s);
    valgrind_clean(
        &runtime,
        &driver,
        &[
            os("basic"),
            lib.as_os_str(),
            alias.as_os_str(),
            text.as_os_str(),
        ],
    );
    valgrind_clean(
        &runtime,
        &driver,
        &[os("imports"), lib.as_os_str(), import.as_os_str()],
    );
    valgrind_clean(&runtime, &driver, &[os("syslib")]);
    valgrind_clean(&runtime, &driver, &[os("bin_lib_root"), bin.as_os_str()]);
    for (malformed, message) in [
        (&lying, "the header declares"),
        (&truncated, "truncated while reading"),
    ] {
        valgrind_clean(
            &runtime,
            &driver,
            &[
                os("load_error"),
                malformed.as_os_str(),
                os("InternalError"),
                std::ffi::OsStr::new(message),
            ],
        );
    }
}
