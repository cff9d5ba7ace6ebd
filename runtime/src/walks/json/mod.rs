//! JSON text with Apache's conventions: [`parse()`] (`ffi.json.Parse`) and [`stringify()`]
//! (`ffi.json.Stringify`). Objects are `ffi.Map`s with string keys, arrays `ffi.Array`s, numbers
//! `int` when they are integers that fit in 64 bits and `float` otherwise.

mod parse;
mod value;
mod write;

pub use parse::{parse, MAX_DEPTH};
pub use value::{parse_value, Text, Value};
pub use write::{escape_into, stringify, write_float, write_int, write_value};
