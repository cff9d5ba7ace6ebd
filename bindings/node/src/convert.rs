//! JavaScript values <-> TVM-FFI `Any`.
//!
//! In (JS -> Any) every conversion produces an **owned** value (objects IncRef'd, strings and
//! containers created), released by the caller after the call ([`ArgBuf`]). Out (Any -> JS)
//! consumes an owned value: objects are wrapped (the wrapper owns the reference), strings and
//! bytes are copied and released.
//!
//! | JavaScript | TVM-FFI |
//! |---|---|
//! | `undefined`, `null` | None |
//! | `boolean` | Bool |
//! | `number` | Int when a safe integer (`Number.isSafeInteger`, not `-0`), else Float |
//! | `bigint` | Int when it fits in int64, else `ffi.BigInt` |
//! | `string` | String (small strings inline) |
//! | `Uint8Array`/`Buffer`, `ArrayBuffer`, `DataView` | Bytes (copied) |
//! | other TypedArrays | Tensor (1-D, zero-copy, keeps the buffer alive and attached) |
//! | `Array` (a Proxy of one too) | `ffi.Array` |
//! | `Map`, plain objects | `ffi.Map` (plain objects: string keys; array-likes are refused) |
//! | `DataType`, `Device`, `OpaquePtr` | DataType, Device, OpaquePtr |
//! | `Error` | `ffi.Error` (kind from `error.kind` or `error.name`) |
//! | wrapped objects and functions | the object itself |
//! | other functions | a new `ffi.Function` calling the JavaScript function |

use crate::env::EnvData;
use crate::ffi::{self, byte_array};
use crate::napi::{self, napi_value, Env, Result, Type};
use crate::{function, object, tensor};
use ffihub_abi::abi::{TVMFFIAny, TVMFFIAnyValue, TVMFFIByteArray, TVMFFIObjectHandle};
use ffihub_abi::dlpack::{DLDataType, DLDevice};
use ffihub_abi::tindex;
use std::mem::MaybeUninit;

/// The largest integer a JavaScript number holds exactly (2^53 - 1).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Owned arguments of one call, released when dropped (but for borrowed ones).
pub struct ArgBuf {
    inline: [MaybeUninit<TVMFFIAny>; INLINE_ARGS],
    len: usize,
    spill: Vec<TVMFFIAny>,
    /// Bit i: argument i is borrowed ([`ArgBuf::push_borrowed`]), not released.
    borrowed: u64,
}

/// Arguments kept on the stack (more spill to the heap).
const INLINE_ARGS: usize = 6;

impl ArgBuf {
    /// An empty buffer.
    pub fn new() -> Self {
        ArgBuf {
            inline: [MaybeUninit::uninit(); INLINE_ARGS],
            len: 0,
            spill: Vec::new(),
            borrowed: 0,
        }
    }

    /// Appends an object borrowed for the call (its owner outlives it), which is not released.
    pub fn push_borrowed(&mut self, handle: TVMFFIObjectHandle) {
        let i = self.as_mut_slice().len();
        if i < 64 {
            self.borrowed |= 1 << i;
        } else {
            // SAFETY: a live object (the caller's); this Any gets its own reference.
            unsafe { ffi::TVMFFIObjectIncRef(handle) };
        }
        self.push(ffi::object_any(handle));
    }

    /// Appends an owned value.
    #[inline]
    pub fn push(&mut self, value: TVMFFIAny) {
        if self.len < INLINE_ARGS && self.spill.is_empty() {
            self.inline[self.len].write(value);
            self.len += 1;
        } else {
            self.push_spill(value);
        }
    }

    #[inline(never)]
    fn push_spill(&mut self, value: TVMFFIAny) {
        if self.spill.is_empty() {
            let inline = self.inline_values().to_vec();
            self.spill.extend(inline);
            self.len = 0;
        }
        self.spill.push(value);
    }

    /// Converts `value` and appends it.
    #[inline]
    pub fn push_js(&mut self, data: &EnvData, value: napi_value) -> Result<()> {
        let mut any = ffi::none();
        to_any(data, value, &mut any)?;
        self.push(any);
        Ok(())
    }

    fn inline_values(&self) -> &[TVMFFIAny] {
        // SAFETY: the first `len` slots were written by `push`.
        unsafe { std::slice::from_raw_parts(self.inline.as_ptr().cast(), self.len) }
    }

    /// The values.
    pub fn as_mut_slice(&mut self) -> &mut [TVMFFIAny] {
        if self.spill.is_empty() {
            // SAFETY: the first `len` slots were written by `push`.
            unsafe { std::slice::from_raw_parts_mut(self.inline.as_mut_ptr().cast(), self.len) }
        } else {
            &mut self.spill
        }
    }
}

impl Default for ArgBuf {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for ArgBuf {
    fn drop(&mut self) {
        let borrowed = self.borrowed;
        for (i, v) in self.as_mut_slice().iter_mut().enumerate() {
            if i >= 64 || borrowed & (1 << i) == 0 {
                ffi::release(v);
            }
        }
    }
}

/// An owned `Any` released when dropped (unless taken).
pub struct OwnedAny(pub TVMFFIAny);

impl OwnedAny {
    /// Gives up ownership.
    pub fn take(mut self) -> TVMFFIAny {
        std::mem::replace(&mut self.0, ffi::none())
    }
}

impl Drop for OwnedAny {
    fn drop(&mut self) {
        ffi::release(&mut self.0);
    }
}

/// An Int `Any`.
pub fn int_any(v: i64) -> TVMFFIAny {
    TVMFFIAny {
        type_index: tindex::INT,
        small_str_len: 0,
        value: TVMFFIAnyValue { v_int64: v },
    }
}

/// A Bool `Any`.
pub fn bool_any(b: bool) -> TVMFFIAny {
    TVMFFIAny {
        type_index: tindex::BOOL,
        small_str_len: 0,
        value: TVMFFIAnyValue {
            v_int64: i64::from(b),
        },
    }
}

/// A Float `Any`.
pub fn float_any(v: f64) -> TVMFFIAny {
    TVMFFIAny {
        type_index: tindex::FLOAT,
        small_str_len: 0,
        value: TVMFFIAnyValue { v_float64: v },
    }
}

/// An owned String `Any` from UTF-8 bytes (inline when at most 7 bytes).
pub fn string_any(bytes: &[u8]) -> Result<TVMFFIAny> {
    small_or_heap(bytes, tindex::SMALL_STR, ffi::TVMFFIStringFromByteArray)
}

/// An owned Bytes `Any`.
pub fn bytes_any(bytes: &[u8]) -> Result<TVMFFIAny> {
    small_or_heap(bytes, tindex::SMALL_BYTES, ffi::TVMFFIBytesFromByteArray)
}

fn small_or_heap(
    bytes: &[u8],
    small_index: i32,
    make: unsafe extern "C" fn(*const TVMFFIByteArray, *mut TVMFFIAny) -> i32,
) -> Result<TVMFFIAny> {
    if bytes.len() <= 7 {
        let mut inline = [0u8; 8];
        inline[..bytes.len()].copy_from_slice(bytes);
        return Ok(TVMFFIAny {
            type_index: small_index,
            small_str_len: bytes.len() as u32,
            value: TVMFFIAnyValue { v_bytes: inline },
        });
    }
    let array = byte_array(bytes);
    let mut out = ffi::none();
    // SAFETY: `array` views live bytes; the runtime writes an owned value.
    if unsafe { make(&array, &mut out) } != 0 {
        return Err(napi::Error::Ffi(ffi::take_raised_error()));
    }
    Ok(out)
}

/// Converts a JavaScript value to an owned `Any` in `out` (which must hold no owned value).
#[inline]
pub fn to_any(data: &EnvData, value: napi_value, out: &mut TVMFFIAny) -> Result<()> {
    // Numbers first: one Node-API call instead of two for the most common argument.
    if let Some(x) = data.env.try_f64(value) {
        *out = number_any(x);
        return Ok(());
    }
    to_any_slow(data, value, out)
}

#[inline(never)]
fn to_any_slow(data: &EnvData, value: napi_value, out: &mut TVMFFIAny) -> Result<()> {
    let env = data.env;
    match env.type_of(value)? {
        Type::napi_undefined | Type::napi_null => *out = ffi::none(),
        Type::napi_boolean => *out = bool_any(env.get_bool(value)?),
        Type::napi_number => *out = number_any(env.get_f64(value)?),
        Type::napi_bigint => *out = bigint_any(env, value)?,
        Type::napi_string => {
            let mut bytes = Vec::new();
            env.get_string_into(value, &mut bytes)?;
            *out = string_any(&bytes)?;
        }
        Type::napi_function => {
            if let Some(handle) = function::unwrap_function(env, value)? {
                // SAFETY: the wrapper holds a reference; the Any gets its own.
                unsafe { ffi::TVMFFIObjectIncRef(handle) };
                *out = ffi::object_any(handle);
            } else {
                *out = ffi::object_any(function::js_callback(data, value)?);
            }
        }
        Type::napi_object => object_to_any(data, value, out)?,
        other => {
            let what = if other == Type::napi_symbol {
                "a symbol"
            } else {
                "an external"
            };
            return napi::type_error(format!("cannot convert {what} to a TVM-FFI value"));
        }
    }
    Ok(())
}

/// The Any of a number: Int for safe integers (but not -0), Float otherwise.
#[inline]
pub fn number_any(x: f64) -> TVMFFIAny {
    // `as i64` saturates (NaN gives 0), so the round trip only holds for integers; this avoids
    // a call to libm's `trunc` on the hot path.
    if x.abs() <= MAX_SAFE_INTEGER as f64
        && (x as i64) as f64 == x
        && !(x == 0.0 && x.is_sign_negative())
    {
        int_any(x as i64)
    } else {
        float_any(x)
    }
}

fn bigint_any(env: Env, value: napi_value) -> Result<TVMFFIAny> {
    let (x, lossless) = env.get_bigint_i64(value)?;
    if lossless {
        return Ok(int_any(x));
    }
    // Two's complement little-endian 64-bit words, as TVMFFIBigIntFromByteArray expects.
    let (negative, mut words) = env.get_bigint_words(value)?;
    words.push(0); // room for the sign bit
    if negative {
        let mut carry = true;
        for w in &mut words {
            *w = !*w;
            if carry {
                let (v, c) = w.overflowing_add(1);
                *w = v;
                carry = c;
            }
        }
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
    let array = byte_array(&bytes);
    let mut out = ffi::none();
    // SAFETY: `array` views live bytes; the runtime writes an owned value.
    if unsafe { ffi::TVMFFIBigIntFromByteArray(&array, &mut out) } != 0 {
        return Err(napi::Error::Ffi(ffi::take_raised_error()));
    }
    Ok(out)
}

fn object_to_any(data: &EnvData, value: napi_value, out: &mut TVMFFIAny) -> Result<()> {
    let env = data.env;
    if let Some(handle) = env.unwrap(value) {
        // SAFETY: only object cells are attached to objects (see object.rs).
        let Some(handle) = unsafe { &*(handle as *const object::ObjectCell) }.handle() else {
            return napi::type_error("this TVM-FFI object was disposed");
        };
        *out = wrapped_object_any(data, handle)?;
        return Ok(());
    }
    if env.is_typedarray(value)? {
        let info = env.typedarray_info(value)?;
        if info.kind == napi_sys::TypedarrayType::uint8_array {
            // Uint8Array and Buffer are bytes; `ffi.tensor(u8)` makes a uint8 tensor.
            *out = bytes_any(raw_bytes(info.data, info.length))?;
        } else {
            *out = ffi::object_any(tensor::from_typed_array(data, value, None, None)?);
        }
        return Ok(());
    }
    if env.is_array(value)? {
        *out = array_any(data, value, env.array_len(value)?)?;
        return Ok(());
    }
    let hooks_instance =
        |pick: fn(&crate::env::Hooks) -> Option<napi_sys::napi_ref>| -> Result<bool> {
            let class = data.hook(pick)?;
            env.instance_of(value, class)
        };
    if hooks_instance(|h| h.data_type)? {
        let dtype = DLDataType {
            code: get_u32(env, value, b"code\0")? as u8,
            bits: get_u32(env, value, b"bits\0")? as u8,
            lanes: get_u32(env, value, b"lanes\0")? as u16,
        };
        *out = TVMFFIAny {
            type_index: tindex::DATA_TYPE,
            small_str_len: 0,
            value: TVMFFIAnyValue { v_dtype: dtype },
        };
        return Ok(());
    }
    if hooks_instance(|h| h.device)? {
        let device = DLDevice {
            device_type: get_u32(env, value, b"deviceType\0")? as i32,
            device_id: get_u32(env, value, b"deviceId\0")? as i32,
        };
        *out = TVMFFIAny {
            type_index: tindex::DEVICE,
            small_str_len: 0,
            value: TVMFFIAnyValue { v_device: device },
        };
        return Ok(());
    }
    if hooks_instance(|h| h.map)? {
        let _nesting = Nesting::enter(data, value)?;
        let flat = env.call_function(env.undefined(), data.hook(|h| h.flatten_map)?, &[value])?;
        *out = map_from_flat(data, flat, function::Builtin::Map)?;
        return Ok(());
    }
    if hooks_instance(|h| h.opaque_ptr)? {
        let address = env.get_named(value, b"address\0")?;
        let (addr, _) = env.get_bigint_i64(address)?;
        *out = TVMFFIAny {
            type_index: tindex::OPAQUE_PTR,
            small_str_len: 0,
            value: TVMFFIAnyValue {
                v_ptr: addr as usize as *mut _,
            },
        };
        return Ok(());
    }
    if env.is_arraybuffer(value)? {
        let (ptr, len) = env.arraybuffer_info(value)?;
        *out = bytes_any(raw_bytes(ptr, len))?;
        return Ok(());
    }
    if env.is_dataview(value)? {
        let (ptr, len) = env.dataview_info(value)?;
        *out = bytes_any(raw_bytes(ptr, len))?;
        return Ok(());
    }
    if env.is_error(value)? {
        *out = ffi::object_any(crate::error::error_from_js(data, value)?);
        return Ok(());
    }
    // A wrapper made in JavaScript, passed for the first time (after the kinds above, DataType
    // and Device above all, which are passed on every call and need not pay for the lookup).
    if let Some(cell) = object::unwrapped_cell(data, value)? {
        let Some(handle) = cell.handle() else {
            return napi::type_error("this TVM-FFI object was disposed");
        };
        *out = wrapped_object_any(data, handle)?;
        return Ok(());
    }
    // An array that `napi_is_array` does not see (a Proxy of an array): read through the proxy.
    let is_array = env.call_function(env.undefined(), data.hook(|h| h.is_array)?, &[value])?;
    if env.get_bool(is_array)? {
        let length = env.get_f64(env.get_named(value, b"length\0")?)?;
        if !(0.0..=f64::from(u32::MAX)).contains(&length) || length.fract() != 0.0 {
            return napi::type_error(format!(
                "an array's length must be a valid array length, got {length}"
            ));
        }
        *out = array_any(data, value, length as u32)?;
        return Ok(());
    }
    let proto = env.prototype_of(value)?;
    if env.type_of(proto)? == Type::napi_null
        || env.strict_equals(proto, data.hook(|h| h.object_proto)?)?
    {
        // An array-like object would become a map with a `length` key: almost surely not what
        // was meant.
        let length = env.get_named(value, b"length\0")?;
        if env.type_of(length)? == Type::napi_number {
            return napi::type_error(
                "cannot convert an array-like object (a plain object with a numeric `length`) to \
                 a TVM-FFI value: pass an Array (Array.from(value)), or a Map \
                 (new Map(Object.entries(value))) for a map with a `length` key",
            );
        }
        // A plain object: a map with string keys.
        let _nesting = Nesting::enter(data, value)?;
        let keys = env.keys(value)?;
        let n = env.array_len(keys)?;
        let mut items = ArgBuf::new();
        for i in 0..n {
            let key = env.get_element(keys, i)?;
            items.push_js(data, key)?;
            items.push_js(data, env.get_property(value, key)?)?;
        }
        *out = function::call_builtin(function::Builtin::Map, &mut items)?;
        return Ok(());
    }
    if hooks_instance(|h| h.object_base)? {
        return napi::type_error("this TVM-FFI object was disposed");
    }
    napi::type_error("cannot convert this object to a TVM-FFI value (expected a TVM-FFI object, an array, a Map, a plain object, a TypedArray, a DataType or a Device)")
}

/// An `ffi.Array` of the first `n` elements of a JavaScript array (or a Proxy of one).
fn array_any(data: &EnvData, value: napi_value, n: u32) -> Result<TVMFFIAny> {
    let env = data.env;
    let _nesting = Nesting::enter(data, value)?;
    let mut items = ArgBuf::new();
    match packed_numbers(data, value, n)? {
        Some(numbers) => numbers.iter().for_each(|&x| items.push(number_any(x))),
        None => {
            for i in 0..n {
                items.push_js(data, env.get_element(value, i)?)?;
            }
        }
    }
    function::call_builtin(function::Builtin::Array, &mut items)
}

/// The owned Any of the object a wrapper holds. A tensor over JavaScript memory must still have
/// its ArrayBuffer (see `tensor::js_source`).
fn wrapped_object_any(data: &EnvData, handle: TVMFFIObjectHandle) -> Result<TVMFFIAny> {
    // SAFETY: the wrapper holds a reference to the live object.
    if unsafe { ffi::type_index_of(handle) } == tindex::TENSOR {
        tensor::js_source(data, handle)?;
    }
    // SAFETY: as above; the Any gets its own reference.
    unsafe { ffi::TVMFFIObjectIncRef(handle) };
    Ok(ffi::object_any(handle))
}

/// How deeply containers (arrays, Maps, plain objects) may nest in a value converted to TVM-FFI:
/// conversion recurses, and a JavaScript value can nest (or cycle) far deeper than the native
/// stack holds.
pub const MAX_NESTING: usize = 1000;

/// A container being converted, on `EnvData::open_containers` until dropped: bounds the nesting
/// and tells a cycle from a merely deep value in the error.
struct Nesting<'a>(&'a EnvData);

impl<'a> Nesting<'a> {
    fn enter(data: &'a EnvData, container: napi_value) -> Result<Self> {
        let depth = data.open_containers.borrow().len();
        if depth >= MAX_NESTING {
            // Only on this error path: a cycle keeps the conversion inside it, so the innermost
            // open container (or `container`) is also one of the containers around it.
            let open = data.open_containers.borrow().clone();
            let (innermost, around) = open.split_last().expect("MAX_NESTING > 0");
            for outer in around.iter().rev() {
                if data.env.strict_equals(*outer, *innermost)?
                    || data.env.strict_equals(*outer, container)?
                {
                    return napi::range_error(
                        data.env,
                        "cannot convert a cyclic value to a TVM-FFI value (an array, Map or object contains itself)",
                    );
                }
            }
            return napi::range_error(
                data.env,
                &format!("cannot convert a value nested too deeply to a TVM-FFI value (more than {MAX_NESTING} levels of arrays, Maps or objects)"),
            );
        }
        data.open_containers.borrow_mut().push(container);
        Ok(Nesting(data))
    }
}

impl Drop for Nesting<'_> {
    fn drop(&mut self) {
        self.0.open_containers.borrow_mut().pop();
    }
}

/// The elements of a JavaScript array of `n` numbers, read in one pass by the `packNumbers`
/// hook (one Node-API call per element costs far more); None for short arrays or when an
/// element is not a number. The slice views the Float64Array, alive for the current call.
fn packed_numbers<'a>(data: &EnvData, array: napi_value, n: u32) -> Result<Option<&'a [f64]>> {
    const MIN_PACKED: u32 = 8;
    if n < MIN_PACKED {
        return Ok(None);
    }
    let env = data.env;
    let pack = data.hook(|h| h.pack_numbers)?;
    let packed = env.call_function(env.undefined(), pack, &[array])?;
    if !env.is_typedarray(packed)? {
        return Ok(None);
    }
    let info = env.typedarray_info(packed)?;
    if info.kind != napi_sys::TypedarrayType::float64_array || info.length != n as usize {
        return Ok(None);
    }
    // SAFETY: a Float64Array of `length` elements, kept alive by the handle scope of this call.
    Ok(Some(unsafe {
        std::slice::from_raw_parts(info.data.cast::<f64>(), info.length)
    }))
}

/// Builds a map from a flat JavaScript array `[k0, v0, k1, v1, ...]`.
pub fn map_from_flat(
    data: &EnvData,
    flat: napi_value,
    builtin: function::Builtin,
) -> Result<TVMFFIAny> {
    let env = data.env;
    let n = env.array_len(flat)?;
    let mut items = ArgBuf::new();
    for i in 0..n {
        items.push_js(data, env.get_element(flat, i)?)?;
    }
    function::call_builtin(builtin, &mut items)
}

fn get_u32(env: Env, object: napi_value, name: &[u8]) -> Result<u32> {
    let v = env.get_named(object, name)?;
    let x = env.get_f64(v)?;
    if !(0.0..=u32::MAX as f64).contains(&x) || x.trunc() != x {
        return napi::type_error(format!(
            "invalid {}: {x}",
            String::from_utf8_lossy(&name[..name.len() - 1])
        ));
    }
    Ok(x as u32)
}

fn raw_bytes<'a>(data: *mut std::ffi::c_void, len: usize) -> &'a [u8] {
    if len == 0 || data.is_null() {
        &[]
    } else {
        // SAFETY: Node-API reported `len` readable bytes at `data`, alive while the JS value is
        // (it is on the handle scope of the current call).
        unsafe { std::slice::from_raw_parts(data.cast(), len) }
    }
}

/// Converts an owned `Any` to JavaScript, consuming it.
#[inline]
pub fn from_any(data: &EnvData, value: TVMFFIAny) -> Result<napi_value> {
    let env = data.env;
    match value.type_index {
        tindex::NONE => Ok(env.null()),
        tindex::INT => int_value(env, ffi::payload_i64(&value)),
        tindex::FLOAT => env.double(ffi::payload_f64(&value)),
        tindex::BOOL => Ok(env.boolean(ffi::payload_i64(&value) != 0)),
        _ => from_any_slow(data, value),
    }
}

#[inline(never)]
fn from_any_slow(data: &EnvData, value: TVMFFIAny) -> Result<napi_value> {
    let env = data.env;
    let owned = OwnedAny(value);
    let v = &owned.0;
    match v.type_index {
        tindex::NONE => Ok(env.null()),
        tindex::INT => int_value(env, ffi::payload_i64(v)),
        tindex::BOOL => Ok(env.boolean(ffi::payload_i64(v) != 0)),
        tindex::FLOAT => env.double(ffi::payload_f64(v)),
        tindex::SMALL_STR => env.string(small_bytes(v)),
        tindex::SMALL_BYTES => env.buffer_copy(small_bytes(v)),
        tindex::RAW_STR => {
            // SAFETY: a RawStr view holds a NUL-terminated string.
            let s = unsafe { std::ffi::CStr::from_ptr(ffi::payload_ptr(v).cast()) };
            env.string(s.to_bytes())
        }
        tindex::BYTE_ARRAY_PTR => {
            // SAFETY: a ByteArrayPtr view points at a live byte array.
            let bytes = unsafe { ffi::bytes_of(&*(ffi::payload_ptr(v) as *const TVMFFIByteArray)) };
            env.buffer_copy(bytes)
        }
        tindex::STR | tindex::BYTES => {
            // SAFETY: String and Bytes objects hold a byte array after the header.
            let bytes =
                unsafe { ffi::bytes_of(&*ffi::cell::<TVMFFIByteArray>(ffi::payload_ptr(v))) };
            if v.type_index == tindex::STR {
                env.string(bytes)
            } else {
                env.buffer_copy(bytes)
            }
        }
        tindex::BIG_INT => bigint_value(env, v),
        tindex::DATA_TYPE => {
            let d = ffi::payload_dtype(v);
            let args = [
                env.double(f64::from(d.code))?,
                env.double(f64::from(d.bits))?,
                env.double(f64::from(d.lanes))?,
            ];
            env.new_instance(data.hook(|h| h.data_type)?, &args)
        }
        tindex::DEVICE => {
            let d = ffi::payload_device(v);
            let args = [
                env.double(f64::from(d.device_type))?,
                env.double(f64::from(d.device_id))?,
            ];
            env.new_instance(data.hook(|h| h.device)?, &args)
        }
        tindex::OPAQUE_PTR => {
            let p = ffi::payload_ptr(v);
            let address = env.bigint_i64(p as usize as i64)?;
            env.new_instance(data.hook(|h| h.opaque_ptr)?, &[address])
        }
        tindex::DL_TENSOR_PTR => {
            let handle = tensor::view_of_dltensor(ffi::payload_ptr(v).cast())?;
            object::wrap_object(data, handle)
        }
        t if t >= tindex::OBJECT => {
            let handle: TVMFFIObjectHandle = owned.take().value.v_obj_handle();
            object::wrap_object(data, handle)
        }
        t => napi::error(format!(
            "cannot convert a TVM-FFI value of type index {t} to JavaScript"
        )),
    }
}

/// Converts a borrowed `Any` (an argument view) to JavaScript.
pub fn from_view(data: &EnvData, view: &TVMFFIAny) -> Result<napi_value> {
    if view.type_index == tindex::DL_TENSOR_PTR {
        // Copy the view's metadata; the data stays borrowed.
        // SAFETY: the type index selects the member.
        let handle = tensor::view_of_dltensor(unsafe { view.value.v_ptr.cast() })?;
        return object::wrap_object(data, handle);
    }
    let mut owned = ffi::none();
    // SAFETY: `view` is a valid Any for the duration of the call.
    if unsafe { ffi::TVMFFIAnyViewToOwnedAny(view, &mut owned) } != 0 {
        return Err(napi::Error::Ffi(ffi::take_raised_error()));
    }
    from_any(data, owned)
}

trait ObjHandle {
    fn v_obj_handle(self) -> TVMFFIObjectHandle;
}

impl ObjHandle for TVMFFIAnyValue {
    fn v_obj_handle(self) -> TVMFFIObjectHandle {
        // SAFETY: only called for object type indices.
        unsafe { self.v_obj.cast() }
    }
}

fn small_bytes(v: &TVMFFIAny) -> &[u8] {
    let len = (v.small_str_len as usize).min(8);
    // SAFETY: small strings and bytes keep their content in the payload.
    unsafe { &v.value.v_bytes[..len] }
}

/// A JavaScript number for safe integers, a bigint otherwise.
pub fn int_value(env: Env, x: i64) -> Result<napi_value> {
    if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&x) {
        env.double(x as f64)
    } else {
        env.bigint_i64(x)
    }
}

fn bigint_value(env: Env, v: &TVMFFIAny) -> Result<napi_value> {
    // SAFETY: `v` is a live BigInt; the view stays valid while it is.
    let content = unsafe { ffi::TVMFFIBigIntGetContentByteArray(v) };
    // SAFETY: the content is `size` bytes of words.
    let bytes = unsafe { ffi::bytes_of(&content) };
    let mut words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    let negative = words.last().is_some_and(|w| (*w as i64) < 0);
    if negative {
        let mut carry = true;
        for w in &mut words {
            *w = !*w;
            if carry {
                let (v, c) = w.overflowing_add(1);
                *w = v;
                carry = c;
            }
        }
    }
    while words.len() > 1 && words.last() == Some(&0) {
        words.pop();
    }
    env.bigint_words(negative, &words)
}

/// Reads a JavaScript array of numbers into i64s.
pub fn int_list(env: Env, array: napi_value, what: &str) -> Result<Vec<i64>> {
    if !env.is_array(array)? {
        return napi::type_error(format!("{what} must be an array of integers"));
    }
    let n = env.array_len(array)?;
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let item = env.get_element(array, i)?;
        let x = match env.type_of(item)? {
            Type::napi_number => env.get_f64(item)?,
            Type::napi_bigint => env.get_bigint_i64(item)?.0 as f64,
            _ => return napi::type_error(format!("{what} must be an array of integers")),
        };
        if x.trunc() != x {
            return napi::type_error(format!("{what} must be an array of integers"));
        }
        out.push(x as i64);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_cross_as_int_only_when_safe_integers() {
        let kind = |x: f64| number_any(x).type_index;
        assert_eq!(kind(0.0), tindex::INT);
        assert_eq!(kind(-7.0), tindex::INT);
        assert_eq!(kind(MAX_SAFE_INTEGER as f64), tindex::INT);
        assert_eq!(kind(-(MAX_SAFE_INTEGER as f64)), tindex::INT);
        assert_eq!(kind(2f64.powi(53)), tindex::FLOAT);
        assert_eq!(kind(-0.0), tindex::FLOAT);
        assert_eq!(kind(1.5), tindex::FLOAT);
        assert_eq!(kind(f64::NAN), tindex::FLOAT);
        assert_eq!(kind(f64::INFINITY), tindex::FLOAT);
        assert_eq!(ffi::payload_i64(&number_any(42.0)), 42);
    }

    #[test]
    fn arg_buf_spills_past_its_inline_slots() {
        let mut buf = ArgBuf::new();
        for i in 0..10 {
            buf.push(number_any(f64::from(i)));
        }
        let values: Vec<i64> = buf.as_mut_slice().iter().map(ffi::payload_i64).collect();
        assert_eq!(values, (0..10).collect::<Vec<_>>());
    }
}
