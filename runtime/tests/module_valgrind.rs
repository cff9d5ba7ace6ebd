//! The module driver (`tests/c/module_driver.c`) under valgrind on ffihub's runtime: loading,
//! lookups, imports, the system library, `__tvm_ffi__library_bin` and malformed blobs must report
//! no memory errors and no definitely or indirectly lost bytes.

mod module_util;

use ffihub_tests::{run_with_timeout, valgrind};
use module_util::*;
use std::ffi::OsStr;
use std::path::Path;
use tvm_ffi::module::library_bin::{serialize, Entry};

/// Runs the driver with `args` under valgrind on `runtime`: it must pass (print an `ok ...`
/// line) and valgrind must be clean.
fn valgrind_clean(runtime: &Runtime, driver: &Path, args: &[&OsStr]) {
    let mut cmd = valgrind::command_on(runtime, driver, &[]);
    cmd.args(args);
    let out = run_with_timeout(cmd, valgrind::TIMEOUT);
    let passed = String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.starts_with("ok "));
    valgrind::assert_clean(&format!("module_driver {args:?}"), &out, passed);
}

#[test]
fn module_driver_under_valgrind_on_ffihub() {
    valgrind::require();
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

    let os = |s: &'static str| OsStr::new(s);
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
                OsStr::new(message),
            ],
        );
    }
}
