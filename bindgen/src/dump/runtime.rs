//! A TVM-FFI runtime opened at run time (`dlopen`), and the few C-ABI calls the dump needs.
//!
//! `ffihub` does not link `libtvm_ffi.so`: it opens one with `RTLD_NOW | RTLD_GLOBAL`, so that
//! libraries opened afterwards resolve their `DT_NEEDED libtvm_ffi.so` to it (by SONAME), and
//! calls it through function pointers. Every unsafe read below follows the ABI layouts of
//! `ffihub-abi` (identical to Apache's). Libraries are never closed: objects and registrations
//! they made stay valid for the life of the process.

use super::DumpError;
use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIAnyValue, TVMFFIByteArray, TVMFFIErrorCell, TVMFFIObject, TVMFFIObjectHandle,
    TVMFFISeqCell, TVMFFITypeAttrColumn, TVMFFITypeInfo,
};
use ffihub_abi::dlpack::DLDataType;
use ffihub_abi::tindex;
use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
use std::ffi::{c_int, c_void};
use std::path::{Path, PathBuf};

/// `RTLD_NOLOAD` (glibc, Linux): only return a handle if the object is already loaded.
const RTLD_NOLOAD: c_int = 0x4;

type GetGlobalFn = unsafe extern "C" fn(*const TVMFFIByteArray, *mut TVMFFIObjectHandle) -> i32;
type CallFn = unsafe extern "C" fn(TVMFFIObjectHandle, *mut TVMFFIAny, i32, *mut TVMFFIAny) -> i32;
type DecRefFn = unsafe extern "C" fn(TVMFFIObjectHandle) -> i32;
type MoveErrorFn = unsafe extern "C" fn(*mut TVMFFIObjectHandle);
type KeyToIndexFn = unsafe extern "C" fn(*const TVMFFIByteArray, *mut i32) -> i32;
type TypeInfoFn = unsafe extern "C" fn(i32) -> *const TVMFFITypeInfo;
type AttrColumnFn = unsafe extern "C" fn(*const TVMFFIByteArray) -> *const TVMFFITypeAttrColumn;
type StringFromBytesFn = unsafe extern "C" fn(*const TVMFFIByteArray, *mut TVMFFIAny) -> i32;
type DataTypeToStringFn = unsafe extern "C" fn(*const DLDataType, *mut TVMFFIAny) -> i32;

/// The C functions of the runtime that the dump calls.
struct Api {
    get_global: GetGlobalFn,
    call: CallFn,
    dec_ref: DecRefFn,
    move_error: MoveErrorFn,
    key_to_index: KeyToIndexFn,
    type_info: TypeInfoFn,
    attr_column: AttrColumnFn,
    string_from_bytes: StringFromBytesFn,
    dtype_to_string: DataTypeToStringFn,
}

/// An opened TVM-FFI runtime.
pub struct Runtime {
    /// The path it was opened from (for messages).
    pub path: PathBuf,
    /// The `dlopen` handle (never closed).
    handle: *mut c_void,
    api: Api,
}

/// An owned object reference; released on drop.
pub struct Obj<'rt> {
    rt: &'rt Runtime,
    handle: TVMFFIObjectHandle,
}

impl Drop for Obj<'_> {
    fn drop(&mut self) {
        // SAFETY: we own one reference to a live object.
        unsafe { (self.rt.api.dec_ref)(self.handle) };
    }
}

impl Obj<'_> {
    fn type_index(&self) -> i32 {
        // SAFETY: handles point at a live object header.
        unsafe { (*(self.handle as *const TVMFFIObject)).type_index }
    }
}

/// A value returned by a call, converted to Rust.
pub enum Value<'rt> {
    /// `None`.
    None,
    /// An integer (or bool).
    Int(i64),
    /// A string.
    Str(String),
    /// Any other object.
    Obj(Obj<'rt>),
    /// Something else (a float, a data type...), not needed by the dump.
    Other,
}

/// An argument of a call.
pub enum Arg<'a> {
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A string (converted to a runtime string for the call).
    Str(&'a str),
    /// An object, passed as a borrowed view.
    Obj(&'a Obj<'a>),
}

fn byte_array(s: &[u8]) -> TVMFFIByteArray {
    TVMFFIByteArray {
        data: s.as_ptr().cast(),
        size: s.len(),
    }
}

/// # Safety
/// `a` must point at `a.size` readable bytes (or have size 0).
unsafe fn read_bytes(a: &TVMFFIByteArray) -> String {
    if a.size == 0 || a.data.is_null() {
        return String::new();
    }
    // SAFETY: guaranteed by the caller.
    let bytes = unsafe { std::slice::from_raw_parts(a.data.cast::<u8>(), a.size) };
    String::from_utf8_lossy(bytes).into_owned()
}

const NONE_ANY: TVMFFIAny = TVMFFIAny {
    type_index: tindex::NONE,
    small_str_len: 0,
    value: TVMFFIAnyValue { v_int64: 0 },
};

/// The dynamic loader's own message (`dlerror()`) for a failed open or close: libloading's
/// `Display` only says "dlopen failed" and keeps the loader's text as the error's source.
fn loader_message(error: &libloading::Error) -> String {
    use std::error::Error as _;
    error
        .source()
        .map_or_else(|| error.to_string(), |source| source.to_string())
}

impl Runtime {
    /// Opens the runtime at `path` (a file path, or a bare name for the default search).
    pub fn open(path: &Path) -> Result<Runtime, DumpError> {
        let display = path.display().to_string();
        if path.components().count() > 1 && !path.exists() {
            return Err(DumpError::Runtime(format!("{display}: no such file")));
        }
        // SAFETY: loading a shared library runs its initializers; a TVM-FFI runtime's are safe.
        let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }.map_err(|e| {
            DumpError::Runtime(format!("cannot load {display}: {}", loader_message(&e)))
        })?;
        let api = Self::resolve(&lib, &display)?;
        Ok(Runtime {
            path: path.to_path_buf(),
            handle: lib.into_raw(),
            api,
        })
    }

    /// The runtime already loaded in this process (by its SONAME `libtvm_ffi.so`), for a dump
    /// made from inside a process (`dump_registered`).
    pub fn loaded() -> Result<Runtime, DumpError> {
        // SAFETY: RTLD_NOLOAD loads nothing: it returns the object already in the process.
        let lib = unsafe { Library::open(Some("libtvm_ffi.so"), RTLD_NOW | RTLD_NOLOAD) }.map_err(
            |e| {
                DumpError::Runtime(format!(
                    "no TVM-FFI runtime (libtvm_ffi.so) is loaded in this process: {}",
                    loader_message(&e)
                ))
            },
        )?;
        let api = Self::resolve(&lib, "libtvm_ffi.so")?;
        Ok(Runtime {
            path: "libtvm_ffi.so".into(),
            handle: lib.into_raw(),
            api,
        })
    }

    fn resolve(lib: &Library, display: &str) -> Result<Api, DumpError> {
        fn sym<T: Copy>(lib: &Library, name: &str, display: &str) -> Result<T, DumpError> {
            // SAFETY: the symbol types match the TVM-FFI C ABI declarations.
            unsafe { lib.get::<T>(name) }.map(|s| *s).map_err(|_| {
                DumpError::Runtime(format!(
                    "{display} is not a TVM-FFI runtime: it has no symbol {name}"
                ))
            })
        }
        Ok(Api {
            get_global: sym(lib, "TVMFFIFunctionGetGlobal", display)?,
            call: sym(lib, "TVMFFIFunctionCall", display)?,
            dec_ref: sym(lib, "TVMFFIObjectDecRef", display)?,
            move_error: sym(lib, "TVMFFIErrorMoveFromRaised", display)?,
            key_to_index: sym(lib, "TVMFFITypeKeyToIndex", display)?,
            type_info: sym(lib, "TVMFFIGetTypeInfo", display)?,
            attr_column: sym(lib, "TVMFFIGetTypeAttrColumn", display)?,
            string_from_bytes: sym(lib, "TVMFFIStringFromByteArray", display)?,
            dtype_to_string: sym(lib, "TVMFFIDataTypeToString", display)?,
        })
    }

    /// Opens a library into the process (`RTLD_NOW | RTLD_GLOBAL`, never closed), then checks
    /// that it did not bring a second `libtvm_ffi.so` with it.
    pub fn load_library(&self, path: &Path) -> Result<(), DumpError> {
        let display = path.display().to_string();
        if !path.is_file() {
            return Err(DumpError::Library(format!("{display}: no such file")));
        }
        // SAFETY: loading runs the library's static initializers, which register its items.
        let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }.map_err(|e| {
            DumpError::Library(format!("cannot load {display}: {}", loader_message(&e)))
        })?;
        lib.into_raw();
        // SAFETY: RTLD_NOLOAD only queries; the handle (if any) is released at once.
        if let Ok(other) = unsafe { Library::open(Some("libtvm_ffi.so"), RTLD_NOW | RTLD_NOLOAD) } {
            let other_handle = other.into_raw();
            // SAFETY: balances the reference RTLD_NOLOAD took.
            unsafe { Library::from_raw(other_handle) }
                .close()
                .map_err(|e| DumpError::Library(loader_message(&e)))?;
            if other_handle != self.handle {
                return Err(DumpError::Library(format!(
                    "{display} loaded a second libtvm_ffi.so instead of using {}: that runtime \
                     is not libtvm_ffi.so by SONAME; put its folder first in LD_LIBRARY_PATH",
                    self.path.display()
                )));
            }
        }
        Ok(())
    }

    fn take_error(&self, what: &str) -> DumpError {
        let mut err: TVMFFIObjectHandle = std::ptr::null_mut();
        // SAFETY: moves the thread-local error out (or NULL).
        unsafe { (self.api.move_error)(&mut err) };
        if err.is_null() {
            return DumpError::Call(format!("{what} failed without an error object"));
        }
        // SAFETY: an Error object's cell follows its 24-byte header.
        let (kind, message) = unsafe {
            let cell = &*(err.cast::<u8>().add(std::mem::size_of::<TVMFFIObject>())
                as *const TVMFFIErrorCell);
            (read_bytes(&cell.kind), read_bytes(&cell.message))
        };
        drop(Obj {
            rt: self,
            handle: err,
        });
        DumpError::Call(format!("{what} raised {kind}: {message}"))
    }

    /// The global function `name`, if registered.
    pub fn global(&self, name: &str) -> Result<Option<Obj<'_>>, DumpError> {
        let mut out: TVMFFIObjectHandle = std::ptr::null_mut();
        let key = byte_array(name.as_bytes());
        // SAFETY: valid name view and out pointer.
        if unsafe { (self.api.get_global)(&key, &mut out) } != 0 {
            return Err(self.take_error(&format!("looking up {name}")));
        }
        Ok((!out.is_null()).then_some(Obj {
            rt: self,
            handle: out,
        }))
    }

    /// The global function `name`, which must exist.
    pub fn require_global(&self, name: &str) -> Result<Obj<'_>, DumpError> {
        self.global(name)?.ok_or_else(|| {
            DumpError::Runtime(format!(
                "{} has no global function {name}",
                self.path.display()
            ))
        })
    }

    /// Calls a function object with `args`.
    pub fn call(&self, f: &Obj<'_>, args: &[Arg<'_>], what: &str) -> Result<Value<'_>, DumpError> {
        // Strings are created as runtime strings and released after the call.
        let mut temps: Vec<Obj<'_>> = Vec::new();
        let mut packed: Vec<TVMFFIAny> = Vec::with_capacity(args.len());
        for arg in args {
            packed.push(match arg {
                Arg::Int(v) => TVMFFIAny {
                    type_index: tindex::INT,
                    small_str_len: 0,
                    value: TVMFFIAnyValue { v_int64: *v },
                },
                Arg::Bool(v) => TVMFFIAny {
                    type_index: tindex::BOOL,
                    small_str_len: 0,
                    value: TVMFFIAnyValue {
                        v_int64: i64::from(*v),
                    },
                },
                Arg::Obj(o) => TVMFFIAny {
                    type_index: o.type_index(),
                    small_str_len: 0,
                    value: TVMFFIAnyValue {
                        v_obj: o.handle.cast(),
                    },
                },
                Arg::Str(s) => {
                    let mut out = NONE_ANY;
                    let bytes = byte_array(s.as_bytes());
                    // SAFETY: valid input view and output slot.
                    if unsafe { (self.api.string_from_bytes)(&bytes, &mut out) } != 0 {
                        return Err(self.take_error("TVMFFIStringFromByteArray"));
                    }
                    if out.type_index >= tindex::OBJECT {
                        temps.push(Obj {
                            rt: self,
                            // SAFETY: the tag says the payload is an object.
                            handle: unsafe { out.value.v_obj }.cast(),
                        });
                    }
                    out
                }
            });
        }
        let mut rv = NONE_ANY;
        // SAFETY: `f` is a live function; arguments are valid views for the call.
        let code =
            unsafe { (self.api.call)(f.handle, packed.as_mut_ptr(), packed.len() as i32, &mut rv) };
        drop(temps);
        if code != 0 {
            return Err(self.take_error(what));
        }
        // SAFETY: a successful call leaves an owned value in `rv`.
        Ok(unsafe { self.owned_value(rv) })
    }

    /// Converts an owned Any, taking over its reference.
    ///
    /// # Safety
    /// `v` must be an owned, valid Any.
    unsafe fn owned_value(&self, v: TVMFFIAny) -> Value<'_> {
        match v.type_index {
            tindex::NONE => Value::None,
            // SAFETY: the tag says the payload is an integer.
            tindex::INT | tindex::BOOL => Value::Int(unsafe { v.value.v_int64 }),
            tindex::SMALL_STR | tindex::STR => {
                // SAFETY: a valid string Any.
                let s = unsafe { self.view_string(&v) }.unwrap_or_default();
                if v.type_index == tindex::STR {
                    // SAFETY: the tag says the payload is an object we own.
                    drop(Obj {
                        rt: self,
                        handle: unsafe { v.value.v_obj }.cast(),
                    });
                }
                Value::Str(s)
            }
            t if t >= tindex::OBJECT => Value::Obj(Obj {
                rt: self,
                // SAFETY: the tag says the payload is an object we own.
                handle: unsafe { v.value.v_obj }.cast(),
            }),
            _ => Value::Other,
        }
    }

    /// The text of a borrowed string Any (small or heap), or `None` if it is not a string.
    ///
    /// # Safety
    /// `v` must be a valid Any.
    pub unsafe fn view_string(&self, v: &TVMFFIAny) -> Option<String> {
        match v.type_index {
            tindex::SMALL_STR => {
                let len = (v.small_str_len as usize).min(8);
                // SAFETY: small strings keep their bytes inline.
                let bytes = unsafe { v.value.v_bytes };
                Some(String::from_utf8_lossy(&bytes[..len]).into_owned())
            }
            tindex::STR => {
                // SAFETY: a String object's bytes view follows its header.
                unsafe {
                    let obj = v.value.v_obj.cast::<u8>();
                    let cell =
                        &*(obj.add(std::mem::size_of::<TVMFFIObject>()) as *const TVMFFIByteArray);
                    Some(read_bytes(cell))
                }
            }
            _ => None,
        }
    }

    /// The spelling of a data type (`float32`).
    pub fn dtype_string(&self, dtype: &DLDataType) -> Result<String, DumpError> {
        let mut out = NONE_ANY;
        // SAFETY: valid input and output.
        if unsafe { (self.api.dtype_to_string)(dtype, &mut out) } != 0 {
            return Err(self.take_error("TVMFFIDataTypeToString"));
        }
        // SAFETY: an owned string Any.
        match unsafe { self.owned_value(out) } {
            Value::Str(s) => Ok(s),
            _ => Err(DumpError::Call(
                "TVMFFIDataTypeToString returned a non-string".into(),
            )),
        }
    }

    /// The elements of an `ffi.Array` of strings.
    pub fn string_array(&self, arr: &Obj<'_>, what: &str) -> Result<Vec<String>, DumpError> {
        if arr.type_index() != tindex::ARRAY {
            return Err(DumpError::Call(format!("{what} did not return an array")));
        }
        // SAFETY: an Array object's sequence cell follows its header; elements are Anys.
        unsafe {
            let cell = &*(arr
                .handle
                .cast::<u8>()
                .add(std::mem::size_of::<TVMFFIObject>())
                as *const TVMFFISeqCell);
            let items = std::slice::from_raw_parts(
                cell.data.cast::<TVMFFIAny>(),
                usize::try_from(cell.size).unwrap_or(0),
            );
            items
                .iter()
                .map(|a| {
                    self.view_string(a).ok_or_else(|| {
                        DumpError::Call(format!("{what}: an element is not a string"))
                    })
                })
                .collect()
        }
    }

    /// The type index of a type key.
    pub fn type_index(&self, key: &str) -> Result<i32, DumpError> {
        let mut out = 0;
        let k = byte_array(key.as_bytes());
        // SAFETY: valid key view and output.
        if unsafe { (self.api.key_to_index)(&k, &mut out) } != 0 {
            return Err(self.take_error(&format!("TVMFFITypeKeyToIndex({key})")));
        }
        Ok(out)
    }

    /// The reflection record of a type (process-lifetime pointer).
    pub fn type_info(&self, index: i32) -> Result<&TVMFFITypeInfo, DumpError> {
        // SAFETY: `index` comes from the registry; the record lives as long as the process.
        unsafe { (self.api.type_info)(index).as_ref() }
            .ok_or_else(|| DumpError::Call(format!("no type info for type index {index}")))
    }

    /// The entry of type attribute `name` for a type, if present and not None.
    pub fn type_attr(&self, name: &str, index: i32) -> Option<TVMFFIAny> {
        let n = byte_array(name.as_bytes());
        // SAFETY: valid name; the column (if any) lives as long as the process.
        let col = unsafe { (self.api.attr_column)(&n).as_ref() }?;
        let slot = index.checked_sub(col.begin_index)?;
        if slot < 0 || slot >= col.size || col.data.is_null() {
            return None;
        }
        // SAFETY: in range of the column.
        let v = unsafe { *col.data.add(slot as usize) };
        (v.type_index != tindex::NONE).then_some(v)
    }
}

/// Reads a byte array owned by the runtime (names, docs, metadata of reflection records).
///
/// # Safety
/// As [`read_bytes`].
pub unsafe fn runtime_str(a: &TVMFFIByteArray) -> String {
    // SAFETY: forwarded.
    unsafe { read_bytes(a) }
}
