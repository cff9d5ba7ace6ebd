use ffihub::Object;

/// An object type without a type key.
#[derive(ffihub::Object)]
#[repr(C)]
struct NoKey {
    base: Object,
    value: i64,
}

fn main() {}
