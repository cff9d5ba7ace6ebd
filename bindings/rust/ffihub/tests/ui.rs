//! Compile-fail tests: misuse of the macros is a compile error with a clear message.
//! Regenerate the expected messages with `TRYBUILD=overwrite cargo test -p ffihub --test ui`.

#[test]
fn misuse_is_a_compile_error() {
    // trybuild builds in its own target folder: point the build script at the runtime this
    // package was built against.
    std::env::set_var("TVM_FFI_LIB_DIR", env!("FFIHUB_TVM_FFI_LIB_DIR"));
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
