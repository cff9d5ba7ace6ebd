//! The module globals carry Apache's names and `type_schema` metadata, byte for byte.
//!
//! `module_globals_apache.tsv` (beside this file) holds `<name>\t<metadata>` as Apache's runtime
//! reports it through `ffi.GetGlobalFuncMetadata`; it was produced by
//! `tests/c/module_metadata_dump.c` run on the wheel's `libtvm_ffi.so`, and the
//! `..._on_apache` test checks that it still is.

mod module_util;

use module_util::*;

const APACHE_COPY: &str = include_str!("module_globals_apache.tsv");

fn expected() -> Vec<(&'static str, &'static str)> {
    APACHE_COPY
        .lines()
        .map(|line| line.split_once('\t').expect("name<TAB>metadata"))
        .collect()
}

#[test]
fn module_globals_metadata_matches_the_apache_copy() {
    let expected = expected();
    assert_eq!(expected.len(), 16, "the 16 module globals");
    for (name, metadata) in expected {
        let entry = tvm_ffi::registry::globals::get(name.as_bytes())
            .unwrap_or_else(|| panic!("{name} is not registered"));
        assert_eq!(
            String::from_utf8_lossy(&entry.metadata),
            metadata,
            "metadata of {name}"
        );
    }
}

fn dump_on(runtime: Runtime) {
    let dir = scratch("metadata", &runtime);
    let program = dir.join("module_metadata_dump");
    let args = [
        std::ffi::OsString::from("-I"),
        runtime.include_dir.clone().into_os_string(),
        workspace_root()
            .join("tests/c/module_metadata_dump.c")
            .into_os_string(),
        format!("-L{}", runtime.lib_dir.display()).into(),
        "-ltvm_ffi".into(),
        "-o".into(),
        program.clone().into_os_string(),
    ];
    let out = std::process::Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
        .args(&args)
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut cmd = on(&runtime, &program);
    cmd.args(expected().iter().map(|(name, _)| name));
    let out = run_ok(cmd);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        APACHE_COPY,
        "metadata reported by {}'s runtime",
        runtime.name
    );
}

#[test]
fn module_globals_metadata_through_the_c_abi_on_ffihub() {
    dump_on(ffihub());
}

#[test]
fn module_globals_metadata_copy_is_apache_s() {
    dump_on(apache());
}
