//! `ffi.ReprPrint`: the text form of any value, with Apache's spelling (Python-like literals,
//! `type_key(field=value, ...)` for reflected objects, `(...)` for Array, `[...]` for List,
//! `{k: v}` for maps, `...` for a cycle) and `__ffi_repr__` hooks.

use crate::abi::{
    TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIObject, TVMFFISeqCell, TVMFFIShapeCell,
};
use crate::dlpack::{DLDevice, DLTensor};
use crate::tindex;
use crate::value::any::{byte_array_slice, Any};
use crate::value::error::Error;
use crate::value::object::{is_object_index, ObjectRef};
use std::collections::HashMap;
use std::fmt::Write;
use std::ops::Range;

/// Nesting through `__ffi_repr__` hooks deeper than this is refused: each hook prints with a
/// printer of its own on the native stack. Containers and fields nest without limit (the printer
/// keeps them on a heap stack).
const MAX_HOOK_DEPTH: usize = 512;

/// The repr of `value`.
pub fn repr(value: &TVMFFIAny) -> Result<String, Error> {
    repr_at_depth(value, 0)
}

fn repr_at_depth(value: &TVMFFIAny, hook_depth: usize) -> Result<String, Error> {
    if hook_depth > MAX_HOOK_DEPTH {
        return Err(Error::new(
            "ValueError",
            format!("ReprPrint: nesting through __ffi_repr__ hooks deeper than {MAX_HOOK_DEPTH}"),
        ));
    }
    let mut printer = Printer {
        show_addr: std::env::var("TVM_FFI_REPR_WITH_ADDR").is_ok_and(|v| v == "1"),
        state: HashMap::new(),
        out: String::new(),
        hook_depth,
    };
    printer.print(value)?;
    Ok(printer.out)
}

enum State {
    InProgress,
    /// Where the object's text sits in the output (printed again when the object recurs).
    Done(Range<usize>),
}

struct Printer {
    show_addr: bool,
    state: HashMap<usize, State>,
    out: String,
    hook_depth: usize,
}

/// An object whose children are being printed.
struct Open {
    obj: *mut TVMFFIObject,
    /// Where its text starts in the output.
    start: usize,
    body: Body,
    /// The next child to print.
    next: usize,
}

/// The children of an open object, owned: a repr hook may mutate a container while we print it.
enum Body {
    Seq {
        items: Vec<Any>,
        list: bool,
    },
    /// Keys and values alternate as children.
    Map(Vec<(Any, Any)>),
    Fields(Vec<(String, Any)>),
}

impl Open {
    fn child_count(&self) -> usize {
        match &self.body {
            Body::Seq { items, .. } => items.len(),
            Body::Map(entries) => 2 * entries.len(),
            Body::Fields(fields) => fields.len(),
        }
    }

    /// Writes the text that precedes child `i`, and returns that child.
    fn child(&self, i: usize, out: &mut String) -> TVMFFIAny {
        if i > 0 && (i.is_multiple_of(2) || !matches!(self.body, Body::Map(_))) {
            out.push_str(", ");
        }
        match &self.body {
            Body::Seq { items, .. } => *items[i].as_raw(),
            Body::Map(entries) if i.is_multiple_of(2) => *entries[i / 2].0.as_raw(),
            Body::Map(entries) => {
                out.push_str(": ");
                *entries[i / 2].1.as_raw()
            }
            Body::Fields(fields) => {
                out.push_str(&fields[i].0);
                out.push('=');
                *fields[i].1.as_raw()
            }
        }
    }
}

/// Short names of device types.
pub fn device_type_name(device_type: i32) -> &'static str {
    match device_type {
        1 => "cpu",
        2 => "cuda",
        3 => "cuda_host",
        4 => "opencl",
        7 => "vulkan",
        8 => "metal",
        9 => "vpi",
        10 => "rocm",
        11 => "rocm_host",
        12 => "ext_dev",
        13 => "cuda_managed",
        14 => "oneapi",
        15 => "webgpu",
        16 => "hexagon",
        17 => "maia",
        18 => "trn",
        _ => "unknown",
    }
}

fn device_text(device: DLDevice) -> String {
    format!(
        "{}:{}",
        device_type_name(device.device_type),
        device.device_id
    )
}

/// A float as C++ streams print it by default (`%g` with 6 significant digits).
pub fn format_float(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let scientific = format!("{v:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("exponent form");
    let exponent: i32 = exponent.parse().expect("exponent digits");
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exponent.abs())
    } else {
        trim(&format!("{v:.*}", (5 - exponent) as usize))
    }
}

/// A string literal the way Python would print it (escapes, `\uXXXX` for non-ASCII).
pub fn escape_str(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        // Keep ANSI color sequences readable.
        if c == 0x1b && bytes.get(i + 1) == Some(&b'[') {
            let mut j = i + 2;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b';') {
                j += 1;
            }
            if j < bytes.len() && (bytes[j] == b'm' || bytes[j] == b'K') {
                out.push_str("\\x1b[");
                out.push_str(&String::from_utf8_lossy(&bytes[i + 2..=j]));
                i = j + 1;
                continue;
            }
        }
        match c {
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            0x20..=0x7e => out.push(c as char),
            0..=0x7f => {
                let _ = write!(out, "\\x{c:02x}");
            }
            _ => {
                let width = match c {
                    0xC0..=0xDF => 2,
                    0xE0..=0xEF => 3,
                    0xF0..=0xF7 => 4,
                    _ => 0,
                };
                let sequence = bytes
                    .get(i..i + width)
                    .filter(|s| width > 0 && s[1..].iter().all(|b| b & 0xC0 == 0x80));
                match sequence
                    .and_then(|s| std::str::from_utf8(s).ok())
                    .and_then(|s| s.chars().next())
                {
                    Some(ch) if width == 4 => {
                        let _ = write!(out, "\\U{:08x}", ch as u32);
                        i += width;
                        continue;
                    }
                    Some(ch) => {
                        let _ = write!(out, "\\u{:04x}", ch as u32);
                        i += width;
                        continue;
                    }
                    None => {
                        let _ = write!(out, "\\x{c:02x}");
                    }
                }
            }
        }
        i += 1;
    }
    out.push('"');
    out
}

/// A bytes literal: `b"..."` with `\xNN` for anything not printable.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("b\"");
    for &c in bytes {
        if (32..127).contains(&c) && c != b'"' && c != b'\\' {
            out.push(c as char);
        } else {
            let _ = write!(out, "\\x{c:02x}");
        }
    }
    out.push('"');
    out
}

fn type_key(type_index: i32) -> String {
    crate::registry::types::type_key_of(type_index)
}

/// The sentinel objects of `ffi.GetInvalidObject` / `ffi.GetKwargsObject`.
fn sentinel_name(obj: *mut TVMFFIObject) -> Option<&'static str> {
    if obj == crate::registry::reflection::missing_object().as_ptr() {
        Some("<MISSING>")
    } else if obj == crate::registry::reflection::kwargs_object().as_ptr() {
        Some("<KWARGS>")
    } else {
        None
    }
}

impl Printer {
    fn addr_suffix(&self, obj: *mut TVMFFIObject) -> String {
        if self.show_addr {
            format!("@{obj:p}")
        } else {
            String::new()
        }
    }

    /// Prints `value` into `out`, keeping the objects being printed on a heap stack.
    fn print(&mut self, value: &TVMFFIAny) -> Result<(), Error> {
        let mut stack: Vec<Open> = Vec::new();
        stack.extend(self.begin(value)?);
        while let Some(top) = stack.last_mut() {
            if top.next < top.child_count() {
                let child = top.child(top.next, &mut self.out);
                top.next += 1;
                // `child` stays alive: the frame on the stack owns it.
                stack.extend(self.begin(&child)?);
            } else {
                let open = stack.pop().expect("non-empty stack");
                self.finish(open);
            }
        }
        Ok(())
    }

    /// Prints a value without children, or the opening of an object with children (returned).
    fn begin(&mut self, value: &TVMFFIAny) -> Result<Option<Open>, Error> {
        // SAFETY: `value` is a valid value; each arm reads the payload its tag announces.
        unsafe {
            let text = match value.type_index {
                tindex::NONE => "None".into(),
                tindex::BOOL if value.value.v_int64 != 0 => "True".into(),
                tindex::BOOL => "False".into(),
                tindex::INT => value.value.v_int64.to_string(),
                tindex::FLOAT => format_float(value.value.v_float64),
                tindex::DATA_TYPE => crate::registry::dtype::format_dtype(value.value.v_dtype),
                tindex::DEVICE => device_text(value.value.v_device),
                tindex::SMALL_STR | tindex::STR | tindex::RAW_STR => {
                    escape_str(crate::value::string::str_bytes(value).unwrap_or_default())
                }
                tindex::SMALL_BYTES | tindex::BYTES | tindex::BYTE_ARRAY_PTR => {
                    escape_bytes(crate::value::string::bytes_bytes(value).unwrap_or_default())
                }
                t if !is_object_index(t) => type_key(t),
                _ if value.value.v_obj.is_null() => "None".into(),
                _ => return self.begin_object(value),
            };
            self.out.push_str(&text);
            Ok(None)
        }
    }

    /// # Safety
    /// `value` holds a live object.
    unsafe fn begin_object(&mut self, value: &TVMFFIAny) -> Result<Option<Open>, Error> {
        let obj = value.value.v_obj;
        match self.state.get(&(obj as usize)) {
            Some(State::Done(range)) => {
                let range = range.clone();
                self.out.extend_from_within(range);
                return Ok(None);
            }
            Some(State::InProgress) => {
                let text = format!("...{}", self.addr_suffix(obj));
                self.out.push_str(&text);
                return Ok(None);
            }
            None => {}
        }
        if let Some(name) = sentinel_name(obj) {
            self.out.push_str(name);
            return Ok(None);
        }
        let start = self.out.len();
        self.state.insert(obj as usize, State::InProgress);
        Ok(match self.open_object(value, obj, value.type_index)? {
            Some(body) => Some(Open {
                obj,
                start,
                body,
                next: 0,
            }),
            None => {
                self.state
                    .insert(obj as usize, State::Done(start..self.out.len()));
                None
            }
        })
    }

    /// Writes the closing of an object whose children are printed.
    fn finish(&mut self, open: Open) {
        match &open.body {
            Body::Seq { items, list: false } => {
                self.out.push_str(if items.len() == 1 { ",)" } else { ")" });
            }
            Body::Seq { list: true, .. } => self.out.push(']'),
            Body::Map(_) => self.out.push('}'),
            Body::Fields(_) => self.out.push(')'),
        }
        if !matches!(open.body, Body::Fields(_)) {
            let suffix = self.addr_suffix(open.obj);
            self.out.push_str(&suffix);
        }
        self.state
            .insert(open.obj as usize, State::Done(open.start..self.out.len()));
    }

    /// Writes the text of an object not yet printed, or the opening of one with children
    /// (returned).
    ///
    /// # Safety
    /// `obj` is the live object held by `value`, of type `ti`.
    unsafe fn open_object(
        &mut self,
        value: &TVMFFIAny,
        obj: *mut TVMFFIObject,
        ti: i32,
    ) -> Result<Option<Body>, Error> {
        let cell = obj.cast::<u8>().add(24);
        let text = match ti {
            tindex::BIG_INT => crate::containers::bigint::decimal(value),
            tindex::TENSOR => {
                let t = &*cell.cast::<DLTensor>();
                let shape: Vec<String> = (0..t.ndim.max(0) as usize)
                    .map(|i| (*t.shape.add(i)).to_string())
                    .collect();
                format!(
                    "{}[{}]@{}{}",
                    crate::registry::dtype::format_dtype(t.dtype),
                    shape.join(", "),
                    device_text(t.device),
                    self.addr_suffix(obj)
                )
            }
            tindex::SHAPE => {
                let s = &*cell.cast::<TVMFFIShapeCell>();
                let dims: Vec<String> = (0..s.size).map(|i| (*s.data.add(i)).to_string()).collect();
                format!("Shape({})", dims.join(", "))
            }
            _ => {
                if let Some(hook) = crate::registry::types::attr_value(b"__ffi_repr__", ti) {
                    self.hook_repr(&hook, obj, ti)?
                } else if crate::registry::types::is_instance(
                    ti,
                    crate::registry::types::runtime_index::ENUM,
                ) {
                    // `<type_key>.<_str_index>`.
                    let name =
                        crate::registry::reflection::Accessor::Any.read(obj.cast::<u8>().add(32));
                    let name = crate::value::string::str_bytes(name.as_raw())
                        .map(|b| String::from_utf8_lossy(b).into_owned());
                    format!(
                        "{}.{}{}",
                        type_key(ti),
                        name.unwrap_or_default(),
                        self.addr_suffix(obj)
                    )
                } else {
                    return self.open_container(value, obj, ti, cell);
                }
            }
        };
        self.out.push_str(&text);
        Ok(None)
    }

    /// Opens an Array, List, Map, Dict or reflected object (or prints a field-less one).
    ///
    /// # Safety
    /// As for [`Printer::open_object`]; `cell` is the cell after the header.
    unsafe fn open_container(
        &mut self,
        value: &TVMFFIAny,
        obj: *mut TVMFFIObject,
        ti: i32,
        cell: *mut u8,
    ) -> Result<Option<Body>, Error> {
        match ti {
            tindex::ARRAY | tindex::LIST => {
                let seq = &*cell.cast::<TVMFFISeqCell>();
                let items = std::slice::from_raw_parts(
                    seq.data.cast::<TVMFFIAny>(),
                    seq.size.max(0) as usize,
                );
                let items = items
                    .iter()
                    .map(|item| crate::value::any::view_to_owned(item))
                    .collect::<Result<Vec<_>, _>>()?;
                let list = ti == tindex::LIST;
                self.out.push(if list { '[' } else { '(' });
                Ok(Some(Body::Seq { items, list }))
            }
            tindex::MAP | tindex::DICT => {
                let entries = map_entries(value)?;
                self.out.push('{');
                Ok(Some(Body::Map(entries)))
            }
            _ => {
                let fields = reflected_fields(ti, obj)?;
                let header = format!("{}{}", type_key(ti), self.addr_suffix(obj));
                self.out.push_str(&header);
                Ok(if fields.is_empty() {
                    None
                } else {
                    self.out.push('(');
                    Some(Body::Fields(fields))
                })
            }
        }
    }

    unsafe fn hook_repr(
        &mut self,
        hook: &Any,
        obj: *mut TVMFFIObject,
        ti: i32,
    ) -> Result<String, Error> {
        let hook = hook
            .as_object()
            .ok_or_else(|| Error::new("TypeError", "__ffi_repr__ must be a Function"))?;
        // The callback may outlive this call, so it prints with a printer of its own; the hook
        // depth carries over, which bounds recursion through hooks.
        let hook_depth = self.hook_depth;
        let fn_repr = crate::value::function::from_closure(move |args| {
            let arg = args
                .first()
                .ok_or_else(|| Error::new("TypeError", "repr callback takes one argument"))?;
            Ok(Any::string(repr_at_depth(arg, hook_depth + 1)?))
        });
        let self_arg = Any::object(ObjectRef::from_borrowed(obj));
        let result = crate::value::function::call(
            hook.as_ptr(),
            &[*self_arg.as_raw(), *Any::object(fn_repr).as_raw()],
        )?;
        let text = crate::value::string::str_bytes(result.as_raw()).ok_or_else(|| {
            Error::new(
                "TypeError",
                format!("__ffi_repr__ of {} must return a str", type_key(ti)),
            )
        })?;
        let mut text = String::from_utf8_lossy(text).into_owned();
        if matches!(
            ti,
            tindex::ARRAY | tindex::LIST | tindex::MAP | tindex::DICT
        ) {
            text.push_str(&self.addr_suffix(obj));
        }
        Ok(text)
    }
}

/// The printed fields of a reflected object: name and value, without `ReprOff` fields and
/// without later fields of a name already seen.
///
/// # Safety
/// `obj` is a live object of type `ti`.
unsafe fn reflected_fields(ti: i32, obj: *mut TVMFFIObject) -> Result<Vec<(String, Any)>, Error> {
    let Some(info) = crate::registry::types::type_info(ti) else {
        return Ok(Vec::new());
    };
    let mut fields: Vec<(String, Any)> = Vec::new();
    for field in crate::registry::reflection::all_fields(info) {
        if field.flags & Flag::kTVMFFIFieldFlagBitMaskReprOff as i64 != 0 {
            continue;
        }
        let value = crate::registry::reflection::get_field(field, obj)?;
        let name = String::from_utf8_lossy(byte_array_slice(&field.name)).into_owned();
        if !fields.iter().any(|(seen, _)| *seen == name) {
            fields.push((name, value));
        }
    }
    Ok(fields)
}

/// The entries of a Map or Dict (ours or foreign), in iteration order.
fn map_entries(map: &TVMFFIAny) -> Result<Vec<(Any, Any)>, Error> {
    // SAFETY: `map` holds a live Map or Dict object.
    unsafe { crate::containers::map::MapView::from_raw(map.value.v_obj) }
        .map(|view| view.to_vec())
        .ok_or_else(|| Error::new("InternalError", "not a map object"))
}

// ---- `__ffi_repr__` hooks of ffi.reflection.AccessStep and ffi.reflection.AccessPath ----

/// Calls the `fn_repr` callback a repr hook receives.
fn repr_via(fn_repr: &TVMFFIAny, value: &TVMFFIAny) -> Result<String, Error> {
    if fn_repr.type_index != tindex::FUNCTION {
        return Err(Error::new(
            "TypeError",
            "the repr callback must be an ffi.Function",
        ));
    }
    // SAFETY: a live Function and a valid view.
    let text = unsafe { crate::value::function::call(fn_repr.value.v_obj, &[*value])? };
    // SAFETY: the result is an owned value.
    let bytes = unsafe { crate::value::string::str_bytes(text.as_raw()) }
        .ok_or_else(|| Error::new("TypeError", "the repr callback must return a str"))?;
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// The repr of one access step: `.field`, `[index]`, `[key]`, or `[<missing:...>]`.
fn step_text(step: &ObjectRef, fn_repr: &TVMFFIAny) -> Result<String, Error> {
    use crate::walks::access_path::kind;
    let (step_kind, key) = crate::walks::access_path::step_parts(step);
    let int_key = || match key.type_index() {
        // SAFETY: the tag says the payload is an integer.
        tindex::INT => Ok(unsafe { key.as_raw().value.v_int64 }),
        _ => Err(Error::new(
            "TypeError",
            "an array step's key must be an int",
        )),
    };
    Ok(match step_kind {
        kind::ATTR => {
            // SAFETY: the key is an owned value.
            let name = unsafe { crate::value::string::str_bytes(key.as_raw()) }
                .ok_or_else(|| Error::new("TypeError", "an attribute step's key must be a str"))?;
            format!(".{}", String::from_utf8_lossy(name))
        }
        kind::ARRAY_ITEM => format!("[{}]", int_key()?),
        kind::MAP_ITEM => format!("[{}]", repr_via(fn_repr, key.as_raw())?),
        kind::ARRAY_ITEM_MISSING => format!("[<missing:{}>]", int_key()?),
        kind::ATTR_MISSING | kind::MAP_ITEM_MISSING => {
            format!("[<missing:{}>]", repr_via(fn_repr, key.as_raw())?)
        }
        other => {
            return Err(Error::new(
                "ValueError",
                format!("unknown access kind {other}"),
            ))
        }
    })
}

/// A repr hook `(self, fn_repr) -> str` for objects of `type_index`.
fn repr_hook(
    type_index: i32,
    text: fn(&ObjectRef, &TVMFFIAny) -> Result<String, Error>,
) -> ObjectRef {
    crate::value::function::from_closure(move |args| match args {
        [this, fn_repr] if this.type_index == type_index => {
            // SAFETY: the tag says the payload is a live object of this type.
            let this = unsafe { ObjectRef::from_borrowed(this.value.v_obj) };
            Ok(Any::string(text(&this, fn_repr)?))
        }
        _ => Err(Error::new(
            "TypeError",
            format!(
                "__ffi_repr__ of {} takes (self, fn_repr)",
                type_key(type_index)
            ),
        )),
    })
}

/// The `__ffi_repr__` hook of ffi.reflection.AccessStep (`type_index` is its index).
pub fn access_step_repr_hook(type_index: i32) -> ObjectRef {
    repr_hook(type_index, step_text)
}

/// The `__ffi_repr__` hook of ffi.reflection.AccessPath: `<root>` followed by its steps.
pub fn access_path_repr_hook(type_index: i32) -> ObjectRef {
    repr_hook(type_index, |path, fn_repr| {
        let mut text = String::from("<root>");
        for step in crate::walks::access_path::path_steps(path)? {
            text.push_str(&repr_via(fn_repr, Any::object(step).as_raw())?);
        }
        Ok(text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_cpp_streams() {
        for (v, s) in [
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e10, "1e+10"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (1e-5, "1e-05"),
            (-2.0, "-2"),
            (0.0001, "0.0001"),
        ] {
            assert_eq!(format_float(v), s, "{v}");
        }
    }

    #[test]
    fn strings_escape_like_python() {
        assert_eq!(escape_str(b"a\"b\\\n\x01"), r#""a\"b\\\n\x01""#);
        assert_eq!(escape_str("é€😀".as_bytes()), r#""\u00e9\u20ac\U0001f600""#);
        assert_eq!(escape_bytes(b"a\x00\xff"), r#"b"a\x00\xff""#);
    }

    #[test]
    fn bigints_print_in_decimal() {
        let big = crate::value::string::bigint_any(&[0, 1]);
        assert_eq!(
            crate::containers::bigint::decimal(big.as_raw()),
            "18446744073709551616"
        );
        let negative = crate::value::string::bigint_any(&[0, -1]);
        assert_eq!(
            crate::containers::bigint::decimal(negative.as_raw()),
            "-18446744073709551616"
        );
    }

    #[test]
    fn scalars_and_objects() {
        assert_eq!(repr(Any::none().as_raw()).unwrap(), "None");
        assert_eq!(repr(Any::bool(true).as_raw()).unwrap(), "True");
        assert_eq!(
            repr(Any::string("hi there, long").as_raw()).unwrap(),
            "\"hi there, long\""
        );
        assert_eq!(
            repr(Any::object(crate::registry::reflection::missing_object()).as_raw()).unwrap(),
            "<MISSING>"
        );
    }

    /// Wraps an integer in `depth` alternating Arrays and Lists, with a string beside each.
    fn nested(depth: usize) -> Any {
        let mut value = Any::int(0);
        for level in 0..depth {
            value = if level % 2 == 0 {
                crate::containers::seq::Array::from_vec(vec![value]).into_any()
            } else {
                crate::containers::seq::List::from(vec![value, Any::string("s")]).into_any()
            };
        }
        value
    }

    #[test]
    fn shallow_containers_print_as_before() {
        assert_eq!(
            repr(nested(4).as_raw()).unwrap(),
            r#"[([(0,), "s"],), "s"]"#
        );
        let shared = nested(1);
        let map = crate::containers::map::Map::from_pairs([
            (Any::string("a"), shared.clone()),
            (Any::int(2), shared),
        ])
        .unwrap()
        .into_any();
        let text = repr(map.as_raw()).unwrap();
        assert!(
            text == r#"{"a": (0,), 2: (0,)}"# || text == r#"{2: (0,), "a": (0,)}"#,
            "{text}"
        );
    }

    #[test]
    fn nesting_100_000_deep_prints_on_a_small_stack() {
        const DEPTH: usize = 100_000;
        let text = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| repr(nested(DEPTH).as_raw()).map_err(|e| e.to_string()))
            .unwrap()
            .join()
            .expect("printing does not overflow the stack")
            .expect("printing deep values succeeds");
        let mut expected = String::from("0");
        for level in 0..DEPTH {
            expected = if level % 2 == 0 {
                format!("({expected},)")
            } else {
                format!("[{expected}, \"s\"]")
            };
            if level == 10 {
                break;
            }
        }
        assert!(
            text.contains(&expected),
            "inner levels print as shallow ones"
        );
        assert_eq!(text.matches('(').count(), DEPTH / 2);
        assert_eq!(text.matches('[').count(), DEPTH / 2);
        assert!(text.starts_with("[(["), "{}", &text[..20]);
    }
}
