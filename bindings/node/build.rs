//! The addon links `libtvm_ffi` by name through `ffihub-sys` (ADR 0001 and 0004). This script adds
//! only a `RUNPATH $ORIGIN`: which `libtvm_ffi.so` the addon gets is decided when Node loads it
//! (`lib/addon.js`, docs/install.md "Finding libraries"); the RUNPATH is the last resort after
//! LD_LIBRARY_PATH: the runtime beside the addon (in the prebuilt npm package).
//!
//! The Node-API functions (`napi_*`) stay undefined: Node provides them when it loads the addon.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--enable-new-dtags,-rpath,$ORIGIN");
}
