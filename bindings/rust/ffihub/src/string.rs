//! `String` and `Bytes`: TVM-FFI's immutable strings and byte strings.
//!
//! Both are stored as a 16-byte owned value: up to 7 bytes inline (`ffi.SmallStr` /
//! `ffi.SmallBytes`), longer contents in a heap object (`ffi.String` / `ffi.Bytes`) created by the
//! runtime (`TVMFFIStringFromByteArray`), exactly as the ABI passes them.

use crate::any::{Any, AnyView};
use crate::convert::{mismatch, ByRef, FfiType, FromAny, IntoAny};
use crate::error::{check, Error, Result};
use crate::schema::Schema;
use crate::sys;
use ffihub_abi::abi::{TVMFFIAny, TVMFFIByteArray};
use ffihub_abi::tindex;
use std::borrow::Cow;
use std::fmt;

type StdString = std::string::String;

/// The bytes of a string or bytes value (small: inline in the Any; heap: the object's cell).
///
/// # Safety
/// `raw` is a valid small-string/small-bytes value or refers to a live Str/Bytes object, and the
/// returned slice does not outlive it.
unsafe fn content(raw: &TVMFFIAny) -> &[u8] {
    match raw.type_index {
        tindex::SMALL_STR | tindex::SMALL_BYTES => {
            let len = (raw.small_str_len as usize).min(8);
            &raw.value.v_bytes[..len]
        }
        _ => {
            let cell = raw
                .value
                .v_obj
                .cast::<u8>()
                .add(24)
                .cast::<TVMFFIByteArray>();
            sys::byte_slice(&*cell)
        }
    }
}

/// Creates an owned string (`bytes == false`) or bytes value through the runtime.
fn create(data: &[u8], bytes: bool) -> Result<Any> {
    let input = sys::byte_array(data);
    let mut out = crate::any::RAW_NONE;
    // SAFETY: `input` points at `data`; `out` holds no owned value.
    check(unsafe {
        if bytes {
            sys::TVMFFIBytesFromByteArray(&input, &mut out)
        } else {
            sys::TVMFFIStringFromByteArray(&input, &mut out)
        }
    })?;
    // SAFETY: the runtime wrote an owned value.
    Ok(unsafe { Any::from_raw(out) })
}

/// An immutable TVM-FFI string (`ffi.String`). Its contents are usually UTF-8 but, coming from
/// other languages, need not be: [`String::to_str`] checks.
#[derive(Clone)]
pub struct String {
    value: Any,
}

impl String {
    /// A string with `text`'s contents.
    pub fn new(text: impl AsRef<[u8]>) -> Result<String> {
        Ok(String {
            value: create(text.as_ref(), false)?,
        })
    }

    /// The contents.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: `value` is a string we own.
        unsafe { content(self.value.as_raw()) }
    }

    /// The contents as `&str`; a `ValueError` if they are not UTF-8.
    pub fn to_str(&self) -> Result<&str> {
        std::str::from_utf8(self.as_bytes())
            .map_err(|e| Error::value_error(format!("string is not valid UTF-8: {e}")))
    }

    /// The contents, with invalid UTF-8 replaced.
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        StdString::from_utf8_lossy(self.as_bytes())
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the string is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value as an [`Any`].
    pub fn as_any(&self) -> &Any {
        &self.value
    }
}

impl From<&str> for String {
    /// Copies `text` (panics only if the runtime cannot allocate).
    fn from(text: &str) -> String {
        String::new(text).expect("TVM-FFI string allocation failed")
    }
}

impl From<StdString> for String {
    fn from(text: StdString) -> String {
        String::from(text.as_str())
    }
}

impl PartialEq for String {
    fn eq(&self, other: &String) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for String {}

impl PartialEq<str> for String {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for String {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl std::hash::Hash for String {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl fmt::Display for String {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

impl fmt::Debug for String {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string_lossy(), f)
    }
}

impl FfiType for String {
    fn schema() -> Schema {
        Schema::named("ffi.String")
    }
}

impl ByRef for String {}

impl IntoAny for String {
    fn into_any(self) -> Result<Any> {
        Ok(self.value)
    }
}

impl FromAny for String {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        match view.type_index() {
            tindex::SMALL_STR | tindex::STR => Ok(String {
                value: view.to_owned()?,
            }),
            tindex::RAW_STR => {
                // SAFETY: the tag says the payload is a NUL-terminated C string that lives as
                // long as the view.
                let text = unsafe { std::ffi::CStr::from_ptr(view.as_raw().value.v_c_str) };
                String::new(text.to_bytes())
            }
            _ => Err(mismatch::<String>(view)),
        }
    }
}

impl FfiType for StdString {
    fn schema() -> Schema {
        Schema::named("ffi.String")
    }
}

impl IntoAny for StdString {
    fn into_any(self) -> Result<Any> {
        String::new(self).map(|s| s.value)
    }
}

impl IntoAny for &StdString {
    fn into_any(self) -> Result<Any> {
        String::new(self).map(|s| s.value)
    }
}

impl IntoAny for &str {
    fn into_any(self) -> Result<Any> {
        String::new(self).map(|s| s.value)
    }
}

impl FromAny for StdString {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        let string = String::from_view(view).map_err(|_| mismatch::<StdString>(view))?;
        let text = string.to_str()?;
        let mut owned = StdString::new();
        owned.try_reserve_exact(text.len())?;
        owned.push_str(text);
        Ok(owned)
    }
}

/// An immutable TVM-FFI byte string (`ffi.Bytes`).
#[derive(Clone)]
pub struct Bytes {
    value: Any,
}

impl Bytes {
    /// A byte string with `data`'s contents.
    pub fn new(data: impl AsRef<[u8]>) -> Result<Bytes> {
        Ok(Bytes {
            value: create(data.as_ref(), true)?,
        })
    }

    /// The contents.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `value` is a bytes value we own.
        unsafe { content(self.value.as_raw()) }
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl From<&[u8]> for Bytes {
    /// Copies `data` (panics only if the runtime cannot allocate).
    fn from(data: &[u8]) -> Bytes {
        Bytes::new(data).expect("TVM-FFI bytes allocation failed")
    }
}

impl PartialEq for Bytes {
    fn eq(&self, other: &Bytes) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Bytes {}

impl PartialEq<[u8]> for Bytes {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({:?})", self.as_slice())
    }
}

impl FfiType for Bytes {
    fn schema() -> Schema {
        Schema::named("ffi.Bytes")
    }
}

impl ByRef for Bytes {}

impl IntoAny for Bytes {
    fn into_any(self) -> Result<Any> {
        Ok(self.value)
    }
}

impl IntoAny for &[u8] {
    fn into_any(self) -> Result<Any> {
        Bytes::new(self).map(|b| b.value)
    }
}

impl FromAny for Bytes {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        match view.type_index() {
            tindex::SMALL_BYTES | tindex::BYTES => Ok(Bytes {
                value: view.to_owned()?,
            }),
            tindex::BYTE_ARRAY_PTR => {
                // SAFETY: the tag says the payload points at a byte array that lives as long as
                // the view.
                let data = unsafe {
                    sys::byte_slice(&*view.as_raw().value.v_ptr.cast::<TVMFFIByteArray>())
                };
                Bytes::new(data)
            }
            _ => Err(mismatch::<Bytes>(view)),
        }
    }
}
