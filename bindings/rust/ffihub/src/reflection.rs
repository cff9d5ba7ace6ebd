//! Reflection: reading the runtime's type registry (type keys, fields, methods, metadata),
//! reading and writing fields and calling methods of any object by name, constructing objects
//! through `__ffi_init__`, and the field storage of Rust-defined types ([`Writable`]).

use crate::any::{Any, AnyView};
use crate::convert::{FfiType, FromAny, IntoAny};
use crate::error::{check, Error, Result};
use crate::function::Function;
use crate::object::{Object, ObjectRef};
use crate::schema::Schema;
use crate::sys;
use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo, TVMFFIMethodInfo, TVMFFIObject,
    TVMFFITypeInfo,
};
use ffihub_abi::tindex;
use std::borrow::Cow;
use std::ffi::c_void;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

type StdString = std::string::String;

/// The registry record of `type_index`, if it is a valid index.
pub(crate) fn type_info_raw(type_index: i32) -> Option<&'static TVMFFITypeInfo> {
    // Indices 14..64 and negative ones are never registered, and Apache's runtime aborts on
    // unknown indices, so only plausible ones are asked for.
    if (0..=tindex::UNCHANGED).contains(&type_index) || type_index >= tindex::OBJECT {
        // SAFETY: the runtime returns NULL or a process-lifetime record.
        unsafe { sys::TVMFFIGetTypeInfo(type_index).as_ref() }
    } else {
        None
    }
}

/// The type key of a type index (`<unknown type N>` if none).
pub(crate) fn type_key_of_index(type_index: i32) -> StdString {
    match type_info_raw(type_index) {
        // SAFETY: type keys are runtime-owned and live forever.
        Some(info) => {
            StdString::from_utf8_lossy(unsafe { sys::byte_slice(&info.type_key) }).into_owned()
        }
        None => format!("<unknown type {type_index}>"),
    }
}

fn text(array: &ffihub_abi::abi::TVMFFIByteArray) -> Cow<'static, str> {
    // SAFETY: registry strings are runtime-owned and live forever.
    StdString::from_utf8_lossy(unsafe { sys::byte_slice(array) })
}

/// A registered type, as the runtime describes it.
#[derive(Clone, Copy)]
pub struct TypeInfo {
    info: &'static TVMFFITypeInfo,
}

impl TypeInfo {
    /// The type with index `type_index`: an index the runtime handed out (an object's type
    /// index, a registered key's index). Apache's runtime aborts the process on other indices.
    pub fn from_index(type_index: i32) -> Option<TypeInfo> {
        type_info_raw(type_index).map(|info| TypeInfo { info })
    }

    /// The type registered under `type_key`.
    pub fn from_key(type_key: &str) -> Option<TypeInfo> {
        TypeInfo::from_index(type_key_to_index(type_key)?)
    }

    /// The type key.
    pub fn type_key(&self) -> Cow<'static, str> {
        text(&self.info.type_key)
    }

    /// The type index.
    pub fn type_index(&self) -> i32 {
        self.info.type_index
    }

    /// Depth in the hierarchy (`ffi.Object` is 0).
    pub fn depth(&self) -> i32 {
        self.info.type_depth
    }

    /// The ancestors, root first (`ffi.Object`, ..., the parent).
    pub fn ancestors(&self) -> Vec<TypeInfo> {
        (0..self.info.type_depth.max(0) as usize)
            // SAFETY: `type_ancestors` has `type_depth` entries.
            .map(|i| TypeInfo {
                info: unsafe { &**self.info.type_ancestors.add(i) },
            })
            .collect()
    }

    /// The parent type.
    pub fn parent(&self) -> Option<TypeInfo> {
        self.ancestors().pop()
    }

    /// The type's own fields (not its ancestors').
    pub fn fields(&self) -> Vec<FieldInfo> {
        // Re-read each time: the runtime may reallocate the array when fields are added.
        (0..self.info.num_fields.max(0) as usize)
            // SAFETY: `fields` has `num_fields` entries.
            .map(|i| FieldInfo {
                raw: unsafe { *self.info.fields.add(i) },
            })
            .collect()
    }

    /// The type's own methods (not its ancestors').
    pub fn methods(&self) -> Vec<MethodInfo> {
        (0..self.info.num_methods.max(0) as usize)
            // SAFETY: `methods` has `num_methods` entries.
            .map(|i| MethodInfo {
                raw: unsafe { *self.info.methods.add(i) },
            })
            .collect()
    }

    /// The type's documentation (from its metadata), if it registered any.
    pub fn doc(&self) -> Option<Cow<'static, str>> {
        // SAFETY: the metadata pointer is NULL or a runtime-owned record.
        unsafe { self.info.metadata.as_ref() }.map(|md| text(&md.doc))
    }

    /// `sizeof` of the type's objects, from its metadata (0 if unknown).
    pub fn total_size(&self) -> i32 {
        // SAFETY: as for `doc`.
        unsafe { self.info.metadata.as_ref() }.map_or(0, |md| md.total_size)
    }

    /// The field `name` of this type or its closest ancestor defining it.
    pub fn find_field(&self, name: &str) -> Option<FieldInfo> {
        let mut chain = self.ancestors();
        chain.push(*self);
        chain
            .iter()
            .rev()
            .find_map(|t| t.fields().into_iter().find(|f| f.name() == name))
    }

    /// The method `name` of this type or its closest ancestor defining it.
    pub fn find_method(&self, name: &str) -> Option<MethodInfo> {
        let mut chain = self.ancestors();
        chain.push(*self);
        chain
            .iter()
            .rev()
            .find_map(|t| t.methods().into_iter().find(|m| m.name() == name))
    }

    /// The value of type attribute `attr` (`__ffi_init__`...) for this type, if set.
    pub fn attr(&self, attr: &str) -> Option<Any> {
        let name = sys::byte_array(attr.as_bytes());
        // SAFETY: `name` points at a live string; the column is NULL or runtime-owned.
        let column = unsafe { sys::TVMFFIGetTypeAttrColumn(&name).as_ref() }?;
        let slot = self.info.type_index.checked_sub(column.begin_index)?;
        if slot < 0 || slot >= column.size {
            return None;
        }
        // SAFETY: `slot` is within the column.
        let value = unsafe { &*column.data.add(slot as usize) };
        if value.type_index == tindex::NONE {
            return None;
        }
        // SAFETY: column entries are owned by the runtime and live; we take a new reference.
        unsafe { AnyView::from_raw(*value) }.to_owned().ok()
    }
}

impl std::fmt::Debug for TypeInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TypeInfo({}, {})", self.type_key(), self.type_index())
    }
}

/// The index of `type_key`, if registered.
pub fn type_key_to_index(type_key: &str) -> Option<i32> {
    let key = sys::byte_array(type_key.as_bytes());
    // Query mode (parent -2): returns -2 instead of registering.
    // SAFETY: `key` points at a live string.
    let index = unsafe { sys::TVMFFITypeGetOrAllocIndex(&key, -1, -1, 0, 0, -2) };
    (index >= 0).then_some(index)
}

/// A field record.
#[derive(Clone, Copy)]
pub struct FieldInfo {
    raw: TVMFFIFieldInfo,
}

impl FieldInfo {
    /// The field name.
    pub fn name(&self) -> Cow<'static, str> {
        text(&self.raw.name)
    }

    /// Its documentation.
    pub fn doc(&self) -> Cow<'static, str> {
        text(&self.raw.doc)
    }

    /// Its metadata JSON (`{"type_schema": ...}`).
    pub fn metadata(&self) -> Cow<'static, str> {
        text(&self.raw.metadata)
    }

    /// The flag bits (`TVMFFIFieldFlagBitMask`).
    pub fn flags(&self) -> i64 {
        self.raw.flags
    }

    /// Whether the field can be written.
    pub fn is_writable(&self) -> bool {
        self.raw.flags & Flag::kTVMFFIFieldFlagBitMaskWritable as i64 != 0
    }

    /// The default value, if the field has one (a factory function when the flags say so).
    pub fn default_value(&self) -> Option<Any> {
        if self.raw.flags & Flag::kTVMFFIFieldFlagBitMaskHasDefault as i64 == 0 {
            return None;
        }
        // SAFETY: the record's default is a live value owned by the runtime.
        unsafe { AnyView::from_raw(self.raw.default_value_or_factory) }
            .to_owned()
            .ok()
    }

    /// Byte offset from the object header.
    pub fn offset(&self) -> i64 {
        self.raw.offset
    }

    /// Size of the storage in bytes.
    pub fn size(&self) -> i64 {
        self.raw.size
    }

    /// Alignment of the storage.
    pub fn alignment(&self) -> i64 {
        self.raw.alignment
    }

    /// `field_static_type_index`.
    pub fn static_type_index(&self) -> i32 {
        self.raw.field_static_type_index
    }

    /// The raw record.
    pub fn raw(&self) -> &TVMFFIFieldInfo {
        &self.raw
    }
}

/// A method record.
#[derive(Clone, Copy)]
pub struct MethodInfo {
    raw: TVMFFIMethodInfo,
}

impl MethodInfo {
    /// The method name.
    pub fn name(&self) -> Cow<'static, str> {
        text(&self.raw.name)
    }

    /// Its documentation.
    pub fn doc(&self) -> Cow<'static, str> {
        text(&self.raw.doc)
    }

    /// Its metadata JSON (`{"type_schema": ...}`).
    pub fn metadata(&self) -> Cow<'static, str> {
        text(&self.raw.metadata)
    }

    /// The flag bits (4: static method).
    pub fn flags(&self) -> i64 {
        self.raw.flags
    }

    /// Whether it is a static method (no `self`).
    pub fn is_static(&self) -> bool {
        self.raw.flags & Flag::kTVMFFIFieldFlagBitMaskIsStaticMethod as i64 != 0
    }

    /// The function implementing it.
    pub fn function(&self) -> Result<Function> {
        // SAFETY: the record's method is a live function owned by the runtime.
        unsafe { AnyView::from_raw(self.raw.method) }.cast()
    }
}

fn object_type(obj: *mut TVMFFIObject) -> Result<TypeInfo> {
    // SAFETY: callers pass live objects.
    let index = unsafe { (*obj).type_index };
    TypeInfo::from_index(index)
        .ok_or_else(|| Error::runtime_error(format!("unknown type index {index}")))
}

/// Reads field `name` of `obj` through its registered getter.
pub(crate) fn get_field(obj: *mut TVMFFIObject, name: &str) -> Result<Any> {
    let info = object_type(obj)?;
    let field = info.find_field(name).ok_or_else(|| {
        Error::attribute_error(format!("`{}` has no field `{name}`", info.type_key()))
    })?;
    let getter = field.raw.getter.ok_or_else(|| {
        Error::attribute_error(format!(
            "field `{name}` of `{}` has no getter",
            info.type_key()
        ))
    })?;
    let mut out = crate::any::RAW_NONE;
    // SAFETY: the field lives at `offset` from the header of a live object of this type; the
    // getter writes an owned value into `out`.
    check(unsafe {
        getter(
            obj.cast::<u8>().add(field.raw.offset as usize).cast(),
            &mut out,
        )
    })?;
    // SAFETY: the getter wrote an owned value.
    Ok(unsafe { Any::from_raw(out) })
}

/// Writes field `name` of `obj` through its registered setter.
pub(crate) fn set_field(obj: *mut TVMFFIObject, name: &str, value: AnyView<'_>) -> Result<()> {
    let info = object_type(obj)?;
    let field = info.find_field(name).ok_or_else(|| {
        Error::attribute_error(format!("`{}` has no field `{name}`", info.type_key()))
    })?;
    if !field.is_writable() || field.raw.setter.is_null() {
        return Err(Error::attribute_error(format!(
            "field `{name}` of `{}` is read-only",
            info.type_key()
        )));
    }
    // SAFETY: as in `get_field`; the object is live.
    let addr = unsafe { obj.cast::<u8>().add(field.raw.offset as usize) };
    if field.raw.flags & Flag::kTVMFFIFieldFlagBitSetterIsFunctionObj as i64 != 0 {
        // SAFETY: with this flag the setter is a function object owned by the runtime.
        let setter: Function = unsafe {
            AnyView::from_raw(TVMFFIAny {
                type_index: tindex::FUNCTION,
                small_str_len: 0,
                value: ffihub_abi::abi::TVMFFIAnyValue {
                    v_obj: field.raw.setter.cast(),
                },
            })
        }
        .cast()?;
        let ptr = Any::opaque_ptr(addr.cast());
        setter.call_packed(&[ptr.view(), value])?;
        return Ok(());
    }
    // SAFETY: without the flag the setter is a `TVMFFIFieldSetter` function pointer.
    let setter: unsafe extern "C" fn(*mut c_void, *const TVMFFIAny) -> i32 =
        unsafe { std::mem::transmute(field.raw.setter) };
    // SAFETY: `addr` is the field's storage; `value` is a valid view.
    check(unsafe { setter(addr.cast(), value.as_raw()) })
}

/// The method `name` of type `type_index` or an ancestor.
pub(crate) fn find_method(type_index: i32, name: &str) -> Result<Function> {
    let info = TypeInfo::from_index(type_index)
        .ok_or_else(|| Error::runtime_error(format!("unknown type index {type_index}")))?;
    info.find_method(name)
        .ok_or_else(|| {
            Error::attribute_error(format!("`{}` has no method `{name}`", info.type_key()))
        })?
        .function()
}

/// Constructs an object of `type_key` through its `__ffi_init__` type attribute, the way every
/// language binding does.
pub fn construct(
    type_key: &str,
    args: impl crate::function::IntoArgs,
) -> Result<ObjectRef<Object>> {
    let info = TypeInfo::from_key(type_key)
        .ok_or_else(|| Error::type_error(format!("type `{type_key}` is not registered")))?;
    let init: Function = info
        .attr("__ffi_init__")
        .ok_or_else(|| Error::type_error(format!("type `{type_key}` has no `__ffi_init__`")))?
        .cast()?;
    init.call(crate::function::IntoArgs::into_args(args)?)
}

/// A static method of a type: `call_static("demo.Counter", "with_step", (2,))`.
pub fn call_static<R: FromAny>(
    type_key: &str,
    method: &str,
    args: impl crate::function::IntoArgs,
) -> Result<R> {
    let index = type_key_to_index(type_key)
        .ok_or_else(|| Error::type_error(format!("type `{type_key}` is not registered")))?;
    find_method(index, method)?.call(args)
}

// ---- field storage of Rust-defined types ----

/// A writable field of a Rust-defined object type: reflected with the `Writable` flag, so that
/// every language can assign it. Reads and writes take a lock, because objects are shared
/// between threads and languages.
#[derive(Default)]
pub struct Writable<T> {
    value: RwLock<T>,
}

impl<T> Writable<T> {
    /// A field holding `value`.
    pub const fn new(value: T) -> Writable<T> {
        Writable {
            value: RwLock::new(value),
        }
    }

    /// Reads the value under the lock.
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        self.value.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes under the lock.
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.value.write().unwrap_or_else(|e| e.into_inner())
    }

    /// A copy of the value.
    pub fn get(&self) -> T
    where
        T: Clone,
    {
        self.read().clone()
    }

    /// Replaces the value.
    pub fn set(&self, value: T) {
        *self.write() = value;
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Writable<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Writable").field(&*self.read()).finish()
    }
}

/// A value type that can be a field of a Rust-defined object.
pub trait FieldValue: Clone + IntoAny + FromAny + FfiType + Send + Sync + 'static {}

impl<T: Clone + IntoAny + FromAny + FfiType + Send + Sync + 'static> FieldValue for T {}

/// The storage of a reflected field: a plain value (read-only) or a [`Writable`] one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a reflected field",
    note = "fields hold TVM-FFI value types (read-only) or Writable<T> of them (writable); mark other fields #[ffihub(skip)]"
)]
pub trait FieldStorage: Send + Sync {
    /// The value type.
    type Value: FieldValue;
    /// Whether other languages may assign the field.
    const WRITABLE: bool;
    /// Reads the field as an owned value.
    fn get_any(&self) -> Result<Any>;
    /// Writes the field (only called when `WRITABLE`).
    fn set_any(&self, value: AnyView<'_>) -> Result<()>;
}

impl<T: FieldValue> FieldStorage for T {
    type Value = T;
    const WRITABLE: bool = false;

    fn get_any(&self) -> Result<Any> {
        self.clone().into_any()
    }

    fn set_any(&self, _value: AnyView<'_>) -> Result<()> {
        Err(Error::attribute_error("the field is read-only"))
    }
}

impl<T: FieldValue> FieldStorage for Writable<T> {
    type Value = T;
    const WRITABLE: bool = true;

    fn get_any(&self) -> Result<Any> {
        self.get().into_any()
    }

    fn set_any(&self, value: AnyView<'_>) -> Result<()> {
        self.set(T::from_view(value)?);
        Ok(())
    }
}

/// The schema and static type index of a field's value type.
pub(crate) fn field_schema<F: FieldStorage>() -> (Schema, i32) {
    (
        <F::Value as FfiType>::schema(),
        <F::Value as FfiType>::STATIC_TYPE_INDEX,
    )
}
