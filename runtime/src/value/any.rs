//! `Any`: an owned `TVMFFIAny`, and the rules for turning a borrowed view into one.

use crate::abi::{TVMFFIAny, TVMFFIAnyValue, TVMFFIByteArray, TVMFFIObject};
use crate::dlpack::{DLDataType, DLDevice};
use crate::tindex;
use crate::value::error::Error;
use crate::value::object::{inc_ref, is_object_index, ObjectRef};
use crate::value::string;
use std::ffi::{c_void, CStr};

/// A `TVMFFIAny` with a POD payload.
#[inline]
pub const fn raw_pod(type_index: i32, value: TVMFFIAnyValue) -> TVMFFIAny {
    TVMFFIAny {
        type_index,
        small_str_len: 0,
        value,
    }
}

/// The None value.
pub const RAW_NONE: TVMFFIAny = raw_pod(tindex::NONE, TVMFFIAnyValue { v_int64: 0 });

/// An owned value: object payloads carry one strong reference, released on drop.
#[repr(transparent)]
pub struct Any(TVMFFIAny);

// SAFETY: payloads are PODs or atomically refcounted objects.
unsafe impl Send for Any {}
unsafe impl Sync for Any {}

impl Any {
    /// None.
    pub const fn none() -> Any {
        Any(RAW_NONE)
    }

    /// An integer.
    pub const fn int(v: i64) -> Any {
        Any(raw_pod(tindex::INT, TVMFFIAnyValue { v_int64: v }))
    }

    /// A boolean.
    pub const fn bool(v: bool) -> Any {
        Any(raw_pod(tindex::BOOL, TVMFFIAnyValue { v_int64: v as i64 }))
    }

    /// A float.
    pub const fn float(v: f64) -> Any {
        Any(raw_pod(tindex::FLOAT, TVMFFIAnyValue { v_float64: v }))
    }

    /// An opaque pointer (NULL is None, as in Apache's runtime).
    pub fn opaque_ptr(v: *mut c_void) -> Any {
        if v.is_null() {
            Any::none()
        } else {
            Any(raw_pod(tindex::OPAQUE_PTR, TVMFFIAnyValue { v_ptr: v }))
        }
    }

    /// A data type.
    pub fn dtype(v: DLDataType) -> Any {
        let mut value = TVMFFIAnyValue { v_int64: 0 };
        value.v_dtype = v;
        Any(raw_pod(tindex::DATA_TYPE, value))
    }

    /// A device.
    pub fn device(v: DLDevice) -> Any {
        Any(raw_pod(tindex::DEVICE, TVMFFIAnyValue { v_device: v }))
    }

    /// An object (its type index comes from its header).
    pub fn object(obj: ObjectRef) -> Any {
        let type_index = obj.type_index();
        Any(raw_pod(
            type_index,
            TVMFFIAnyValue {
                v_obj: obj.into_raw(),
            },
        ))
    }

    /// A string (small form when it fits).
    pub fn string(s: impl AsRef<[u8]>) -> Any {
        string::string_any(s.as_ref())
    }

    /// Takes ownership of a raw owned value.
    ///
    /// # Safety
    /// `raw` is an owned value (its object payload carries a reference given to the result).
    #[inline]
    pub const unsafe fn from_raw(raw: TVMFFIAny) -> Any {
        Any(raw)
    }

    /// Gives up ownership of the raw value.
    #[inline]
    pub fn into_raw(self) -> TVMFFIAny {
        let raw = self.0;
        std::mem::forget(self);
        raw
    }

    /// The raw value, still owned by `self` (usable as a borrowed view).
    #[inline]
    pub fn as_raw(&self) -> &TVMFFIAny {
        &self.0
    }

    /// The type index of the value.
    #[inline]
    pub fn type_index(&self) -> i32 {
        self.0.type_index
    }

    /// The object payload, if the value is an object.
    pub fn as_object(&self) -> Option<&ObjectRef> {
        if is_object_index(self.0.type_index) {
            // SAFETY: `ObjectRef` is a transparent non-null pointer and the slot holds one.
            Some(unsafe { &*(std::ptr::addr_of!(self.0.value.v_obj) as *const ObjectRef) })
        } else {
            None
        }
    }
}

impl std::fmt::Debug for Any {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // SAFETY: reading the payload as raw bits is valid for every kind.
        write!(
            f,
            "Any(type_index={}, bits={:#x})",
            self.0.type_index,
            unsafe { self.0.value.v_uint64 }
        )
    }
}

impl Default for Any {
    fn default() -> Self {
        Any::none()
    }
}

impl Clone for Any {
    fn clone(&self) -> Self {
        if is_object_index(self.0.type_index) {
            // SAFETY: we own a reference to the object.
            unsafe { inc_ref(self.0.value.v_obj) };
        }
        Any(self.0)
    }
}

impl Drop for Any {
    #[inline]
    fn drop(&mut self) {
        if is_object_index(self.0.type_index) {
            // SAFETY: we own one reference.
            unsafe { crate::value::object::dec_ref(self.0.value.v_obj) };
        }
    }
}

impl From<ObjectRef> for Any {
    fn from(obj: ObjectRef) -> Any {
        Any::object(obj)
    }
}

/// Makes an owned copy of a borrowed view, with Apache's conversions: raw C strings and byte-array
/// pointers become String/Bytes, objects get a new reference, rvalue references are moved out of
/// their slot, and everything else is copied bit for bit.
///
/// # Safety
/// `view` is a valid view: its pointers are valid for the kind its type index says.
#[inline]
pub unsafe fn view_to_owned(view: &TVMFFIAny) -> Result<Any, Error> {
    match view.type_index {
        tindex::RAW_STR | tindex::BYTE_ARRAY_PTR | tindex::OBJECT_RVALUE_REF => {
            borrowed_form_to_owned(view)
        }
        t if is_object_index(t) => {
            inc_ref(view.value.v_obj);
            Ok(Any(*view))
        }
        _ => Ok(Any(*view)),
    }
}

/// [`view_to_owned`] of the forms that only views have (kept out of line: the common kinds are
/// copied inline).
///
/// # Safety
/// As for [`view_to_owned`].
#[inline(never)]
unsafe fn borrowed_form_to_owned(view: &TVMFFIAny) -> Result<Any, Error> {
    match view.type_index {
        tindex::RAW_STR => {
            let bytes = CStr::from_ptr(view.value.v_c_str).to_bytes();
            Ok(string::string_any(bytes))
        }
        tindex::BYTE_ARRAY_PTR => {
            let array = &*(view.value.v_ptr as *const TVMFFIByteArray);
            Ok(string::bytes_any(byte_array_slice(array)))
        }
        _ => {
            let slot = view.value.v_ptr as *mut *mut TVMFFIObject;
            let obj = *slot;
            if obj.is_null() {
                return Err(Error::new(
                    "InternalError",
                    "Check failed: (obj_addr[0] != nullptr) is false: RValueRef already moved",
                ));
            }
            *slot = std::ptr::null_mut();
            Ok(Any::object(ObjectRef::from_raw(obj)))
        }
    }
}

/// The bytes of a byte array (empty for a NULL pointer).
///
/// # Safety
/// `array.data` is valid for `array.size` bytes or NULL.
#[inline]
pub unsafe fn byte_array_slice<'a>(array: &TVMFFIByteArray) -> &'a [u8] {
    if array.data.is_null() || array.size == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(array.data.cast(), array.size)
    }
}

/// A byte array viewing `bytes` (valid while `bytes` is).
#[inline]
pub fn byte_array(bytes: &[u8]) -> TVMFFIByteArray {
    TVMFFIByteArray {
        data: bytes.as_ptr().cast(),
        size: bytes.len(),
    }
}
