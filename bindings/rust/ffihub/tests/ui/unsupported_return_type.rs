struct Plain;

/// A plain Rust struct is not a TVM-FFI value.
#[ffihub::function(name = "ui.unsupported_return")]
fn unsupported_return() -> Plain {
    Plain
}

fn main() {}
