//! Gives `libtvm_ffi.so` the SONAME Apache's runtime has, so that a library linked against
//! either runtime (DT_NEEDED libtvm_ffi.so) binds to whichever one is already loaded.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libtvm_ffi.so");
}
