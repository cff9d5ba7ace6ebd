//! A plain Rust JSON tree, for readers that only inspect a document (the JSON graph reader) and
//! need not build FFI containers for it, with conversions from and to FFI values.

use super::parse::{parse_with, Sink, MAX_DEPTH};
use crate::abi::TVMFFIAny;
use crate::containers::map::{Map, MapView};
use crate::containers::seq::{seq_elements, Array};
use crate::registry::types::type_key_of;
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;

/// A JSON value. Objects keep their members in document order; a repeated key is found by
/// [`Value::get`] at its last occurrence, as in a Map built from the members.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Text),
    Array(Vec<Value>),
    Object(Vec<(Text, Value)>),
}

/// String bytes, short ones stored inline (keys and type keys mostly are: reading them then
/// needs no pointer chase and no allocation).
#[derive(Clone)]
pub enum Text {
    Short(u8, [u8; SHORT]),
    Long(Box<[u8]>),
}

const SHORT: usize = 22;

impl Text {
    pub fn new(bytes: &[u8]) -> Text {
        if bytes.len() <= SHORT {
            let mut inline = [0; SHORT];
            inline[..bytes.len()].copy_from_slice(bytes);
            Text::Short(bytes.len() as u8, inline)
        } else {
            Text::Long(bytes.into())
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Text::Short(len, inline) => &inline[..*len as usize],
            Text::Long(bytes) => bytes,
        }
    }
}

impl std::ops::Deref for Text {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for Text {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.as_bytes()))
    }
}

struct ValueSink;

impl Sink for ValueSink {
    type Value = Value;
    fn null() -> Value {
        Value::Null
    }
    fn boolean(value: bool) -> Value {
        Value::Bool(value)
    }
    fn int(value: i64) -> Value {
        Value::Int(value)
    }
    fn float(value: f64) -> Value {
        Value::Float(value)
    }
    fn string(bytes: &[u8]) -> Value {
        Value::Str(Text::new(bytes))
    }
    fn array(items: Vec<Value>) -> Value {
        Value::Array(items)
    }
    fn object(members: Vec<(Value, Value)>) -> Result<Value, Error> {
        let members = members
            .into_iter()
            .map(|(key, value)| match key {
                Value::Str(key) => (key, value),
                _ => unreachable!("the parser makes string keys"),
            })
            .collect();
        Ok(Value::Object(members))
    }
}

/// Parses a JSON document into a [`Value`] (same grammar, limits and errors as
/// [`super::parse`]).
pub fn parse_value(text: &[u8]) -> Result<Value, Error> {
    parse_with::<ValueSink>(text)
}

impl Value {
    /// The member `key` of an object (its last occurrence).
    pub fn get(&self, key: &[u8]) -> Option<&Value> {
        match self {
            Value::Object(members) => members
                .iter()
                .rev()
                .find(|(k, _)| k.as_bytes() == key)
                .map(|m| &m.1),
            _ => None,
        }
    }

    /// The type key of the FFI value this stands for, for messages.
    pub fn type_key(&self) -> &'static str {
        match self {
            Value::Null => "None",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "ffi.String",
            Value::Array(_) => "ffi.Array",
            Value::Object(_) => "ffi.Map",
        }
    }

    /// The FFI value: scalars, String, `ffi.Array`, `ffi.Map` with String keys.
    pub fn to_any(&self) -> Result<Any, Error> {
        self.to_any_at(0)
    }

    fn to_any_at(&self, depth: usize) -> Result<Any, Error> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok(match self {
            Value::Null => Any::none(),
            Value::Bool(b) => Any::bool(*b),
            Value::Int(i) => Any::int(*i),
            Value::Float(f) => Any::float(*f),
            Value::Str(s) => Any::string(s),
            Value::Array(items) => Array::from_vec(
                items
                    .iter()
                    .map(|v| v.to_any_at(depth + 1))
                    .collect::<Result<_, _>>()?,
            )
            .into_any(),
            Value::Object(members) => {
                let mut pairs = Vec::with_capacity(members.len());
                for (key, value) in members {
                    pairs.push((Any::string(key), value.to_any_at(depth + 1)?));
                }
                Map::from_pairs(pairs)?.into_any()
            }
        })
    }

    /// The JSON value an FFI value holds: scalars, strings, Arrays and Lists, Maps and Dicts with
    /// string keys; anything else is a ValueError.
    pub fn from_any(value: &Any) -> Result<Value, Error> {
        // SAFETY: an owned value is valid.
        unsafe { Self::from_view(value.as_raw(), 0) }
    }

    /// # Safety
    /// `value` is a valid value.
    unsafe fn from_view(value: &TVMFFIAny, depth: usize) -> Result<Value, Error> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok(match value.type_index {
            tindex::NONE => Value::Null,
            tindex::BOOL => Value::Bool(value.value.v_int64 != 0),
            tindex::INT => Value::Int(value.value.v_int64),
            tindex::FLOAT => Value::Float(value.value.v_float64),
            tindex::SMALL_STR | tindex::STR | tindex::RAW_STR => Value::Str(Text::new(
                crate::value::string::str_bytes(value).unwrap_or_default(),
            )),
            tindex::ARRAY | tindex::LIST => Value::Array(
                seq_elements(value.value.v_obj)
                    .iter()
                    .map(|v| Self::from_view(v, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            tindex::MAP | tindex::DICT => {
                let view = MapView::from_raw(value.value.v_obj).expect("a map");
                let mut members = Vec::with_capacity(view.len());
                for (key, item) in view.iter() {
                    let key = crate::value::string::str_bytes(key.as_raw()).ok_or_else(|| {
                        Error::new(
                            "ValueError",
                            format!(
                                "JSON object keys must be strings, got `{}`",
                                type_key_of(key.type_index())
                            ),
                        )
                    })?;
                    members.push((Text::new(key), Self::from_view(item.as_raw(), depth + 1)?));
                }
                Value::Object(members)
            }
            other => {
                return Err(Error::new(
                    "ValueError",
                    format!("`{}` is not a JSON value", type_key_of(other)),
                ))
            }
        })
    }
}

fn too_deep() -> Error {
    Error::new(
        "ValueError",
        format!("JSON value nested deeper than {MAX_DEPTH} levels"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_convert_both_ways() {
        let text = br#"{"a": [1, 2.5, true, null, "s"], "b": {}, "a": 3}"#;
        let value = parse_value(text).unwrap();
        assert_eq!(
            value.get(b"a"),
            Some(&Value::Int(3)),
            "the last duplicate wins"
        );
        let any = value.to_any().unwrap();
        let back = Value::from_any(&any).unwrap();
        // The FFI map keeps one member per key.
        assert_eq!(back.get(b"a"), Some(&Value::Int(3)));
        assert_eq!(back.get(b"b"), Some(&Value::Object(Vec::new())));
        let parsed = crate::walks::json::parse(text).unwrap();
        assert_eq!(Value::from_any(&parsed).unwrap(), back);
    }
}
