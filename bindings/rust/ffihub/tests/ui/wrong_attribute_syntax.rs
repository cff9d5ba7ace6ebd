/// A misspelled argument.
#[ffihub::function(nme = "ui.misspelled")]
fn misspelled() {}

/// A bare string instead of `name = "..."`.
#[ffihub::function("ui.bare")]
fn bare() {}

/// No name and no export.
#[ffihub::function]
fn unnamed() {}

/// An unknown option on a parameter.
#[ffihub::function(name = "ui.bad_param_option")]
fn bad_param_option(#[ffihub(defualt = 1)] x: i64) -> i64 {
    x
}

fn main() {}
