//! `Any` (an owned 16-byte TVM-FFI value) and `AnyView` (a borrowed one).

use crate::convert::{FromAny, IntoAny};
use crate::error::{check, Result};
use crate::sys;
use ffihub_abi::abi::{TVMFFIAny, TVMFFIAnyValue, TVMFFIObject};
use ffihub_abi::dlpack::{DLDataType, DLDevice};
use ffihub_abi::tindex;
use std::fmt;
use std::marker::PhantomData;

/// A TVM-FFI value with no payload: `None`.
pub(crate) const RAW_NONE: TVMFFIAny = TVMFFIAny {
    type_index: tindex::NONE,
    small_str_len: 0,
    value: TVMFFIAnyValue { v_int64: 0 },
};

/// Whether values with this type index carry a reference-counted object.
pub(crate) fn is_object_index(type_index: i32) -> bool {
    type_index >= tindex::OBJECT
}

/// An owned TVM-FFI value: POD, small string or bytes inline, or one strong reference to an
/// object. Dropping it releases the reference.
///
/// Convert Rust values with [`IntoAny`] (`Any::from_value(3)`), and back with
/// [`Any::cast`] / [`FromAny`].
#[repr(transparent)]
pub struct Any {
    raw: TVMFFIAny,
}

// SAFETY: the payload is POD or a reference to an object whose count is updated atomically;
// TVM-FFI objects are shareable between threads.
unsafe impl Send for Any {}
// SAFETY: as above; `&Any` only reads.
unsafe impl Sync for Any {}

impl Any {
    /// `None`.
    #[inline]
    pub const fn none() -> Any {
        Any { raw: RAW_NONE }
    }

    /// Converts a Rust value.
    pub fn from_value<T: IntoAny>(value: T) -> Result<Any> {
        value.into_any()
    }

    /// Takes ownership of a raw owned value.
    ///
    /// # Safety
    /// `raw` is an owned `TVMFFIAny` (its object, if any, carries one reference that is handed
    /// over) and is not a view-only kind (raw C string, byte-array pointer, rvalue reference).
    #[inline]
    pub unsafe fn from_raw(raw: TVMFFIAny) -> Any {
        Any { raw }
    }

    /// Gives up ownership: the caller becomes responsible for the reference it may carry.
    #[inline]
    pub fn into_raw(self) -> TVMFFIAny {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }

    /// The raw value (still owned by `self`).
    #[inline]
    pub fn as_raw(&self) -> &TVMFFIAny {
        &self.raw
    }

    /// A borrowed view of this value.
    pub fn view(&self) -> AnyView<'_> {
        AnyView {
            raw: self.raw,
            _borrow: PhantomData,
        }
    }

    /// The type index of the value.
    #[inline]
    pub fn type_index(&self) -> i32 {
        self.raw.type_index
    }

    /// Whether the value is `None`.
    pub fn is_none(&self) -> bool {
        self.raw.type_index == tindex::NONE
    }

    /// The type key of the value (`int`, `ffi.String`, `demo.Point`...).
    pub fn type_key(&self) -> std::string::String {
        self.view().type_key()
    }

    /// Converts to a Rust value (checked).
    pub fn cast<T: FromAny>(&self) -> Result<T> {
        T::from_view(self.view())
    }

    #[inline]
    pub(crate) fn int(value: i64) -> Any {
        Any {
            raw: TVMFFIAny {
                type_index: tindex::INT,
                small_str_len: 0,
                value: TVMFFIAnyValue { v_int64: value },
            },
        }
    }

    #[inline]
    pub(crate) fn float(value: f64) -> Any {
        Any {
            raw: TVMFFIAny {
                type_index: tindex::FLOAT,
                small_str_len: 0,
                value: TVMFFIAnyValue { v_float64: value },
            },
        }
    }

    #[inline]
    pub(crate) fn bool(value: bool) -> Any {
        Any {
            raw: TVMFFIAny {
                type_index: tindex::BOOL,
                small_str_len: 0,
                value: TVMFFIAnyValue {
                    v_int64: i64::from(value),
                },
            },
        }
    }

    pub(crate) fn dtype(value: DLDataType) -> Any {
        // The payload word must be zero beyond the 4 dtype bytes.
        let mut raw = TVMFFIAny {
            type_index: tindex::DATA_TYPE,
            small_str_len: 0,
            value: TVMFFIAnyValue { v_int64: 0 },
        };
        raw.value.v_dtype = value;
        Any { raw }
    }

    pub(crate) fn device(value: DLDevice) -> Any {
        Any {
            raw: TVMFFIAny {
                type_index: tindex::DEVICE,
                small_str_len: 0,
                value: TVMFFIAnyValue { v_device: value },
            },
        }
    }

    pub(crate) fn opaque_ptr(ptr: *mut std::ffi::c_void) -> Any {
        Any {
            raw: TVMFFIAny {
                type_index: tindex::OPAQUE_PTR,
                small_str_len: 0,
                value: TVMFFIAnyValue { v_ptr: ptr },
            },
        }
    }

    /// Wraps an owned object reference.
    ///
    /// # Safety
    /// `obj` is a live object whose one reference is handed over.
    pub(crate) unsafe fn from_object_raw(obj: *mut TVMFFIObject) -> Any {
        Any {
            raw: TVMFFIAny {
                type_index: (*obj).type_index,
                small_str_len: 0,
                value: TVMFFIAnyValue { v_obj: obj },
            },
        }
    }
}

impl Default for Any {
    fn default() -> Self {
        Any::none()
    }
}

impl Drop for Any {
    fn drop(&mut self) {
        if is_object_index(self.raw.type_index) {
            // SAFETY: an owned Any with an object tag holds one reference to a live object.
            unsafe { sys::TVMFFIObjectDecRef(self.raw.value.v_obj.cast()) };
        }
    }
}

impl Clone for Any {
    fn clone(&self) -> Self {
        if is_object_index(self.raw.type_index) {
            // SAFETY: we own a reference, so the object is live.
            unsafe { sys::TVMFFIObjectIncRef(self.raw.value.v_obj.cast()) };
        }
        Any { raw: self.raw }
    }
}

impl fmt::Debug for Any {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.view(), f)
    }
}

/// A borrowed TVM-FFI value: what functions receive as arguments. It may also hold the
/// view-only kinds (a raw C string, a byte-array pointer) that callers pass without allocating.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct AnyView<'a> {
    raw: TVMFFIAny,
    _borrow: PhantomData<&'a ()>,
}

impl<'a> AnyView<'a> {
    /// `None`.
    #[inline]
    pub const fn none() -> AnyView<'static> {
        AnyView {
            raw: RAW_NONE,
            _borrow: PhantomData,
        }
    }

    /// Wraps a raw view.
    ///
    /// # Safety
    /// `raw` is a valid value whose referents (object, string) outlive `'a`.
    #[inline]
    pub unsafe fn from_raw(raw: TVMFFIAny) -> AnyView<'a> {
        AnyView {
            raw,
            _borrow: PhantomData,
        }
    }

    /// The raw value.
    #[inline]
    pub fn as_raw(&self) -> &TVMFFIAny {
        &self.raw
    }

    /// The type index of the value.
    #[inline]
    pub fn type_index(&self) -> i32 {
        self.raw.type_index
    }

    /// Whether the value is `None`.
    pub fn is_none(&self) -> bool {
        self.raw.type_index == tindex::NONE
    }

    /// The type key of the value, as the runtime names it (`int`, `ffi.SmallStr`, `demo.Point`).
    pub fn type_key(&self) -> std::string::String {
        crate::reflection::type_key_of_index(self.raw.type_index)
    }

    /// An owned copy (new reference for objects; raw strings and byte arrays are copied).
    pub fn to_owned(&self) -> Result<Any> {
        let ti = self.raw.type_index;
        if is_object_index(ti) {
            // SAFETY: the view borrows a live object.
            unsafe { sys::TVMFFIObjectIncRef(self.raw.value.v_obj.cast()) };
            return Ok(Any { raw: self.raw });
        }
        match ti {
            tindex::RAW_STR | tindex::BYTE_ARRAY_PTR | tindex::OBJECT_RVALUE_REF => {
                let mut out = RAW_NONE;
                // SAFETY: `self.raw` is a valid view and `out` holds no owned value.
                check(unsafe { sys::TVMFFIAnyViewToOwnedAny(&self.raw, &mut out) })?;
                // SAFETY: the runtime wrote an owned value.
                Ok(unsafe { Any::from_raw(out) })
            }
            _ => Ok(Any { raw: self.raw }),
        }
    }

    /// Converts to a Rust value (checked).
    pub fn cast<T: FromAny>(&self) -> Result<T> {
        T::from_view(*self)
    }

    /// The object the value refers to, if it holds one.
    pub(crate) fn object_ptr(&self) -> Option<*mut TVMFFIObject> {
        // SAFETY: every payload is 8 initialized bytes; the pointer is only used when the tag
        // says it is an object.
        is_object_index(self.raw.type_index).then_some(unsafe { self.raw.value.v_obj })
    }

    /// The integer payload (valid for Int and Bool).
    #[inline]
    pub(crate) fn int_payload(&self) -> i64 {
        // SAFETY: every payload is 8 initialized bytes.
        unsafe { self.raw.value.v_int64 }
    }
}

impl<'a> From<&'a Any> for AnyView<'a> {
    fn from(any: &'a Any) -> Self {
        any.view()
    }
}

impl fmt::Debug for AnyView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = self.type_key();
        // SAFETY (all arms): the tag says which payload is set.
        match self.raw.type_index {
            tindex::NONE => f.write_str("None"),
            tindex::INT => write!(f, "{}", self.int_payload()),
            tindex::BOOL => write!(f, "{}", self.int_payload() != 0),
            tindex::FLOAT => write!(f, "{:?}", unsafe { self.raw.value.v_float64 }),
            tindex::DATA_TYPE => write!(f, "{:?}", unsafe { self.raw.value.v_dtype }),
            tindex::DEVICE => write!(f, "{:?}", unsafe { self.raw.value.v_device }),
            tindex::SMALL_STR | tindex::STR | tindex::RAW_STR => {
                match crate::string::String::from_view(*self) {
                    Ok(s) => write!(f, "{:?}", s.to_string_lossy()),
                    Err(_) => write!(f, "<{key}>"),
                }
            }
            _ => write!(f, "<{key}>"),
        }
    }
}
