//! napi-rs 3.x: `#[napi]` functions.
use napi_derive::napi;

/// Does nothing.
#[napi]
pub fn noop() {}

/// a + b + c.
#[napi]
pub fn add3(a: f64, b: f64, c: f64) -> f64 {
    a + b + c
}
