use std::collections::HashMap;

/// A Rust map is not a TVM-FFI type (ffihub::Map is).
#[ffihub::function(name = "ui.unsupported_map")]
fn unsupported_map(values: HashMap<String, i64>) -> i64 {
    values.len() as i64
}

/// References cannot cross the ABI.
#[ffihub::function(name = "ui.unsupported_reference")]
fn unsupported_reference(text: &str) -> i64 {
    text.len() as i64
}

fn main() {}
