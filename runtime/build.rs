//! Builds the runtime's C++ layer (`cxx/`, ADR 0005) and sets the cdylib's link arguments:
//!
//! - the SONAME Apache's runtime has, so that a library linked against either runtime
//!   (DT_NEEDED libtvm_ffi.so) binds to whichever one is already loaded;
//! - a second version script exporting the C++ symbols Apache's `libtvm_ffi.so` exports (rustc's
//!   own script exports only Rust's C ABI). Only lld merges two version scripts, so the build
//!   refuses other linkers with an explanation instead of failing at link time.

use std::path::PathBuf;
use std::process::Command;

const CXX_SOURCES: &[&str] = &[
    "cxx/calls.cc",
    "cxx/api.cc",
    "cxx/module.cc",
    "cxx/legacy.cc",
];
const CXX_HEADERS: &[&str] = &["cxx/calls.h", "cxx/bridge.h", "cxx/tvm_ffi_cxx.h"];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    for file in CXX_SOURCES
        .iter()
        .chain(CXX_HEADERS)
        .chain(&["cxx/exports.map"])
    {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");

    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .include(manifest.join("include"))
        .include(manifest.join("cxx"))
        .files(CXX_SOURCES)
        .warnings_into_errors(true)
        // Every exported symbol must be linked in, referenced from Rust or not.
        .link_lib_modifier("+whole-archive")
        .compile("ffihub_cxx");

    check_linker_is_lld();
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libtvm_ffi.so");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        manifest.join("cxx/exports.map").display()
    );
}

/// rustc links x86_64-unknown-linux-gnu cdylibs with its bundled rust-lld since Rust 1.90, unless
/// the user picked another linker through RUSTFLAGS.
fn check_linker_is_lld() {
    let target = std::env::var("TARGET").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let flags: Vec<&str> = flags.split('\x1f').collect();
    let opted_out = flags.windows(2).any(|pair| {
        let flag = match pair {
            ["-C", value] => *value,
            [value, _] => value.strip_prefix("-C").unwrap_or(""),
            _ => "",
        };
        flag.starts_with("linker=")
            || flag.contains("linker-features=-lld")
            || flag.contains("link-self-contained=-linker")
    }) || flags
        .iter()
        .any(|f| f.starts_with("-Clinker=") || f.contains("linker-features=-lld"));
    let lld_flags = flags.iter().any(|f| f.contains("fuse-ld=lld"));
    let rustc_minor = rustc_minor_version();
    let default_lld = target == "x86_64-unknown-linux-gnu" && rustc_minor.is_some_and(|m| m >= 90);
    if (opted_out || !default_lld) && !lld_flags {
        panic!(
            "ffihub-runtime exports Apache's C++ symbols through a second linker version script, \
             which only lld accepts (GNU ld rejects two anonymous version scripts; see \
             docs/adr/0005-cxx-surface.md). Build for x86_64-unknown-linux-gnu with Rust >= 1.90 \
             and its default rust-lld, or add `-C link-arg=-fuse-ld=lld` to RUSTFLAGS \
             (target {target}, rustc 1.{}, RUSTFLAGS {:?}).",
            rustc_minor.map_or("?".to_string(), |m| m.to_string()),
            flags
        );
    }
}

fn rustc_minor_version() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC")?;
    let output = Command::new(rustc).arg("--version").output().ok()?;
    let version = String::from_utf8(output.stdout).ok()?;
    version
        .split_whitespace()
        .nth(1)?
        .split('.')
        .nth(1)?
        .parse()
        .ok()
}
