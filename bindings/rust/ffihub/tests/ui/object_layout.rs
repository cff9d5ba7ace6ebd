use ffihub::Object;

/// Not #[repr(C)]: the header would not be guaranteed to come first.
#[derive(ffihub::Object)]
#[ffihub(type_key = "ui.NotReprC")]
struct NotReprC {
    base: Object,
}

/// The first field must be the parent object.
#[derive(ffihub::Object)]
#[ffihub(type_key = "ui.NoParent")]
#[repr(C)]
struct NoParent {
    value: i64,
}

/// Fields hold TVM-FFI value types.
#[derive(ffihub::Object)]
#[ffihub(type_key = "ui.BadField")]
#[repr(C)]
struct BadField {
    base: Object,
    values: Vec<i64>,
}

fn main() {}
