//! Hands the folder `ffihub-sys` linked the runtime from to this package's own tests (the
//! compile-fail tests build in another target folder and must link the same runtime).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let lib_dir = std::env::var("DEP_TVM_FFI_LIB_DIR").unwrap_or_default();
    println!("cargo:rustc-env=FFIHUB_TVM_FFI_LIB_DIR={lib_dir}");
}
