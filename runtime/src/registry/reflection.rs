//! Reflection machinery for objects whose layout is described only by their field records: types
//! defined by this runtime itself and types that language bindings define at run time (through
//! `ffi.MakeFieldGetter`, `ffi.MakeFieldSetter`, `ffi._PyClassRegisterTypeAttrColumns`).
//!
//! Such objects are zero-initialized blocks of `total_size` bytes; each field's storage follows
//! from its static type index and size, as in Apache's runtime: `Any` (16 bytes, owned value),
//! object reference (8 bytes, nullable, one strong reference), or plain data.

use crate::abi::{
    TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo, TVMFFIObject, TVMFFIObjectHandle,
    TVMFFITypeInfo,
};
use crate::dlpack::{DLDataType, DLDevice};
use crate::tindex;
use crate::value::any::{view_to_owned, Any, RAW_NONE};
use crate::value::error::{raise, Error};
use crate::value::object::{alloc_raw, free_raw, ObjectRef, DELETE_STRONG, DELETE_WEAK};
use std::ffi::c_void;
use std::sync::OnceLock;

/// How a field is stored in its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// A 16-byte owned `TVMFFIAny` (also strings, which Apache stores the same way).
    Any,
    /// An 8-byte nullable object pointer holding one strong reference.
    ObjectRef,
    /// Plain data: nothing to release.
    Pod,
}

/// The storage of a field, from its static type index and size (Apache's rule).
pub fn storage_of(field: &TVMFFIFieldInfo) -> Storage {
    let ti = field.field_static_type_index;
    if ti == tindex::ANY {
        if field.size == 8 {
            Storage::ObjectRef
        } else {
            Storage::Any
        }
    } else if ti >= tindex::OBJECT {
        Storage::ObjectRef
    } else {
        Storage::Pod
    }
}

/// Every field of a type, ancestors' first (the root object has none).
///
/// # Safety
/// `info` is a registered type info.
pub unsafe fn all_fields(info: &TVMFFITypeInfo) -> Vec<&'static TVMFFIFieldInfo> {
    let mut fields = Vec::new();
    for depth in 1..info.type_depth.max(0) as usize {
        let ancestor = &**info.type_ancestors.add(depth);
        fields.extend((0..ancestor.num_fields as usize).map(|i| &*ancestor.fields.add(i)));
    }
    fields.extend((0..info.num_fields as usize).map(|i| &*info.fields.add(i)));
    fields
}

/// The fields of a type that hold storage: [`all_fields`] without the aliases, the fields at the
/// offset of an earlier field (the same storage under another name, such as `ffi.IntEnum`'s
/// `value` over `_int_index`). Walks that own or copy what fields hold go over these, so that
/// each value is released or copied once.
///
/// # Safety
/// As for [`all_fields`].
pub unsafe fn storage_fields(info: &TVMFFITypeInfo) -> Vec<&'static TVMFFIFieldInfo> {
    let mut fields: Vec<&'static TVMFFIFieldInfo> = Vec::new();
    for field in all_fields(info) {
        if !fields.iter().any(|f| f.offset == field.offset) {
            fields.push(field);
        }
    }
    fields
}

/// Releases the references held by an object's reflected fields.
unsafe fn release_fields(obj: *mut TVMFFIObject) {
    let Some(info) = crate::registry::types::type_info((*obj).type_index) else {
        return;
    };
    for field in storage_fields(info) {
        let addr = obj.cast::<u8>().add(field.offset as usize);
        match storage_of(field) {
            Storage::Any => drop(Any::from_raw(addr.cast::<TVMFFIAny>().read_unaligned())),
            Storage::ObjectRef => {
                crate::value::object::dec_ref(addr.cast::<*mut TVMFFIObject>().read_unaligned())
            }
            Storage::Pod => {}
        }
    }
}

/// Deleter of reflected objects.
unsafe extern "C" fn delete_reflected(obj: *mut c_void, flags: i32) {
    if flags & DELETE_STRONG != 0 {
        release_fields(obj.cast());
    }
    if flags & DELETE_WEAK != 0 {
        free_raw(obj);
    }
}

/// A new zero-initialized object of `type_index` with `total_size` bytes (header included).
pub fn new_reflected(type_index: i32, total_size: usize) -> ObjectRef {
    alloc_raw(
        type_index,
        total_size.max(std::mem::size_of::<TVMFFIObject>()),
        Some(delete_reflected),
    )
}

/// A `TVMFFIObjectCreator` for a reflected type with a fixed index and size.
///
/// # Safety
/// `out` is NULL or valid for a write.
pub unsafe extern "C" fn create_reflected<const TYPE_INDEX: i32, const TOTAL_SIZE: usize>(
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    if out.is_null() {
        return raise(Error::new("ValueError", "out must not be NULL"));
    }
    *out = new_reflected(TYPE_INDEX, TOTAL_SIZE).into_raw().cast();
    0
}

/// A shallow copy of a reflected object: same type, fields copied with new references.
///
/// # Safety
/// `src` is a live reflected object of a registered type of `total_size` bytes.
pub unsafe fn shallow_copy(src: *mut TVMFFIObject, total_size: usize) -> Result<ObjectRef, Error> {
    let type_index = (*src).type_index;
    let info = crate::registry::types::type_info(type_index)
        .ok_or_else(|| Error::new("RuntimeError", format!("unknown type index {type_index}")))?;
    let copy = new_reflected(type_index, total_size);
    for field in storage_fields(info) {
        let offset = field.offset as usize;
        let (from, to) = (
            src.cast::<u8>().add(offset),
            copy.as_ptr().cast::<u8>().add(offset),
        );
        match storage_of(field) {
            Storage::Any => to
                .cast::<TVMFFIAny>()
                .write(Accessor::Any.read(from).into_raw()),
            Storage::ObjectRef => {
                let ptr = from.cast::<*mut TVMFFIObject>().read();
                if !ptr.is_null() {
                    crate::value::object::inc_ref(ptr);
                }
                to.cast::<*mut TVMFFIObject>().write(ptr);
            }
            Storage::Pod => std::ptr::copy_nonoverlapping(from, to, field.size as usize),
        }
    }
    Ok(copy)
}

/// Which generic accessor serves a field, from its static type index (the argument of
/// `ffi.MakeFieldGetter` / `ffi.MakeFieldSetter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accessor {
    I64,
    I32,
    F64,
    Bool,
    OpaquePtr,
    DataType,
    Device,
    Any,
    ObjectRef,
}

impl Accessor {
    /// The accessor for a field type index as `ffi.MakeFieldGetter` takes it.
    pub fn for_type_index(field_type_index: i32) -> Result<Accessor, Error> {
        Ok(match field_type_index {
            tindex::INT => Accessor::I64,
            tindex::FLOAT => Accessor::F64,
            tindex::BOOL => Accessor::Bool,
            tindex::OPAQUE_PTR => Accessor::OpaquePtr,
            tindex::DATA_TYPE => Accessor::DataType,
            tindex::DEVICE => Accessor::Device,
            tindex::ANY | tindex::NONE => Accessor::Any,
            t if t >= tindex::OBJECT => Accessor::ObjectRef,
            t => {
                return Err(Error::new(
                    "ValueError",
                    format!("Unsupported field type index for getter: {t}"),
                ))
            }
        })
    }

    /// The C getter.
    pub fn getter(self) -> unsafe extern "C" fn(*mut c_void, *mut TVMFFIAny) -> i32 {
        match self {
            Accessor::I64 => get::<{ Accessor::I64 as u8 }>,
            Accessor::I32 => get::<{ Accessor::I32 as u8 }>,
            Accessor::F64 => get::<{ Accessor::F64 as u8 }>,
            Accessor::Bool => get::<{ Accessor::Bool as u8 }>,
            Accessor::OpaquePtr => get::<{ Accessor::OpaquePtr as u8 }>,
            Accessor::DataType => get::<{ Accessor::DataType as u8 }>,
            Accessor::Device => get::<{ Accessor::Device as u8 }>,
            Accessor::Any => get::<{ Accessor::Any as u8 }>,
            Accessor::ObjectRef => get::<{ Accessor::ObjectRef as u8 }>,
        }
    }

    /// The C setter.
    pub fn setter(self) -> unsafe extern "C" fn(*mut c_void, *const TVMFFIAny) -> i32 {
        match self {
            Accessor::I64 => set::<{ Accessor::I64 as u8 }>,
            Accessor::I32 => set::<{ Accessor::I32 as u8 }>,
            Accessor::F64 => set::<{ Accessor::F64 as u8 }>,
            Accessor::Bool => set::<{ Accessor::Bool as u8 }>,
            Accessor::OpaquePtr => set::<{ Accessor::OpaquePtr as u8 }>,
            Accessor::DataType => set::<{ Accessor::DataType as u8 }>,
            Accessor::Device => set::<{ Accessor::Device as u8 }>,
            Accessor::Any => set::<{ Accessor::Any as u8 }>,
            Accessor::ObjectRef => set::<{ Accessor::ObjectRef as u8 }>,
        }
    }

    fn from_tag(tag: u8) -> Accessor {
        [
            Accessor::I64,
            Accessor::I32,
            Accessor::F64,
            Accessor::Bool,
            Accessor::OpaquePtr,
            Accessor::DataType,
            Accessor::Device,
            Accessor::Any,
            Accessor::ObjectRef,
        ][tag as usize]
    }

    /// Reads the field at `field` as an owned value.
    ///
    /// # Safety
    /// `field` points at storage of this accessor's kind.
    pub unsafe fn read(self, field: *const u8) -> Any {
        match self {
            Accessor::I64 => Any::int(field.cast::<i64>().read_unaligned()),
            Accessor::I32 => Any::int(field.cast::<i32>().read_unaligned() as i64),
            Accessor::F64 => Any::float(field.cast::<f64>().read_unaligned()),
            Accessor::Bool => Any::bool(field.read() != 0),
            Accessor::OpaquePtr => Any::opaque_ptr(field.cast::<*mut c_void>().read_unaligned()),
            Accessor::DataType => Any::dtype(field.cast::<DLDataType>().read_unaligned()),
            Accessor::Device => Any::device(field.cast::<DLDevice>().read_unaligned()),
            Accessor::Any => {
                let value = field.cast::<TVMFFIAny>().read_unaligned();
                if crate::value::object::is_object_index(value.type_index) {
                    crate::value::object::inc_ref(value.value.v_obj);
                }
                Any::from_raw(value)
            }
            Accessor::ObjectRef => {
                let ptr = field.cast::<*mut TVMFFIObject>().read_unaligned();
                if ptr.is_null() {
                    Any::none()
                } else {
                    Any::object(ObjectRef::from_borrowed(ptr))
                }
            }
        }
    }

    /// Writes `value` into the field at `field`, converting as Apache's setters do.
    ///
    /// # Safety
    /// `field` points at storage of this accessor's kind; `value` is a valid view.
    pub unsafe fn write(self, field: *mut u8, value: &TVMFFIAny) -> Result<(), Error> {
        let int = || match value.type_index {
            tindex::INT | tindex::BOOL => Ok(value.value.v_int64),
            _ => Err(mismatch("int", value)),
        };
        match self {
            Accessor::I64 => field.cast::<i64>().write_unaligned(int()?),
            Accessor::I32 => field
                .cast::<i32>()
                .write_unaligned(i32::try_from(int()?).map_err(|_| {
                    Error::new("OverflowError", "value does not fit in a 32-bit field")
                })?),
            Accessor::F64 => field.cast::<f64>().write_unaligned(match value.type_index {
                tindex::FLOAT => value.value.v_float64,
                tindex::INT | tindex::BOOL => value.value.v_int64 as f64,
                _ => return Err(mismatch("float", value)),
            }),
            Accessor::Bool => field.write(u8::from(int()? != 0)),
            Accessor::OpaquePtr => {
                field
                    .cast::<*mut c_void>()
                    .write_unaligned(match value.type_index {
                        tindex::NONE => std::ptr::null_mut(),
                        tindex::OPAQUE_PTR => value.value.v_ptr,
                        _ => return Err(mismatch("void*", value)),
                    })
            }
            Accessor::DataType => {
                field
                    .cast::<DLDataType>()
                    .write_unaligned(match value.type_index {
                        tindex::DATA_TYPE => value.value.v_dtype,
                        _ => return Err(mismatch("DataType", value)),
                    })
            }
            Accessor::Device => field
                .cast::<DLDevice>()
                .write_unaligned(match value.type_index {
                    tindex::DEVICE => value.value.v_device,
                    _ => return Err(mismatch("Device", value)),
                }),
            Accessor::Any => {
                let owned = view_to_owned(value)?;
                let slot = field.cast::<TVMFFIAny>();
                drop(Any::from_raw(slot.read_unaligned()));
                slot.write_unaligned(owned.into_raw());
            }
            Accessor::ObjectRef => {
                let new = match value.type_index {
                    tindex::NONE => std::ptr::null_mut(),
                    t if crate::value::object::is_object_index(t) => {
                        crate::value::object::inc_ref(value.value.v_obj);
                        value.value.v_obj
                    }
                    _ => return Err(mismatch("ffi.Object", value)),
                };
                let slot = field.cast::<*mut TVMFFIObject>();
                crate::value::object::dec_ref(slot.read_unaligned());
                slot.write_unaligned(new);
            }
        }
        Ok(())
    }
}

fn mismatch(expected: &str, value: &TVMFFIAny) -> Error {
    Error::new(
        "TypeError",
        format!(
            "Cannot convert from type `{}` to `{expected}`",
            crate::registry::types::type_key_of(value.type_index)
        ),
    )
}

unsafe extern "C" fn get<const TAG: u8>(field: *mut c_void, result: *mut TVMFFIAny) -> i32 {
    *result = Accessor::from_tag(TAG).read(field.cast()).into_raw();
    0
}

unsafe extern "C" fn set<const TAG: u8>(field: *mut c_void, value: *const TVMFFIAny) -> i32 {
    match Accessor::from_tag(TAG).write(field.cast(), &*value) {
        Ok(()) => 0,
        Err(error) => raise(error),
    }
}

/// Calls a field's setter (a C function, or a Function object when the flag says so).
///
/// # Safety
/// `field` belongs to the type of the object at `obj`; `value` is a valid view.
pub unsafe fn set_field(
    field: &TVMFFIFieldInfo,
    obj: *mut TVMFFIObject,
    value: &TVMFFIAny,
) -> Result<(), Error> {
    let addr = obj.cast::<u8>().add(field.offset as usize).cast::<c_void>();
    if field.setter.is_null() {
        return Err(Error::new(
            "AttributeError",
            format!(
                "field `{}` is read-only",
                String::from_utf8_lossy(crate::value::any::byte_array_slice(&field.name))
            ),
        ));
    }
    if field.flags & Flag::kTVMFFIFieldFlagBitSetterIsFunctionObj as i64 != 0 {
        let args = [*Any::opaque_ptr(addr).as_raw(), *value];
        crate::value::function::call(field.setter.cast(), &args).map(drop)
    } else {
        let setter: unsafe extern "C" fn(*mut c_void, *const TVMFFIAny) -> i32 =
            std::mem::transmute(field.setter);
        match setter(addr, value) {
            0 => Ok(()),
            code => Err(crate::value::error::take_raised_or_unknown(code)),
        }
    }
}

/// Sets a field to its default (calling the factory when the field says so).
///
/// # Safety
/// As for [`set_field`].
pub unsafe fn set_field_to_default(
    field: &TVMFFIFieldInfo,
    obj: *mut TVMFFIObject,
) -> Result<(), Error> {
    if field.flags & Flag::kTVMFFIFieldFlagBitMaskDefaultFromFactory as i64 != 0 {
        let factory = &field.default_value_or_factory;
        if !crate::value::object::is_object_index(factory.type_index) {
            return Err(Error::new("TypeError", "default factory is not a Function"));
        }
        let value = crate::value::function::call(factory.value.v_obj, &[])?;
        set_field(field, obj, value.as_raw())
    } else {
        set_field(field, obj, &field.default_value_or_factory)
    }
}

/// Reads a field through its getter.
///
/// # Safety
/// `field` belongs to the type of the object at `obj`.
pub unsafe fn get_field(field: &TVMFFIFieldInfo, obj: *mut TVMFFIObject) -> Result<Any, Error> {
    let getter = field
        .getter
        .ok_or_else(|| Error::new("AttributeError", "field has no getter"))?;
    let mut out = RAW_NONE;
    match getter(obj.cast::<u8>().add(field.offset as usize).cast(), &mut out) {
        0 => Ok(Any::from_raw(out)),
        code => Err(crate::value::error::take_raised_or_unknown(code)),
    }
}

/// An empty instance of a type: its native creator, or its `__ffi_new__` attribute.
pub(crate) fn create_empty(info: &TVMFFITypeInfo) -> Result<ObjectRef, Error> {
    // SAFETY: metadata pointers of registered types are valid.
    if let Some(creator) = unsafe { info.metadata.as_ref() }.and_then(|m| m.creator) {
        let mut handle = std::ptr::null_mut();
        // SAFETY: creators follow the safe-call convention.
        return match unsafe { creator(&mut handle) } {
            // SAFETY: a successful creator returns an owned object.
            0 if !handle.is_null() => Ok(unsafe { ObjectRef::from_raw(handle.cast()) }),
            code => Err(crate::value::error::take_raised_or_unknown(code)),
        };
    }
    if let Some(new) = crate::registry::types::attr_value(b"__ffi_new__", info.type_index) {
        let new = new
            .as_object()
            .ok_or_else(|| Error::new("TypeError", "__ffi_new__ must be a Function"))?
            .clone();
        // SAFETY: `new` is a live Function.
        let obj = unsafe { crate::value::function::call(new.as_ptr(), &[])? };
        return obj
            .as_object()
            .cloned()
            .ok_or_else(|| Error::new("TypeError", "__ffi_new__ must return an object"));
    }
    Err(Error::new(
        "RuntimeError",
        format!("Type `{}` does not support reflection creation (no native creator or __ffi_new__ type attr)", crate::registry::types::type_key_of(info.type_index)),
    ))
}

/// Writes a field of a freshly made reflected object.
pub(crate) fn init_field(
    obj: &ObjectRef,
    offset: usize,
    accessor: Accessor,
    value: &Any,
) -> Result<(), Error> {
    // SAFETY: `offset` is a field of the object's type, of `accessor`'s storage.
    unsafe { accessor.write(obj.as_ptr().cast::<u8>().add(offset), value.as_raw()) }
}

/// Reads a field of a reflected object.
pub(crate) fn read_field(obj: *mut TVMFFIObject, offset: usize, accessor: Accessor) -> Any {
    // SAFETY: callers pass live objects of the type that has this field.
    unsafe { accessor.read(obj.cast::<u8>().add(offset)) }
}

fn sentinel(cell: &'static OnceLock<ObjectRef>) -> ObjectRef {
    cell.get_or_init(|| new_reflected(tindex::OBJECT, std::mem::size_of::<TVMFFIObject>()))
        .clone()
}

/// The "missing" sentinel returned by `ffi.GetInvalidObject` (and `*GetItemOrMissing`).
pub fn missing_object() -> ObjectRef {
    static MISSING: OnceLock<ObjectRef> = OnceLock::new();
    sentinel(&MISSING)
}

/// The marker that separates positional from keyword arguments in packed calls.
pub fn kwargs_object() -> ObjectRef {
    static KWARGS: OnceLock<ObjectRef> = OnceLock::new();
    sentinel(&KWARGS)
}
