/// Registered under a name...
#[ffihub::function(name = "ui.twice")]
fn first() -> i64 {
    1
}

/// ...that another function of the crate registers too.
#[ffihub::function(name = "ui.twice")]
fn second() -> i64 {
    2
}


mod elsewhere {
    /// The same module export in another module of the crate.
    #[ffihub::function(export = "exported")]
    fn exported() -> i64 {
        1
    }

    /// The same type key in another module of the crate.
    #[derive(ffihub::Object)]
    #[ffihub(type_key = "ui.Twice")]
    #[repr(C)]
    pub struct Again {
        base: ffihub::Object,
    }
}

/// Exported under a symbol name...
#[ffihub::function(export = "exported")]
fn exported() -> i64 {
    2
}

/// ...and a type key, each used twice.
#[derive(ffihub::Object)]
#[ffihub(type_key = "ui.Twice")]
#[repr(C)]
pub struct Once {
    base: ffihub::Object,
}

fn main() {}
