//! Link options of the demo extension.

fn main() {
    // The runtime keeps pointers into this library (registered functions, type records): it
    // must never be unloaded, even if a host calls dlclose on it.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
}
