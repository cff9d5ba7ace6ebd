//! `ffihub`: dump a TVM-FFI library's reflection, generate bindings from it, check them.

use ffihub_bindgen::cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
