//! Reflection globals: type keys, field accessors for types defined at run time, the generated
//! `__ffi_init__`, the sentinel objects, and `ffi.ReprPrint`.

use crate::abi::{
    TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo, TVMFFIObject, TVMFFITypeInfo,
};
use crate::registry::args::Call;
use crate::registry::define::{def_packed, def_typed, Globals};
use crate::registry::reflection::{
    all_fields, create_empty, kwargs_object, missing_object, new_reflected, set_field,
    set_field_to_default, shallow_copy, Accessor,
};
use crate::registry::type_schema::{Ty, ANY, INT, NONE, OBJECT, PACKED_FUNCTION, STRING};
use crate::tindex;
use crate::value::any::{byte_array_slice, Any, RAW_NONE};
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Arc;

pub(crate) fn type_info_of(type_index: i32) -> Result<&'static TVMFFITypeInfo, Error> {
    crate::registry::types::type_info(type_index).ok_or_else(|| {
        Error::new(
            "ValueError",
            format!("Cannot find type info for type_index={type_index}"),
        )
    })
}

fn type_key(info: &TVMFFITypeInfo) -> String {
    // SAFETY: type keys point at registry-owned storage.
    String::from_utf8_lossy(unsafe { byte_array_slice(&info.type_key) }).into_owned()
}

/// What the generated `__ffi_init__` knows about a type's fields.
struct InitPlan {
    info: &'static TVMFFITypeInfo,
    type_key: String,
    fields: Vec<&'static TVMFFIFieldInfo>,
    /// Fields taken positionally: required ones first, then those with defaults.
    positional: Vec<usize>,
    by_name: HashMap<Vec<u8>, usize>,
}

fn flag(field: &TVMFFIFieldInfo, bit: Flag) -> bool {
    field.flags & bit as i64 != 0
}

impl InitPlan {
    fn new(info: &'static TVMFFITypeInfo) -> InitPlan {
        // SAFETY: `info` is registered.
        let fields = unsafe { all_fields(info) };
        let mut required = Vec::new();
        let mut optional = Vec::new();
        let mut by_name = HashMap::new();
        for (i, field) in fields.iter().enumerate() {
            if flag(field, Flag::kTVMFFIFieldFlagBitMaskInitOff) {
                continue;
            }
            // SAFETY: field names point at registry-owned storage.
            by_name.insert(unsafe { byte_array_slice(&field.name) }.to_vec(), i);
            if !flag(field, Flag::kTVMFFIFieldFlagBitMaskKwOnly) {
                if flag(field, Flag::kTVMFFIFieldFlagBitMaskHasDefault) {
                    optional.push(i);
                } else {
                    required.push(i);
                }
            }
        }
        required.extend(optional);
        InitPlan {
            info,
            type_key: type_key(info),
            fields,
            positional: required,
            by_name,
        }
    }

    fn name(&self, i: usize) -> String {
        // SAFETY: as in `new`.
        String::from_utf8_lossy(unsafe { byte_array_slice(&self.fields[i].name) }).into_owned()
    }

    fn type_error(&self, message: String) -> Error {
        Error::new(
            "TypeError",
            format!("{}.__ffi_init__() {message}", self.type_key),
        )
    }

    /// Wraps a setter's error with the field it was for.
    fn setter_error(&self, i: usize, what: &str, error: Error) -> Error {
        let nested = String::from_utf8_lossy(error.message()).replace('\n', "\n  ");
        let message = format!(
            "{}.__ffi_init__() {what} '{}':\n  {nested}",
            self.type_key,
            self.name(i)
        );
        Error::from_parts(
            error.kind(),
            message.as_bytes(),
            error.backtrace(),
            Some(error.clone().into_object()),
            None,
        )
    }

    fn bind(&self, obj: &ObjectRef, args: &[TVMFFIAny]) -> Result<(), Error> {
        let kwargs = kwargs_object();
        let mut set = vec![false; self.fields.len()];
        let assign = |i: usize, value: &TVMFFIAny, set: &mut Vec<bool>| -> Result<(), Error> {
            // SAFETY: the field belongs to the object's type; `value` is a valid view.
            unsafe { set_field(self.fields[i], obj.as_ptr(), value) }
                .map_err(|e| self.setter_error(i, "field", e))?;
            set[i] = true;
            Ok(())
        };
        let split = args
            .iter()
            // SAFETY: reading the object payload of object-typed views.
            .position(|a| {
                crate::value::object::is_object_index(a.type_index)
                    && unsafe { a.value.v_obj } == kwargs.as_ptr()
            });
        let positional = &args[..split.unwrap_or(args.len())];
        if positional.len() > self.positional.len() {
            return Err(self.type_error(format!(
                "takes at most {} positional argument(s), but {} were given",
                self.positional.len(),
                positional.len()
            )));
        }
        for (value, &i) in positional.iter().zip(&self.positional) {
            assign(i, value, &mut set)?;
        }
        if let Some(split) = split {
            let pairs = &args[split + 1..];
            if !pairs.len().is_multiple_of(2) {
                return Err(
                    self.type_error("KWARGS requires an even number of key-value arguments".into())
                );
            }
            for pair in pairs.chunks_exact(2) {
                // SAFETY: keys are valid views.
                let key = unsafe { crate::value::string::str_bytes(&pair[0]) }
                    .ok_or_else(|| self.type_error("keyword names must be strings".into()))?;
                let key_text = String::from_utf8_lossy(key);
                let &i = self.by_name.get(key).ok_or_else(|| {
                    self.type_error(format!("got an unexpected keyword argument '{key_text}'"))
                })?;
                if set[i] {
                    return Err(
                        self.type_error(format!("got multiple values for argument '{key_text}'"))
                    );
                }
                assign(i, &pair[1], &mut set)?;
            }
        }
        for (i, field) in self.fields.iter().enumerate() {
            if set[i] {
                continue;
            }
            if flag(field, Flag::kTVMFFIFieldFlagBitMaskHasDefault) {
                // SAFETY: as for `assign`.
                unsafe { set_field_to_default(field, obj.as_ptr()) }
                    .map_err(|e| self.setter_error(i, "default for field", e))?;
            } else if !flag(field, Flag::kTVMFFIFieldFlagBitMaskInitOff) {
                let kind = if flag(field, Flag::kTVMFFIFieldFlagBitMaskKwOnly) {
                    "keyword-only argument"
                } else {
                    "argument"
                };
                return Err(self.type_error(format!("missing required {kind}: '{}'", self.name(i))));
            }
        }
        Ok(())
    }
}

/// The `__ffi_init__` Apache generates from a type's reflected fields.
// SAFETY: the plan points only at registry records, which are immutable once published and
// never freed.
unsafe impl Send for InitPlan {}
unsafe impl Sync for InitPlan {}

/// The generated `__ffi_init__` of a type: binds positional and keyword (KWARGS) arguments to
/// its reflected fields and fills defaults.
pub(crate) fn make_init(type_index: i32) -> Result<ObjectRef, Error> {
    let plan = Arc::new(InitPlan::new(type_info_of(type_index)?));
    Ok(crate::value::function::from_closure(move |args| {
        let obj = create_empty(plan.info)?;
        plan.bind(&obj, args)?;
        Ok(Any::object(obj))
    }))
}

pub(crate) fn register_attr(
    type_index: i32,
    name: &[u8],
    function: ObjectRef,
) -> Result<(), Error> {
    crate::registry::types::register_attr(type_index, name, Any::object(function).as_raw())
}

/// `ffi._PyClassRegisterTypeAttrColumns`: constructor, allocator and shallow copy for a type a
/// binding defined field by field.
fn register_runtime_class(type_index: i32, total_size: i64) -> Result<(), Error> {
    let size = object_size(total_size)?;
    type_info_of(type_index)?;
    register_attr(type_index, b"__ffi_init__", make_init(type_index)?)?;
    let copy = register_allocator(type_index, size)?;
    register_attr(type_index, b"__ffi_shallow_copy__", copy)
}

/// A binding's `total_size` of a type defined at run time, checked.
pub(crate) fn object_size(total_size: i64) -> Result<usize, Error> {
    usize::try_from(total_size)
        .ok()
        .filter(|s| *s >= std::mem::size_of::<TVMFFIObject>())
        .ok_or_else(|| Error::new("ValueError", format!("invalid total_size {total_size}")))
}

/// Registers `__ffi_new__` (zeroed objects of `size` bytes) for a type defined at run time;
/// returns its shallow copy function, for the caller to register.
pub(crate) fn register_allocator(type_index: i32, size: usize) -> Result<ObjectRef, Error> {
    let new = crate::value::function::from_closure(move |_| {
        Ok(Any::object(new_reflected(type_index, size)))
    });
    register_attr(type_index, b"__ffi_new__", new)?;
    Ok(crate::value::function::from_closure(move |args| {
        match args.first() {
            Some(src) if src.type_index == type_index => {
                // SAFETY: the argument is a live object of this type.
                Ok(Any::object(unsafe { shallow_copy(src.value.v_obj, size)? }))
            }
            _ => Err(Error::new(
                "TypeError",
                "__ffi_shallow_copy__ expects an object of its type",
            )),
        }
    }))
}

/// `ffi.MakeFieldGetter(field_type_index)`: the address of the C getter of a field's storage kind.
pub(crate) fn field_getter(call: &Call) -> Result<Any, Error> {
    Ok(Any::int(
        Accessor::for_type_index(call.int(0)? as i32)?.getter() as usize as i64,
    ))
}

/// `ffi.MakeFieldSetter`: a setter Function converting values with a binding's C converter.
fn make_field_setter(call: &Call) -> Result<Any, Error> {
    let field_type_index = call.int(0)? as i32;
    let accessor = Accessor::for_type_index(field_type_index).map_err(|_| {
        Error::new(
            "ValueError",
            format!("Unsupported field type index for setter: {field_type_index}"),
        )
    })?;
    let converter = call.int(1)? as usize;
    let convert = call.int(2)? as usize;
    if convert == 0 {
        return Err(Error::new(
            "ValueError",
            "ffi.MakeFieldSetter needs a converter function",
        ));
    }
    type Convert = unsafe extern "C" fn(*mut c_void, *const TVMFFIAny, *mut TVMFFIAny) -> i32;
    // SAFETY: the caller passes the address of a function with this signature.
    let convert: Convert = unsafe { std::mem::transmute::<usize, Convert>(convert) };
    let setter = crate::value::function::from_closure(move |args| {
        let [field, value] = args else {
            return Err(Error::new(
                "TypeError",
                "a field setter takes (field address, value)",
            ));
        };
        if field.type_index != tindex::OPAQUE_PTR {
            return Err(Error::new(
                "TypeError",
                "a field setter's first argument is the field address",
            ));
        }
        let mut converted = RAW_NONE;
        // SAFETY: the converter follows the safe-call convention; on success `converted` is owned.
        let converted = unsafe {
            match convert(converter as *mut c_void, value, &mut converted) {
                0 => Any::from_raw(converted),
                code => return Err(crate::value::error::take_raised_or_unknown(code)),
            }
        };
        // SAFETY: the binding passes the address of a field of this storage kind.
        unsafe { accessor.write(field.value.v_ptr.cast(), converted.as_raw())? };
        Ok(Any::none())
    });
    Ok(Any::object(setter))
}

/// `ffi.MakeObjectFromPackedArgs(type_index_or_key, k0, v0, ...)`: creates an object and sets
/// the named fields.
fn make_object_from_packed_args(args: &[TVMFFIAny]) -> Result<Any, Error> {
    let first = args
        .first()
        .ok_or_else(|| Error::new("TypeError", "ffi.MakeObjectFromPackedArgs needs a type"))?;
    let type_index = match first.type_index {
        // SAFETY: the tag says the payload is an integer.
        tindex::INT => (unsafe { first.value.v_int64 }) as i32,
        // SAFETY: `first` is a valid view.
        _ => match unsafe { crate::value::string::str_bytes(first) } {
            Some(key) => crate::registry::types::key_to_index(key).ok_or_else(|| {
                Error::new(
                    "ValueError",
                    format!("unknown type `{}`", String::from_utf8_lossy(key)),
                )
            })?,
            None => {
                return Err(Error::new(
                    "TypeError",
                    "the first argument must be a type index or key",
                ))
            }
        },
    };
    let rest = &args[1..];
    if !rest.len().is_multiple_of(2) {
        return Err(Error::new(
            "TypeError",
            "ffi.MakeObjectFromPackedArgs takes key-value pairs after the type",
        ));
    }
    let info = type_info_of(type_index)?;
    let keys = rest
        .chunks_exact(2)
        // SAFETY: keys are valid views.
        .map(|pair| unsafe { crate::value::string::str_bytes(&pair[0]) })
        .collect::<Option<Vec<&[u8]>>>()
        .ok_or_else(|| Error::new("TypeError", "field names must be strings"))?;
    let mut used = vec![false; keys.len()];
    let obj = create_empty(info)?;
    // Fields are filled ancestors first: from the named arguments, else from their defaults;
    // a field with neither is an error.
    // SAFETY: `info` is registered.
    for field in unsafe { all_fields(info) } {
        // SAFETY: field names point at registry-owned storage.
        let name = unsafe { byte_array_slice(&field.name) };
        let given = (0..keys.len()).find(|&i| !used[i] && keys[i] == name);
        // SAFETY: the field belongs to the object's type; values are valid views.
        unsafe {
            match given {
                Some(i) => {
                    used[i] = true;
                    set_field(field, obj.as_ptr(), &rest[2 * i + 1])?
                }
                None if field.flags & Flag::kTVMFFIFieldFlagBitMaskHasDefault as i64 != 0 => {
                    set_field_to_default(field, obj.as_ptr())?
                }
                None => {
                    return Err(Error::new(
                        "TypeError",
                        format!(
                            "Required field `{}` not set in type `{}`",
                            String::from_utf8_lossy(name),
                            type_key(info)
                        ),
                    ))
                }
            }
        }
    }
    if let Some(i) = used.iter().position(|&u| !u) {
        return Err(Error::new(
            "TypeError",
            format!(
                "Type `{}` does not have field `{}`",
                type_key(info),
                String::from_utf8_lossy(keys[i])
            ),
        ));
    }
    Ok(Any::object(obj))
}

pub(super) fn register(globals: &mut Globals) {
    def_typed(
        globals,
        "ffi.GetRegisteredTypeKeys",
        Ty::Generic("ffi.Array", vec![STRING]),
        vec![],
        |_| {
            let keys: Vec<Any> = crate::registry::types::registered_keys()
                .iter()
                .map(Any::string)
                .collect();
            let views: Vec<TVMFFIAny> = keys.iter().map(|k| *k.as_raw()).collect();
            let array = crate::registry::globals::get(b"ffi.Array")
                .ok_or_else(|| Error::new("RuntimeError", "ffi.Array is missing"))?;
            // SAFETY: registered functions are live.
            unsafe { crate::value::function::call(array.function.as_ptr(), &views) }
        },
    );
    def_typed(globals, "ffi.GetInvalidObject", OBJECT, vec![], |_| {
        Ok(Any::object(missing_object()))
    });
    def_typed(globals, "ffi.GetKwargsObject", OBJECT, vec![], |_| {
        Ok(Any::object(kwargs_object()))
    });
    def_typed(globals, "ffi.MakeFieldGetter", INT, vec![INT], field_getter);
    def_typed(
        globals,
        "ffi.MakeFieldSetter",
        PACKED_FUNCTION,
        vec![INT, INT, INT],
        make_field_setter,
    );
    def_typed(globals, "ffi._RegisterFFIInit", NONE, vec![INT], |call| {
        let type_index = call.int(0)? as i32;
        register_attr(type_index, b"__ffi_init__", make_init(type_index)?)?;
        Ok(Any::none())
    });
    def_typed(
        globals,
        "ffi._PyClassRegisterTypeAttrColumns",
        NONE,
        vec![INT, INT],
        |call| {
            register_runtime_class(call.int(0)? as i32, call.int(1)?)?;
            Ok(Any::none())
        },
    );
    def_packed(
        globals,
        "ffi.MakeObjectFromPackedArgs",
        make_object_from_packed_args,
    );
    def_typed(globals, "ffi.ReprPrint", STRING, vec![ANY], |call| {
        Ok(Any::string(crate::walks::repr::repr(call.any(0))?))
    });
}
