use ffihub::{Object, Writable};

/// A counter.
#[derive(ffihub::Object)]
#[ffihub(type_key = "ui.Counter")]
#[repr(C)]
pub struct Counter {
    base: Object,
    count: Writable<i64>,
}

#[ffihub::methods]
impl Counter {
    /// Objects are shared: methods take `&self`.
    pub fn bump(&mut self) {}
}

fn main() {}
