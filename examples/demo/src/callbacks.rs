//! Callbacks taken as arguments and closures returned.

use ffihub::{Any, Array, Function, Result, TypedFunction};
use std::sync::atomic::{AtomicI64, Ordering};

/// Calls `f` twice: `f(f(x))`.
#[ffihub::function(name = "demo.apply_twice")]
pub fn apply_twice(f: TypedFunction<fn(i64) -> i64>, x: i64) -> Result<i64> {
    f.call(f.call(x)?)
}

/// A function from float to float (`(float) -> float` in the type schema).
pub type FloatFunction = TypedFunction<fn(f64) -> f64>;

/// A closure `x -> k * x` (on floats).
#[ffihub::function(name = "demo.make_multiplier")]
pub fn make_multiplier(k: f64) -> Result<FloatFunction> {
    TypedFunction::new(move |x: f64| k * x)
}

/// `[f(v) for v in values]`: calls `f` (any function) on each element.
#[ffihub::function(name = "demo.map_array")]
pub fn map_array(f: Function, values: Array<Any>) -> Result<Array<Any>> {
    let mapped = values
        .iter()
        .map(|v| f.call::<Any>((v?,)))
        .collect::<Result<Vec<_>>>()?;
    Array::new(mapped)
}

/// A stateful closure: each call returns the next integer, starting at `start`.
#[ffihub::function(name = "demo.make_counter_fn")]
pub fn make_counter_fn(start: i64) -> Result<TypedFunction<fn() -> i64>> {
    let next = AtomicI64::new(start);
    TypedFunction::new(move || next.fetch_add(1, Ordering::Relaxed))
}

/// The composition `x -> g(f(x))` of two functions of one argument, as a packed function.
#[ffihub::function(name = "demo.compose")]
pub fn compose(f: Function, g: Function) -> Result<Function> {
    Function::from_packed(move |args| {
        let inner = f.call_packed(args)?;
        g.call_packed(&[inner.view()])
    })
}
