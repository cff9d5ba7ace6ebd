//! TVM-FFI types of the fields and method signatures of object types defined in JavaScript
//! (`ffi.defineClass`, see `define.rs`): the type schema they register, how a field is stored
//! in the object, and the check (with TVM-FFI's conversions) every value written to a field,
//! passed to a method or returned by one goes through, whoever writes or calls.
//!
//! The checks run on any thread and touch no JavaScript value: they read `TVMFFIAny` views and
//! make owned values through the runtime's C functions and `ffi.*` globals.

use crate::convert::{float_any, int_any, ArgBuf, OwnedAny};
use crate::ffi;
use crate::napi::{self, napi_value, Env, Result};
use ffihub_abi::abi::{TVMFFIAny, TVMFFIAnyValue, TVMFFIObjectHandle, TVMFFISeqCell};
use ffihub_abi::tindex;
use std::sync::atomic::{AtomicI32, Ordering};

/// A TVM-FFI type, as a type descriptor of `lib/define.js` describes it (`{kind, key, args}`).
#[derive(Debug)]
pub enum FieldType {
    Int,
    Float,
    Bool,
    Str,
    Bytes,
    DataType,
    Device,
    Any,
    Function,
    Shape,
    /// An object type and its subtypes; the index of `key` is looked up on first use (the type
    /// being defined may name itself).
    Object {
        key: String,
        index: AtomicI32,
    },
    Array(Box<FieldType>),
    List(Box<FieldType>),
    Map(Box<FieldType>, Box<FieldType>),
    Dict(Box<FieldType>, Box<FieldType>),
    Optional(Box<FieldType>),
}

/// A value that does not have the type (the caller words the error).
pub struct Mismatch {
    /// For a container of the right kind: which element does not convert.
    pub hint: String,
}

impl FieldType {
    /// Reads a type descriptor (`{kind: 'array', args: [{kind: 'int'}]}`, `{kind: 'object',
    /// key: 'myapp.Node'}`).
    pub fn from_js(env: Env, descriptor: napi_value) -> Result<FieldType> {
        let kind = env.get_rust_string(env.get_named(descriptor, b"kind\0")?)?;
        let arg = |i: u32| -> Result<Box<FieldType>> {
            let args = env.get_named(descriptor, b"args\0")?;
            Ok(Box::new(FieldType::from_js(
                env,
                env.get_element(args, i)?,
            )?))
        };
        Ok(match kind.as_str() {
            "int" => FieldType::Int,
            "float" => FieldType::Float,
            "bool" => FieldType::Bool,
            "str" => FieldType::Str,
            "bytes" => FieldType::Bytes,
            "DataType" => FieldType::DataType,
            "Device" => FieldType::Device,
            "Any" => FieldType::Any,
            "Function" => FieldType::Function,
            "Shape" => FieldType::Shape,
            "object" => {
                FieldType::object(&env.get_rust_string(env.get_named(descriptor, b"key\0")?)?)
            }
            "array" => FieldType::Array(arg(0)?),
            "list" => FieldType::List(arg(0)?),
            "map" => FieldType::Map(arg(0)?, arg(1)?),
            "dict" => FieldType::Dict(arg(0)?, arg(1)?),
            "optional" => FieldType::Optional(arg(0)?),
            other => return napi::type_error(format!("unknown field type kind `{other}`")),
        })
    }

    /// The object type `key` (and its subtypes).
    pub fn object(key: &str) -> FieldType {
        FieldType::Object {
            key: key.to_string(),
            index: AtomicI32::new(-1),
        }
    }

    /// `(size, alignment, static type index)` of a field of this type in an object, as the
    /// runtime's generic getters, setters and deleter for binding-defined types expect it:
    /// scalars as their C type, strings, bytes, optionals and Any as an owned 16-byte Any,
    /// every other object as one 8-byte reference.
    pub fn layout(&self) -> (i64, i64, i32) {
        match self {
            FieldType::Int => (8, 8, tindex::INT),
            FieldType::Float => (8, 8, tindex::FLOAT),
            FieldType::Bool => (1, 1, tindex::BOOL),
            FieldType::DataType => (4, 2, tindex::DATA_TYPE),
            FieldType::Device => (8, 4, tindex::DEVICE),
            FieldType::Str | FieldType::Bytes | FieldType::Optional(_) | FieldType::Any => {
                (16, 8, tindex::ANY)
            }
            _ => (8, 8, tindex::OBJECT),
        }
    }

    fn origin(&self) -> &str {
        match self {
            FieldType::Int => "int",
            FieldType::Float => "float",
            FieldType::Bool => "bool",
            FieldType::Str => "ffi.String",
            FieldType::Bytes => "ffi.Bytes",
            FieldType::DataType => "DataType",
            FieldType::Device => "Device",
            FieldType::Any => "Any",
            FieldType::Function => "ffi.Function",
            FieldType::Shape => "ffi.Shape",
            FieldType::Object { key, .. } => key,
            FieldType::Array(_) => "ffi.Array",
            FieldType::List(_) => "ffi.List",
            FieldType::Map(..) => "ffi.Map",
            FieldType::Dict(..) => "ffi.Dict",
            FieldType::Optional(_) => "Optional",
        }
    }

    fn args(&self) -> Vec<&FieldType> {
        match self {
            FieldType::Array(t) | FieldType::List(t) | FieldType::Optional(t) => vec![t],
            FieldType::Map(k, v) | FieldType::Dict(k, v) => vec![k, v],
            _ => Vec::new(),
        }
    }

    /// The type schema in TVM-FFI's JSON form (`{"type":"ffi.Array","args":[{"type":"int"}]}`).
    pub fn schema_json(&self) -> String {
        let args = self.args();
        let origin = json_string(self.origin());
        if args.is_empty() {
            format!("{{\"type\":{origin}}}")
        } else {
            let args: Vec<String> = args.iter().map(|a| a.schema_json()).collect();
            format!("{{\"type\":{origin},\"args\":[{}]}}", args.join(","))
        }
    }

    /// The type as errors spell it: `int`, `str`, `Array[float]`, `Optional[myapp.Node]`.
    pub fn text(&self) -> String {
        let name = match self {
            FieldType::Str => "str",
            FieldType::Bytes => "bytes",
            other => other
                .origin()
                .strip_prefix("ffi.")
                .unwrap_or(other.origin()),
        };
        let args = self.args();
        if args.is_empty() {
            name.to_string()
        } else {
            let args: Vec<String> = args.iter().map(|a| a.text()).collect();
            format!("{name}[{}]", args.join(", "))
        }
    }

    /// The value to store for `value` (a borrowed view) in a place of this type, owned: the
    /// value itself when it has the type, a converted one where TVM-FFI converts (an int for a
    /// float, a container whose elements convert), else a [`Mismatch`]. `Err(Ok(error))` is a
    /// failure of the runtime while converting.
    pub fn convert(
        &self,
        value: &TVMFFIAny,
    ) -> std::result::Result<TVMFFIAny, std::result::Result<Mismatch, TVMFFIObjectHandle>> {
        let ti = value.type_index;
        let mismatch = || Err(Ok(Mismatch::plain()));
        match self {
            FieldType::Any => owned_copy(value),
            FieldType::Int => match ti {
                tindex::INT | tindex::BOOL => Ok(int_any(ffi::payload_i64(value))),
                _ => mismatch(),
            },
            FieldType::Float => match ti {
                tindex::FLOAT => Ok(*value),
                tindex::INT | tindex::BOOL => Ok(float_any(ffi::payload_i64(value) as f64)),
                _ => mismatch(),
            },
            FieldType::Bool => match ti {
                tindex::BOOL | tindex::INT => Ok(bool_any(ffi::payload_i64(value) != 0)),
                _ => mismatch(),
            },
            FieldType::Str => match ti {
                tindex::SMALL_STR | tindex::STR | tindex::RAW_STR => owned_copy(value),
                _ => mismatch(),
            },
            FieldType::Bytes => match ti {
                tindex::SMALL_BYTES | tindex::BYTES | tindex::BYTE_ARRAY_PTR => owned_copy(value),
                _ => mismatch(),
            },
            FieldType::DataType => exact(value, tindex::DATA_TYPE),
            FieldType::Device => exact(value, tindex::DEVICE),
            FieldType::Function => exact(value, tindex::FUNCTION),
            FieldType::Shape => exact(value, tindex::SHAPE),
            FieldType::Object { key, index } => {
                if ti >= tindex::OBJECT && derives_from(ti, key, index) {
                    owned_copy(value)
                } else {
                    mismatch()
                }
            }
            FieldType::Optional(t) => match ti {
                tindex::NONE => Ok(ffi::none()),
                _ => t.convert(value),
            },
            FieldType::Array(t) => convert_seq(value, tindex::ARRAY, t, b"ffi.Array"),
            FieldType::List(t) => convert_seq(value, tindex::LIST, t, b"ffi.List"),
            FieldType::Map(k, v) => convert_map(value, tindex::MAP, k, v, b"ffi.Map"),
            FieldType::Dict(k, v) => convert_map(value, tindex::DICT, k, v, b"ffi.Dict"),
        }
    }

    /// [`convert`](Self::convert), with a mismatch worded as a `TypeError` naming `what`.
    pub fn convert_for(
        &self,
        value: &TVMFFIAny,
        what: &str,
    ) -> std::result::Result<TVMFFIAny, TVMFFIObjectHandle> {
        self.convert(value).map_err(|e| match e {
            Ok(m) => ffi::make_error(
                "TypeError",
                &format!(
                    "{what} expects {}, got {}{}",
                    self.text(),
                    value_text(value),
                    m.hint
                ),
                "",
            ),
            Err(error) => error,
        })
    }
}

impl Mismatch {
    fn plain() -> Mismatch {
        Mismatch {
            hint: String::new(),
        }
    }
}

/// A JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Bool `Any`.
fn bool_any(v: bool) -> TVMFFIAny {
    TVMFFIAny {
        type_index: tindex::BOOL,
        small_str_len: 0,
        value: TVMFFIAnyValue {
            v_int64: i64::from(v),
        },
    }
}

type Converted = std::result::Result<TVMFFIAny, std::result::Result<Mismatch, TVMFFIObjectHandle>>;

/// An owned copy of a view (raw strings become String objects).
fn owned_copy(value: &TVMFFIAny) -> Converted {
    let mut out = ffi::none();
    // SAFETY: `value` is a valid view; the runtime writes an owned value.
    if unsafe { ffi::TVMFFIAnyViewToOwnedAny(value, &mut out) } != 0 {
        return Err(Err(ffi::take_raised_error()));
    }
    Ok(out)
}

fn exact(value: &TVMFFIAny, type_index: i32) -> Converted {
    if value.type_index == type_index {
        owned_copy(value)
    } else {
        Err(Ok(Mismatch::plain()))
    }
}

/// Whether the object type `ti` is the type `key` or derives from it.
fn derives_from(ti: i32, key: &str, index: &AtomicI32) -> bool {
    if key == "ffi.Object" {
        return true;
    }
    let mut want = index.load(Ordering::Relaxed);
    if want < 0 {
        match ffi::type_key_to_index(key.as_bytes()) {
            Some(i) => {
                want = i;
                index.store(i, Ordering::Relaxed);
            }
            None => return false,
        }
    }
    ffi::self_and_ancestors(ti)
        .iter()
        .any(|info| info.type_index == want)
}

/// Whether a converted element is the same value as the original (nothing was converted).
fn same_value(a: &TVMFFIAny, b: &TVMFFIAny) -> bool {
    a.type_index == b.type_index && ffi::payload_i64(a) == ffi::payload_i64(b)
}

/// Calls the global `name` with owned arguments; the result is owned.
fn call_global(
    name: &[u8],
    args: &mut ArgBuf,
) -> std::result::Result<OwnedAny, TVMFFIObjectHandle> {
    let f = ffi::get_global(name)?;
    if f.is_null() {
        return Err(ffi::make_error(
            "RuntimeError",
            &format!(
                "the runtime has no global `{}`",
                String::from_utf8_lossy(name)
            ),
            "",
        ));
    }
    let result = crate::function::call_raw(f, args);
    // SAFETY: our reference from get_global.
    unsafe { ffi::TVMFFIObjectDecRef(f) };
    match result {
        Ok(v) => Ok(OwnedAny(v)),
        Err(napi::Error::Ffi(e)) => Err(e),
        Err(_) => Err(ffi::make_error("RuntimeError", "a runtime call failed", "")),
    }
}

/// An Array or List whose elements are converted to `element`; rebuilt only when an element
/// changed.
fn convert_seq(value: &TVMFFIAny, kind: i32, element: &FieldType, ctor: &[u8]) -> Converted {
    if value.type_index != kind {
        return Err(Ok(Mismatch::plain()));
    }
    if matches!(element, FieldType::Any) {
        return owned_copy(value);
    }
    // SAFETY: an Array or List object, whose cell is a sequence cell of `size` valid Anys.
    let items: &[TVMFFIAny] = unsafe {
        let cell = &*ffi::cell::<TVMFFISeqCell>(ffi::payload_ptr(value).cast());
        if cell.size <= 0 || cell.data.is_null() {
            &[]
        } else {
            std::slice::from_raw_parts(cell.data.cast::<TVMFFIAny>(), cell.size as usize)
        }
    };
    let mut converted = ArgBuf::new();
    let mut changed = false;
    for (i, item) in items.iter().enumerate() {
        match element.convert(item) {
            Ok(c) => {
                changed |= !same_value(&c, item);
                converted.push(c);
            }
            Err(Ok(_)) => {
                return Err(Ok(Mismatch {
                    hint: format!(" (element {i} is {})", value_text(item)),
                }))
            }
            Err(Err(e)) => return Err(Err(e)),
        }
    }
    if !changed {
        return owned_copy(value);
    }
    call_global(ctor, &mut converted)
        .map(OwnedAny::take)
        .map_err(Err)
}

/// A Map or Dict whose keys and values are converted; rebuilt only when one changed.
fn convert_map(
    value: &TVMFFIAny,
    kind: i32,
    key: &FieldType,
    val: &FieldType,
    ctor: &[u8],
) -> Converted {
    if value.type_index != kind {
        return Err(Ok(Mismatch::plain()));
    }
    if matches!((key, val), (FieldType::Any, FieldType::Any)) {
        return owned_copy(value);
    }
    let prefix: &[u8] = if kind == tindex::MAP {
        b"ffi.Map"
    } else {
        b"ffi.Dict"
    };
    let global = |suffix: &[u8], args: &mut ArgBuf| {
        call_global(&[prefix, suffix].concat(), args).map_err(Err)
    };
    let this = || {
        let mut args = ArgBuf::new();
        args.push(owned_copy(value).ok().unwrap_or_else(ffi::none));
        args
    };
    let size = ffi::payload_i64(&global(b"Size", &mut this())?.0);
    let mut converted = ArgBuf::new();
    let mut changed = false;
    if size > 0 {
        let functor = global(b"ForwardIterFunctor", &mut this())?;
        let step = |command: i64| -> std::result::Result<OwnedAny, _> {
            let mut args = ArgBuf::new();
            args.push(int_any(command));
            crate::function::call_raw(ffi::payload_ptr(&functor.0).cast(), &mut args)
                .map(OwnedAny)
                .map_err(|e| match e {
                    napi::Error::Ffi(e) => Err(e),
                    _ => Err(ffi::make_error("RuntimeError", "map iteration failed", "")),
                })
        };
        loop {
            for (command, ty) in [(0, key), (1, val)] {
                let item = step(command)?;
                match ty.convert(&item.0) {
                    Ok(c) => {
                        changed |= !same_value(&c, &item.0);
                        converted.push(c);
                    }
                    Err(Ok(_)) => {
                        let what = if command == 0 { "a key" } else { "a value" };
                        return Err(Ok(Mismatch {
                            hint: format!(" ({what} is {})", value_text(&item.0)),
                        }));
                    }
                    Err(Err(e)) => return Err(Err(e)),
                }
            }
            if ffi::payload_i64(&step(2)?.0) == 0 {
                break;
            }
        }
    }
    if !changed {
        return owned_copy(value);
    }
    call_global(ctor, &mut converted)
        .map(OwnedAny::take)
        .map_err(Err)
}

/// What a value is, in TVM-FFI's words (for errors).
pub fn value_text(value: &TVMFFIAny) -> String {
    match value.type_index {
        tindex::NONE => "None".into(),
        tindex::INT => "int".into(),
        tindex::BOOL => "bool".into(),
        tindex::FLOAT => "float".into(),
        tindex::SMALL_STR | tindex::STR | tindex::RAW_STR => "str".into(),
        tindex::SMALL_BYTES | tindex::BYTES | tindex::BYTE_ARRAY_PTR => "bytes".into(),
        tindex::DATA_TYPE => "DataType".into(),
        tindex::DEVICE => "Device".into(),
        tindex::OPAQUE_PTR => "an opaque pointer".into(),
        ti if ti >= tindex::OBJECT => ffi::type_key(ti),
        ti => format!("a value of type index {ti}"),
    }
}
