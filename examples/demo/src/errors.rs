//! Errors raised on purpose. Every error carries its kind, its message and a backtrace with
//! the Rust frames where it was created.

use ffihub::{Error, Result, String};

/// Raises an error of kind `kind` (`ValueError`, `TypeError`, `IndexError`, `KeyError`,
/// `RuntimeError`, or any other name) with `message`.
#[ffihub::function(name = "demo.raise_error")]
pub fn raise_error(kind: String, message: String) -> Result<()> {
    Err(Error::new(
        kind.to_string_lossy(),
        message.to_string_lossy(),
    ))
}

/// The square root of `x`; `ValueError` when `x` is negative.
#[ffihub::function(name = "demo.checked_sqrt")]
pub fn checked_sqrt(x: f64) -> Result<f64> {
    if x < 0.0 {
        return Err(Error::value_error(format!(
            "cannot take the square root of {x}"
        )));
    }
    Ok(x.sqrt())
}

/// Parses a decimal integer; `ValueError` when the text is not one.
#[ffihub::function(name = "demo.parse_int")]
pub fn parse_int(text: String) -> Result<i64> {
    let text = text.to_str()?;
    text.trim()
        .parse()
        .map_err(|e| Error::value_error(format!("invalid integer `{text}`: {e}")))
}

/// Panics with `message`: the panic is caught at the boundary and raised as an
/// `InternalError` whose message contains it.
#[ffihub::function(name = "demo.panic")]
pub fn panic(message: String) {
    panic!("{}", message.to_string_lossy());
}
