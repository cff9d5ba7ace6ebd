//! Object types defined in JavaScript (`ffi.defineClass`, lib/define.js): the registration of a
//! type key, its fields and its methods in the runtime, so that its objects live in runtime
//! memory with a reflected layout and every language reads, writes, prints, compares,
//! serializes and copies them like objects of a type registered in C++.
//!
//! Only Apache's C ABI and `ffi.*` globals are used (the same machinery Apache's Python
//! `py_class` uses): a dynamic type index (`TVMFFITypeGetOrAllocIndex`), fields with the
//! runtime's generic getters (`ffi.MakeFieldGetter`) and setters (`ffi.MakeFieldSetter`) that
//! call [`convert_field`] to check and convert every written value, the allocator and the
//! `__ffi_init__` of types defined field by field (`ffi._PyClassRegisterTypeAttrColumns`), the
//! type's metadata (size, structural equality kind), and methods that check their arguments
//! and result around a JavaScript callback.
//!
//! Lifetimes: types are never unregistered, so what a type holds lives as long as the process:
//! the converters its setters point at (leaked on purpose), and the method functions and default
//! factories the registry holds (with the JavaScript functions they call).

use crate::convert::{int_any, ArgBuf, OwnedAny};
use crate::env::EnvData;
use crate::ffi;
use crate::fieldtype::{json_string, FieldType};
use crate::function;
use crate::napi::{self, napi_value, Error, Result, Type};
use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldGetter, TVMFFIFieldInfo,
    TVMFFIMethodInfo, TVMFFIObjectHandle, TVMFFITypeMetadata,
};
use ffihub_abi::tindex;
use std::ffi::c_void;

/// The size of the object header (`TVMFFIObject`), where the fields of a root type start.
const HEADER_SIZE: i64 = 24;

/// What a field's setter checks written values against.
struct FieldConverter {
    ty: FieldType,
    /// "field `count` of myapp.Config", for errors.
    what: String,
}

/// The converter `ffi.MakeFieldSetter` calls for every write of a field (any thread): the
/// context is the field's [`FieldConverter`].
unsafe extern "C" fn convert_field(
    ctx: *mut c_void,
    value: *const TVMFFIAny,
    out: *mut TVMFFIAny,
) -> i32 {
    let outcome = std::panic::catch_unwind(|| {
        // SAFETY: the context is a leaked FieldConverter; `value` is a valid view.
        let converter = unsafe { &*(ctx as *const FieldConverter) };
        converter
            .ty
            .convert_for(unsafe { &*value }, &converter.what)
    });
    function::finish_safe_call(outcome, out)
}

/// The index of a registered type key, or None (a lookup that allocates nothing).
fn lookup(key: &[u8]) -> Option<i32> {
    let array = ffi::byte_array(key);
    // SAFETY: the key views live bytes; parent -2 only looks the key up.
    let index = unsafe { ffi::TVMFFITypeGetOrAllocIndex(&array, -1, 0, 0, 0, -2) };
    (index >= 0).then_some(index)
}

/// Every field of a type, its ancestors' first.
fn all_fields(type_index: i32) -> Vec<&'static TVMFFIFieldInfo> {
    let mut out = Vec::new();
    for info in ffi::self_and_ancestors(type_index).into_iter().rev() {
        for i in 0..info.num_fields.max(0) as usize {
            // SAFETY: `fields` has `num_fields` records that live for the process.
            out.push(unsafe { &*info.fields.add(i) });
        }
    }
    out
}

/// Where the fields of a child of `parent` start: right after the last reflected field of the
/// parent and its ancestors (C++ compilers on Linux place a derived class's members in the
/// base's tail padding). An error when the parent's objects hold memory its reflected fields do
/// not describe (hidden C++ members): objects allocated from reflection alone cannot hold it.
fn child_offset(parent: i32, parent_key: &str) -> Result<i64> {
    let mut fields = all_fields(parent);
    fields.sort_by_key(|f| f.offset);
    let hidden = |from: i64, to: i64| {
        napi::error(format!(
            "cannot derive from {parent_key}: its objects have {} bytes (offset {from} to {to}) \
             that are not reflected fields, so a type defined from its reflection cannot lay them out",
            to - from
        ))
    };
    let mut end = HEADER_SIZE;
    for f in fields {
        if f.offset - end >= f.alignment.max(1) {
            return hidden(end, f.offset);
        }
        end = end.max(f.offset + f.size);
    }
    let info = ffi::type_info(parent).expect("a registered parent");
    // SAFETY: metadata, when present, lives as long as the type record.
    if let Some(meta) = unsafe { info.metadata.as_ref() } {
        let total = i64::from(meta.total_size);
        if total > align_up(end, 8) {
            return hidden(end, total);
        }
    }
    Ok(end)
}

fn align_up(x: i64, align: i64) -> i64 {
    (x + align - 1) / align * align
}

/// A field ready to register: everything checked.
struct PreparedField {
    name: String,
    doc: String,
    ty: FieldType,
    writable: bool,
    offset: i64,
    /// The default (owned): a value, or a factory Function when `factory`.
    default: Option<OwnedAny>,
    factory: bool,
}

/// `defineType(key, parentKey, fields, structureKind)`: registers a type whose fields are
/// `[{name, doc, type, writable, hasDefault, default, factory}]` (a type descriptor each, see
/// `FieldType::from_js`; `factory` a function making the default); returns its type index.
/// Every input is checked before anything is registered.
pub fn define_type(
    data: &EnvData,
    key: napi_value,
    parent_key: napi_value,
    fields: napi_value,
    structure_kind: i32,
) -> Result<i32> {
    let env = data.env;
    let key = env.get_rust_string(key)?;
    let parent_key = env.get_rust_string(parent_key)?;
    if lookup(key.as_bytes()).is_some() {
        return napi::error(format!(
            "the type key {key} is already registered; type keys are global to the process: \
             choose another one"
        ));
    }
    let Some(parent) = lookup(parent_key.as_bytes()) else {
        return napi::error(format!(
            "{key}: the parent type {parent_key} is not registered"
        ));
    };
    let mut offset = if parent == tindex::OBJECT {
        HEADER_SIZE
    } else {
        child_offset(parent, &parent_key)?
    };
    let inherited: Vec<&[u8]> = all_fields(parent)
        .iter()
        // SAFETY: field names are runtime-owned strings that live for the process.
        .map(|f| unsafe { ffi::bytes_of(&f.name) })
        .collect();
    let mut prepared: Vec<PreparedField> = Vec::new();
    for i in 0..env.array_len(fields)? {
        let spec = env.get_element(fields, i)?;
        let name = env.get_rust_string(env.get_named(spec, b"name\0")?)?;
        let what = format!("field `{name}` of {key}");
        if inherited.contains(&name.as_bytes()) || prepared.iter().any(|p| p.name == name) {
            return napi::error(format!("{what}: the name is already a field of the type"));
        }
        let ty = FieldType::from_js(env, env.get_named(spec, b"type\0")?)?;
        let flag = |n: &[u8]| -> Result<bool> {
            let v = env.get_named(spec, n)?;
            Ok(env.type_of(v)? == Type::napi_boolean && env.get_bool(v)?)
        };
        let factory = env.get_named(spec, b"factory\0")?;
        let (default, factory) = if env.type_of(factory)? == Type::napi_function {
            let f = function::js_callback(data, factory)?;
            (Some(OwnedAny(ffi::object_any(f))), true)
        } else if flag(b"hasDefault\0")? {
            let mut args = ArgBuf::new();
            args.push_js(data, env.get_named(spec, b"default\0")?)?;
            let given = &args.as_mut_slice()[0];
            let checked = ty
                .convert_for(given, &format!("the default of {what}"))
                .map_err(Error::Ffi)?;
            (Some(OwnedAny(checked)), false)
        } else {
            (None, false)
        };
        let (size, align, _) = ty.layout();
        offset = align_up(offset, align);
        prepared.push(PreparedField {
            name,
            doc: env.get_rust_string(env.get_named(spec, b"doc\0")?)?,
            ty,
            writable: flag(b"writable\0")?,
            offset,
            default,
            factory,
        });
        offset += size;
    }
    let total_size = align_up(offset, 8).max(HEADER_SIZE);

    let depth = ffi::self_and_ancestors(parent).len() as i32;
    let key_array = ffi::byte_array(key.as_bytes());
    // SAFETY: the key views live bytes; the parent is registered.
    let index = unsafe { ffi::TVMFFITypeGetOrAllocIndex(&key_array, -1, depth, 0, 1, parent) };
    if index < 0 {
        return Err(Error::Ffi(ffi::take_raised_error()));
    }
    for field in prepared {
        register_field(index, &key, field)?;
    }
    call_global(
        b"ffi._PyClassRegisterTypeAttrColumns",
        &[int_any(i64::from(index)), int_any(total_size)],
    )?;
    let metadata = TVMFFITypeMetadata {
        doc: ffi::byte_array(b""),
        creator: None,
        total_size: total_size as i32,
        structural_eq_hash_kind: structure_kind,
    };
    // SAFETY: a valid record for a registered type.
    check(unsafe { ffi::TVMFFITypeRegisterMetadata(index, &metadata) })?;
    Ok(index)
}

fn check(rc: i32) -> Result<()> {
    if rc != 0 {
        return Err(Error::Ffi(ffi::take_raised_error()));
    }
    Ok(())
}

/// Calls the global `name` with borrowed scalar arguments; returns the owned result.
fn call_global(name: &[u8], args: &[TVMFFIAny]) -> Result<OwnedAny> {
    let f = ffi::get_global(name).map_err(Error::Ffi)?;
    if f.is_null() {
        return napi::error(format!(
            "the runtime has no global `{}`",
            String::from_utf8_lossy(name)
        ));
    }
    let mut buf = ArgBuf::new();
    for a in args {
        buf.push(*a);
    }
    let result = function::call_raw(f, &mut buf);
    // SAFETY: our reference from get_global.
    unsafe { ffi::TVMFFIObjectDecRef(f) };
    result.map(OwnedAny)
}

fn register_field(index: i32, key: &str, field: PreparedField) -> Result<()> {
    let (size, align, static_index) = field.ty.layout();
    let schema = format!(
        "{{\"type_schema\":{}}}",
        json_string(&field.ty.schema_json())
    );
    let static_arg = int_any(i64::from(static_index));
    let getter = call_global(b"ffi.MakeFieldGetter", &[static_arg])?;
    let converter: &'static FieldConverter = Box::leak(Box::new(FieldConverter {
        what: format!("field `{}` of {key}", field.name),
        ty: field.ty,
    }));
    let setter = call_global(
        b"ffi.MakeFieldSetter",
        &[
            static_arg,
            int_any(converter as *const FieldConverter as i64),
            int_any(convert_field as *const () as usize as i64),
        ],
    )?;
    let mut flags = Flag::kTVMFFIFieldFlagBitSetterIsFunctionObj as i64;
    if field.writable {
        flags |= Flag::kTVMFFIFieldFlagBitMaskWritable as i64;
    }
    if field.default.is_some() {
        flags |= Flag::kTVMFFIFieldFlagBitMaskHasDefault as i64;
    }
    if field.factory {
        flags |= Flag::kTVMFFIFieldFlagBitMaskDefaultFromFactory as i64;
    }
    let info = TVMFFIFieldInfo {
        name: ffi::byte_array(field.name.as_bytes()),
        doc: ffi::byte_array(field.doc.as_bytes()),
        metadata: ffi::byte_array(schema.as_bytes()),
        flags,
        size,
        alignment: align,
        offset: field.offset,
        // SAFETY: `ffi.MakeFieldGetter` returns the address of a getter function.
        getter: unsafe {
            std::mem::transmute::<usize, TVMFFIFieldGetter>(ffi::payload_i64(&getter.0) as usize)
        },
        setter: ffi::payload_ptr(&setter.0),
        default_value_or_factory: field.default.as_ref().map_or_else(ffi::none, |d| d.0),
        field_static_type_index: static_index,
    };
    // SAFETY: the record's strings and values are live; the registry copies them (and takes its
    // own references to the setter and the default).
    check(unsafe { ffi::TVMFFITypeRegisterField(index, &info) })
}

/// A method: the JavaScript callback with the checks around it.
struct Method {
    /// The Function calling the JavaScript implementation (owned).
    callback: TVMFFIObjectHandle,
    /// The declared parameter types, `self` first for instance methods.
    params: Vec<FieldType>,
    ret: FieldType,
    /// "myapp.Config.scaled", for errors.
    label: String,
    is_static: bool,
}

// SAFETY: the callback is a Function (which may be called and released on any thread: calls
// from other threads are queued to its JavaScript thread); the rest is immutable.
unsafe impl Send for Method {}
unsafe impl Sync for Method {}

impl function::Callee for Method {
    fn call(&self, args: &[TVMFFIAny]) -> std::result::Result<TVMFFIAny, TVMFFIObjectHandle> {
        if args.len() != self.params.len() {
            let n = self.params.len();
            return Err(ffi::make_error(
                "TypeError",
                &format!(
                    "{} takes {n} argument{}{}, got {}",
                    self.label,
                    if n == 1 { "" } else { "s" },
                    if self.is_static {
                        ""
                    } else {
                        " (the object first)"
                    },
                    args.len()
                ),
                "",
            ));
        }
        let mut converted = ArgBuf::new();
        for (i, (ty, arg)) in self.params.iter().zip(args).enumerate() {
            let what = match (self.is_static, i) {
                (false, 0) => format!("the object of {}", self.label),
                (false, i) => format!("argument {i} of {}", self.label),
                (true, i) => format!("argument {} of {}", i + 1, self.label),
            };
            converted.push(ty.convert_for(arg, &what)?);
        }
        let args = converted.as_mut_slice();
        let mut result = ffi::none();
        // SAFETY: a live Function; valid owned arguments (still owned by `converted`).
        let rc = unsafe {
            ffi::TVMFFIFunctionCall(
                self.callback,
                args.as_mut_ptr(),
                args.len() as i32,
                &mut result,
            )
        };
        if rc != 0 {
            return Err(ffi::take_raised_error());
        }
        let result = OwnedAny(result);
        self.ret
            .convert_for(&result.0, &format!("the result of {}", self.label))
    }
}

impl Drop for Method {
    fn drop(&mut self) {
        // SAFETY: the method's reference to its callback.
        unsafe { ffi::TVMFFIObjectDecRef(self.callback) };
    }
}

/// `defineMethod(typeIndex, name, fn, params, returns, isStatic, doc)`: registers the
/// JavaScript function `fn` (called with the object first for instance methods) as a method of
/// a defined type, with its parameter and result type descriptors.
pub fn define_method(data: &EnvData, args: &[napi_value; 7]) -> Result<()> {
    let env = data.env;
    let index = crate::arg_i32(env, args[0], "typeIndex")?;
    let name = env.get_rust_string(args[1])?;
    if env.type_of(args[2])? != Type::napi_function {
        return napi::type_error(format!("the method {name} must be a function"));
    }
    let is_static = env.get_bool(args[5])?;
    let key = ffi::type_key(index);
    let mut params = Vec::new();
    if !is_static {
        params.push(FieldType::object(&key));
    }
    for i in 0..env.array_len(args[3])? {
        params.push(FieldType::from_js(env, env.get_element(args[3], i)?)?);
    }
    let ret = FieldType::from_js(env, args[4])?;
    let doc = env.get_rust_string(args[6])?;
    let schema: Vec<String> = params.iter().map(FieldType::schema_json).collect();
    let metadata = format!(
        "{{\"type_schema\":{}}}",
        json_string(&format!(
            "{{\"type\":\"ffi.Function\",\"named_args\":{{\"return\":[{}],\"params\":[{}]}}}}",
            ret.schema_json(),
            schema.join(",")
        ))
    );
    let callback = function::js_callback(data, args[2])?;
    let func = function::new_function(Method {
        callback,
        params,
        ret,
        label: format!("{key}.{name}"),
        is_static,
    })?;
    let func = OwnedAny(ffi::object_any(func));
    let flags = if is_static {
        Flag::kTVMFFIFieldFlagBitMaskIsStaticMethod as i64
    } else {
        0
    };
    let info = TVMFFIMethodInfo {
        name: ffi::byte_array(name.as_bytes()),
        doc: ffi::byte_array(doc.as_bytes()),
        metadata: ffi::byte_array(metadata.as_bytes()),
        flags,
        method: func.0,
    };
    // SAFETY: a valid record; the registry copies the strings and takes its own reference to
    // the function (ours is released when `func` drops).
    check(unsafe { ffi::TVMFFITypeRegisterMethod(index, &info) })
}
