//! Packed functions: any number of arguments of any type, no signature in the metadata.

use ffihub::{Any, AnyView, Array, Error, Result};

/// The sum of all arguments: an int if they are all ints (or bools), a float if any is a float;
/// `TypeError` for other kinds of arguments. No arguments give `0`.
#[ffihub::function(name = "demo.packed_sum")]
pub fn packed_sum(args: &[AnyView<'_>]) -> Result<Any> {
    let mut int_total: i64 = 0;
    let mut float_total: Option<f64> = None;
    for (i, arg) in args.iter().enumerate() {
        match arg.type_key().as_str() {
            "int" | "bool" => int_total = int_total.wrapping_add(arg.cast::<i64>()?),
            "float" => *float_total.get_or_insert(0.0) += arg.cast::<f64>()?,
            other => {
                return Err(Error::type_error(format!(
                    "demo.packed_sum: argument #{i} is `{other}`, expected int or float"
                )))
            }
        }
    }
    match float_total {
        Some(total) => Any::from_value(total + int_total as f64),
        None => Any::from_value(int_total),
    }
}

/// The type key of each argument as the runtime names it (`int`, `float`, `ffi.SmallStr`,
/// `ffi.String`, `ffi.Array`, `demo.Point`...): shows how a binding passes its values.
#[ffihub::function(name = "demo.arg_types")]
pub fn arg_types(args: &[AnyView<'_>]) -> Result<Array<std::string::String>> {
    Array::new(args.iter().map(AnyView::type_key))
}

/// The number of Rust-defined objects (of this library's types) currently alive: a leak
/// counter for binding tests (take it before and after, with the binding's objects released).
#[ffihub::function(name = "demo.live_object_count")]
pub fn live_object_count() -> i64 {
    ffihub::live_rust_objects() as i64
}
