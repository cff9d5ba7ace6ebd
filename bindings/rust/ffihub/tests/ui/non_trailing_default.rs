/// Parameters with defaults must come last.
#[ffihub::function(name = "ui.defaults")]
fn defaults(#[ffihub(default = 1)] a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
