//! Tensors without copies, both ways (DLPack).
//!
//! In: a TypedArray becomes an `ffi.Tensor` whose data is the array's memory. The tensor holds a
//! strong reference to the TypedArray (so its buffer stays alive while native code keeps the
//! tensor); the reference is released when the tensor dies, from any thread (see
//! `EnvShared::release_ref`). Its ArrayBuffer is marked untransferable (the `keepAttached` hook,
//! `worker_threads.markAsUntransferable`), so `postMessage` and `structuredClone` copy it (Node
//! 20) or refuse (later versions) instead of detaching the memory under the tensor. A buffer
//! detached anyway (`WebAssembly.Memory.grow`, an addon's `napi_detach_arraybuffer`) is
//! reported: passing or reading a tensor over it is a `TypeError`, never a read of freed memory.
//!
//! Out: `tensorData(t)` gives a TypedArray over the tensor's memory: for a tensor over
//! JavaScript memory, a new view of the same ArrayBuffer (so it shares its fate); otherwise an
//! external ArrayBuffer that points at the tensor's memory and holds a reference to the tensor,
//! released when the buffer is collected. Where the host forbids external buffers
//! (`napi_no_external_buffers_allowed`, e.g. Electron), it falls back to a copy.

use crate::env::{EnvData, EnvShared};
use crate::ffi;
use crate::napi::{self, napi_value, Env, Error, Result};
use crate::object;
use ffihub_abi::abi::TVMFFIObjectHandle;
use ffihub_abi::dlpack::{
    DLDataType, DLDataTypeCode as Code, DLDevice, DLDeviceType, DLManagedTensorVersioned,
    DLPackVersion, DLTensor, DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION,
};
use ffihub_abi::tindex;
use napi_sys::{napi_env, napi_ref, TypedarrayType as TA};
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What a tensor made from JavaScript memory (or from a borrowed DLTensor) owns.
struct Ctx {
    managed: DLManagedTensorVersioned,
    shape: Shape,
    strides: Vec<i64>,
    /// The TypedArray kept alive, with its environment (None for borrowed views).
    keep: Option<(napi_ref, Arc<EnvShared>)>,
    /// The tensor's handle, while it is in [`over_js_memory`].
    handle: usize,
}

/// A tensor's shape, stored in its [`Ctx`]: a 1-D one (a TypedArray passed as it is, the common
/// case) without an allocation of its own.
enum Shape {
    Vector([i64; 1]),
    Any(Vec<i64>),
}

impl Shape {
    fn as_mut_ptr(&mut self) -> *mut i64 {
        match self {
            Shape::Vector(extent) => extent.as_mut_ptr(),
            Shape::Any(dims) => dims.as_mut_ptr(),
        }
    }
}

/// The tensors over JavaScript memory that are alive: handle -> their `Ctx` (removed by
/// `delete_ctx` before the Ctx is freed, so a Ctx found here under the lock is alive).
fn over_js_memory() -> &'static Mutex<HashMap<usize, usize>> {
    static MAP: OnceLock<Mutex<HashMap<usize, usize>>> = OnceLock::new();
    MAP.get_or_init(|| Mutex::new(HashMap::new()))
}

fn lock_map() -> std::sync::MutexGuard<'static, HashMap<usize, usize>> {
    over_js_memory()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn detached_error<T>() -> Result<T> {
    napi::type_error(
        "the ArrayBuffer under this tensor was detached (transferred or resized away): its \
         memory is gone, so the tensor can no longer be read or passed",
    )
}

/// The TypedArray under a tensor made over JavaScript memory in this environment (None for
/// other tensors); a `TypeError` when its buffer has been detached since.
pub fn js_source(data: &EnvData, handle: TVMFFIObjectHandle) -> Result<Option<napi_value>> {
    let reference = {
        let map = lock_map();
        let Some(&ctx) = map.get(&(handle as usize)) else {
            return Ok(None);
        };
        // SAFETY: a Ctx in the map is alive while the lock is held (see `over_js_memory`).
        match unsafe { &(*(ctx as *const Ctx)).keep } {
            Some((r, shared)) if Arc::ptr_eq(shared, &data.shared) => *r,
            _ => return Ok(None),
        }
    };
    let env = data.env;
    // The reference lives as long as the tensor, which the caller holds.
    let array = env.deref(reference)?;
    if env.is_detached_arraybuffer(env.typedarray_info(array)?.buffer)? {
        return detached_error();
    }
    Ok(Some(array))
}

/// The DLPack element type of a TypedArray kind.
fn dtype_of_kind(kind: i32) -> Option<(DLDataType, usize)> {
    let (code, bits) = match kind {
        TA::int8_array => (Code::kDLInt, 8),
        TA::uint8_array | TA::uint8_clamped_array => (Code::kDLUInt, 8),
        TA::int16_array => (Code::kDLInt, 16),
        TA::uint16_array => (Code::kDLUInt, 16),
        TA::int32_array => (Code::kDLInt, 32),
        TA::uint32_array => (Code::kDLUInt, 32),
        TA::float32_array => (Code::kDLFloat, 32),
        TA::float64_array => (Code::kDLFloat, 64),
        TA::bigint64_array => (Code::kDLInt, 64),
        TA::biguint64_array => (Code::kDLUInt, 64),
        _ => return None,
    };
    Some((
        DLDataType {
            code: code as u8,
            bits,
            lanes: 1,
        },
        usize::from(bits / 8),
    ))
}

/// The TypedArray kind for a DLPack element type.
fn kind_of_dtype(d: DLDataType) -> Option<i32> {
    if d.lanes != 1 {
        return None;
    }
    let kind = match (d.code, d.bits) {
        (c, 8) if c == Code::kDLInt as u8 => TA::int8_array,
        (c, 8) if c == Code::kDLUInt as u8 || c == Code::kDLBool as u8 => TA::uint8_array,
        (c, 16) if c == Code::kDLInt as u8 => TA::int16_array,
        // float16/bfloat16 come out as their raw 16-bit patterns.
        (c, 16)
            if c == Code::kDLUInt as u8
                || c == Code::kDLFloat as u8
                || c == Code::kDLBfloat as u8 =>
        {
            TA::uint16_array
        }
        (c, 32) if c == Code::kDLInt as u8 => TA::int32_array,
        (c, 32) if c == Code::kDLUInt as u8 => TA::uint32_array,
        (c, 32) if c == Code::kDLFloat as u8 => TA::float32_array,
        (c, 64) if c == Code::kDLInt as u8 => TA::bigint64_array,
        (c, 64) if c == Code::kDLUInt as u8 => TA::biguint64_array,
        (c, 64) if c == Code::kDLFloat as u8 => TA::float64_array,
        _ => return None,
    };
    Some(kind)
}

unsafe extern "C" fn delete_ctx(managed: *mut DLManagedTensorVersioned) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `manager_ctx` is the Ctx boxed by `adopt_ctx`, deleted once by the tensor.
        let ctx = unsafe { Box::from_raw((*managed).manager_ctx as *mut Ctx) };
        if ctx.handle != 0 {
            let mut map = lock_map();
            // Only this tensor's entry: its address may already be another tensor's.
            if map.get(&ctx.handle) == Some(&(&*ctx as *const Ctx as usize)) {
                map.remove(&ctx.handle);
            }
        }
        if let Some((r, shared)) = &ctx.keep {
            shared.release_ref(*r);
        }
    });
}

/// Turns a filled Ctx into an owned Tensor object, which owns the Ctx.
fn adopt_ctx(mut ctx: Box<Ctx>) -> Result<(TVMFFIObjectHandle, *mut Ctx)> {
    ctx.managed.dl_tensor.shape = ctx.shape.as_mut_ptr();
    ctx.managed.dl_tensor.strides = if ctx.strides.is_empty() {
        ptr::null_mut()
    } else {
        ctx.strides.as_mut_ptr()
    };
    let ctx = Box::into_raw(ctx);
    // SAFETY: `ctx` is a fresh allocation; from here the tensor (or the error path) owns it.
    unsafe { (*ctx).managed.manager_ctx = ctx.cast() };
    let mut out: TVMFFIObjectHandle = ptr::null_mut();
    // SAFETY: a valid versioned DLPack tensor; on success the Tensor takes it over.
    let rc = unsafe { ffi::TVMFFITensorFromDLPackVersioned(&mut (*ctx).managed, 0, 0, &mut out) };
    if rc != 0 {
        let err = ffi::take_raised_error();
        // SAFETY: not consumed on failure.
        unsafe { delete_ctx(&mut (*ctx).managed) };
        return Err(Error::Ffi(err));
    }
    Ok((out, ctx))
}

fn managed(
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    byte_offset: u64,
) -> DLManagedTensorVersioned {
    DLManagedTensorVersioned {
        version: DLPackVersion {
            major: DLPACK_MAJOR_VERSION,
            minor: DLPACK_MINOR_VERSION,
        },
        manager_ctx: ptr::null_mut(),
        deleter: Some(delete_ctx),
        flags: 0,
        dl_tensor: DLTensor {
            data,
            device,
            ndim,
            dtype,
            shape: ptr::null_mut(),
            strides: ptr::null_mut(),
            byte_offset,
        },
    }
}

/// A Tensor (owned) over a TypedArray's memory, 1-D unless `shape` is given.
pub fn from_typed_array(
    data: &EnvData,
    value: napi_value,
    shape: Option<Vec<i64>>,
    strides: Option<Vec<i64>>,
) -> Result<TVMFFIObjectHandle> {
    let env = data.env;
    let info = env.typedarray_info(value)?;
    let Some((dtype, item)) = dtype_of_kind(info.kind) else {
        return napi::type_error("unsupported TypedArray kind");
    };
    if env.is_detached_arraybuffer(info.buffer)? {
        return napi::type_error("this TypedArray's ArrayBuffer was detached (transferred)");
    }
    let shape = shape.unwrap_or_else(|| vec![info.length as i64]);
    let ndim = shape.len() as i32;
    if shape.iter().any(|&d| d < 0) {
        return napi::type_error("negative extent in shape");
    }
    // The elements reachable through shape and strides must lie inside the array.
    let numel: i64 = shape.iter().product();
    let span = match &strides {
        None => numel,
        Some(s) => {
            if s.len() != shape.len() {
                return napi::type_error("strides must have one entry per dimension");
            }
            if numel == 0 {
                0
            } else {
                let mut hi = 0i64;
                for (d, st) in shape.iter().zip(s) {
                    if *st < 0 {
                        return napi::type_error("negative strides are not supported");
                    }
                    hi += (d - 1) * st;
                }
                hi + 1
            }
        }
    };
    if span > info.length as i64 {
        return napi::type_error(format!(
            "shape {shape:?} needs {span} elements but the array has {}",
            info.length
        ));
    }
    let ctx = Box::new(Ctx {
        managed: managed(
            info.data,
            DLDevice {
                device_type: DLDeviceType::kDLCPU as i32,
                device_id: 0,
            },
            ndim,
            dtype,
            0,
        ),
        shape: Shape::Any(shape),
        strides: strides.unwrap_or_default(),
        keep: None,
        handle: 0,
    });
    let _ = item;
    let (handle, ctx) = adopt_ctx(ctx)?;
    // SAFETY: the tensor (ours) owns `ctx`, which keeps nothing yet.
    if let Err(e) = unsafe { keep_source(data, handle, ctx, value, info.buffer) } {
        // SAFETY: our reference.
        unsafe { ffi::TVMFFIObjectDecRef(handle) };
        return Err(e);
    }
    Ok(handle)
}

/// Makes a tensor over a TypedArray keep it: a strong reference to the array (released when the
/// tensor dies), its ArrayBuffer marked untransferable, and an entry in [`over_js_memory`].
///
/// # Safety
/// `ctx` belongs to the live tensor `handle` (the caller holds a reference), made by
/// [`from_typed_array`] or [`for_call`] over `array`, whose buffer is `buffer`, and keeps nothing
/// yet.
unsafe fn keep_source(
    data: &EnvData,
    handle: TVMFFIObjectHandle,
    ctx: *mut Ctx,
    array: napi_value,
    buffer: napi_value,
) -> Result<()> {
    let env = data.env;
    // Transfers must not take the memory away from the tensor: they copy (or refuse) instead.
    env.call_function(env.undefined(), data.hook(|h| h.keep_attached)?, &[buffer])?;
    let keep = env.reference(array, 1)?;
    let mut map = lock_map();
    // SAFETY: the caller's reference keeps the tensor, and so `ctx`, alive; the map's lock
    // orders these writes before any `delete_ctx` and any `js_source`.
    unsafe {
        (*ctx).keep = Some((keep, data.shared.clone()));
        (*ctx).handle = handle as usize;
    }
    map.insert(handle as usize, ctx as usize);
    Ok(())
}

/// A tensor over a TypedArray made for one argument of a synchronous call, which keeps
/// nothing: while the call runs, the JavaScript thread is blocked in it (its stack holds the
/// array) and runs no JavaScript that could transfer the buffer unless a callback runs, which
/// first calls [`CallTensors::keep_all`]. After the call, a tensor that native code kept
/// (more than the argument's reference) is made to keep its array like any other.
pub struct CallTensors<'a> {
    data: &'a EnvData,
    /// Where this call's entries start in `EnvData::call_tensors` (calls nest).
    from: usize,
}

impl Drop for CallTensors<'_> {
    fn drop(&mut self) {
        // A call that failed before it ran (or was closed): its tensors keep nothing.
        self.data.call_tensors.borrow_mut().truncate(self.from);
    }
}

/// A tensor of [`CallTensors`]: its handle and context, the array, and its buffer.
pub struct CallTensor {
    handle: TVMFFIObjectHandle,
    ctx: *mut Ctx,
    array: napi_value,
    buffer: napi_value,
    /// Its combined reference count when the call got it (the argument's reference).
    fresh: u64,
}

/// The tensor of a finished call's TypedArray argument that nothing else referenced when the
/// call returned (`EnvData::spare_tensor`, one per environment): the next call passing a
/// TypedArray over the same memory (data address, length, element type) takes it instead of
/// making one, which saves its allocations. While spare it keeps nothing and nothing but the
/// spare references it (its count is the one it had when made), so no native code can reach
/// its memory, which may be gone; it describes that memory again when taken.
pub struct SpareTensor {
    handle: TVMFFIObjectHandle,
    ctx: *mut Ctx,
    fresh: u64,
}

impl Drop for SpareTensor {
    fn drop(&mut self) {
        // SAFETY: the spare's reference.
        unsafe { ffi::TVMFFIObjectDecRef(self.handle) };
    }
}

impl SpareTensor {
    /// Whether the tensor describes a 1-D array of `length` `dtype`s at `data`, and nothing
    /// but the spare references it.
    fn describes(&self, data: *mut c_void, length: usize, dtype: DLDataType) -> bool {
        // SAFETY: the spare's reference keeps the tensor, and so its Ctx, alive; only this
        // thread uses them.
        let ctx = unsafe { &*self.ctx };
        let dl = &ctx.managed.dl_tensor;
        matches!(ctx.shape, Shape::Vector([n]) if n == length as i64)
            && dl.data == data
            && (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (dtype.code, dtype.bits, dtype.lanes)
            // SAFETY: as above.
            && unsafe { ffi::combined_count(self.handle) } == self.fresh
    }
}

impl<'a> CallTensors<'a> {
    /// Opens the tensors of one call.
    pub fn open(data: &'a EnvData) -> Self {
        CallTensors {
            data,
            from: data.call_tensors.borrow().len(),
        }
    }

    /// The tensor (owned) of a TypedArray argument (the caller found `value` to be one), or
    /// None for a Uint8Array (bytes).
    pub fn convert(&self, value: napi_value) -> Result<Option<TVMFFIObjectHandle>> {
        let data = self.data;
        let env = data.env;
        let info = env.typedarray_info(value)?;
        let Some((dtype, _)) = dtype_of_kind(info.kind).filter(|_| info.kind != TA::uint8_array)
        else {
            return Ok(None);
        };
        if env.is_detached_arraybuffer(info.buffer)? {
            return napi::type_error("this TypedArray's ArrayBuffer was detached (transferred)");
        }
        if let Some(spare) = data.spare_tensor.take() {
            if spare.describes(info.data, info.length, dtype) {
                let spare = std::mem::ManuallyDrop::new(spare);
                // The spare's reference becomes the argument's.
                data.call_tensors.borrow_mut().push(CallTensor {
                    handle: spare.handle,
                    ctx: spare.ctx,
                    array: value,
                    buffer: info.buffer,
                    fresh: spare.fresh,
                });
                return Ok(Some(spare.handle));
            }
            data.spare_tensor.set(Some(spare));
        }
        let ctx = Box::new(Ctx {
            managed: managed(
                info.data,
                DLDevice {
                    device_type: DLDeviceType::kDLCPU as i32,
                    device_id: 0,
                },
                1,
                dtype,
                0,
            ),
            shape: Shape::Vector([info.length as i64]),
            strides: Vec::new(),
            keep: None,
            handle: 0,
        });
        let (handle, ctx) = adopt_ctx(ctx)?;
        data.call_tensors.borrow_mut().push(CallTensor {
            handle,
            ctx,
            array: value,
            buffer: info.buffer,
            // SAFETY: our reference.
            fresh: unsafe { ffi::combined_count(handle) },
        });
        Ok(Some(handle))
    }

    /// After the call, while the arguments still hold their references: the tensors native
    /// code kept now keep their arrays; one that nothing else references becomes the spare.
    pub fn close(&self) -> Result<()> {
        let mut outcome = Ok(());
        // One at a time (no list to allocate): `keep_source` runs JavaScript, which must not
        // find the list borrowed.
        loop {
            let next = {
                let mut list = self.data.call_tensors.borrow_mut();
                if list.len() > self.from {
                    list.pop()
                } else {
                    None
                }
            };
            let Some(t) = next else { break };
            if t.ctx.is_null() {
                continue; // it keeps its array already (`keep_all`)
            }
            // SAFETY: the argument's reference keeps the tensor alive; the count only grows
            // past 1 if native code took its own.
            if unsafe { ffi::strong_count(t.handle) } > 1 {
                // SAFETY: a tensor made by `convert`, keeping nothing yet.
                let kept = unsafe { keep_source(self.data, t.handle, t.ctx, t.array, t.buffer) };
                outcome = outcome.and(kept);
            } else if unsafe { ffi::combined_count(t.handle) } == t.fresh {
                // SAFETY: a live tensor; the spare's reference.
                unsafe { ffi::TVMFFIObjectIncRef(t.handle) };
                self.data.spare_tensor.set(Some(SpareTensor {
                    handle: t.handle,
                    ctx: t.ctx,
                    fresh: t.fresh,
                }));
            }
        }
        outcome
    }

    /// Before JavaScript runs during a call (a callback on this thread): every tensor of the
    /// calls in progress keeps its array, since that JavaScript could transfer the buffer or
    /// keep the tensor.
    pub fn keep_all(data: &EnvData) -> Result<()> {
        for i in 0.. {
            let next = data.call_tensors.borrow_mut().get_mut(i).map(|t| {
                let ctx = std::mem::replace(&mut t.ctx, ptr::null_mut());
                (t.handle, ctx, t.array, t.buffer)
            });
            let Some((handle, ctx, array, buffer)) = next else {
                break;
            };
            if ctx.is_null() {
                continue;
            }
            // SAFETY: the argument's reference keeps the tensor alive; it keeps nothing yet
            // (its entry no longer points at it: this runs once per tensor).
            if let Err(e) = unsafe { keep_source(data, handle, ctx, array, buffer) } {
                // Not kept: `close` tries again.
                data.call_tensors.borrow_mut()[i].ctx = ctx;
                return Err(e);
            }
        }
        Ok(())
    }
}

/// A Tensor (owned) describing a borrowed DLTensor: metadata copied, data borrowed (valid only
/// as long as the producer keeps it).
pub fn view_of_dltensor(t: *const DLTensor) -> Result<TVMFFIObjectHandle> {
    // SAFETY: a DLTensorPtr value points at a live DLTensor for the duration of the call.
    let Some(t) = (unsafe { t.as_ref() }) else {
        return napi::type_error("null DLTensor*");
    };
    let ndim = t.ndim.max(0) as usize;
    let copy = |p: *const i64| -> Vec<i64> {
        if p.is_null() || ndim == 0 {
            Vec::new()
        } else {
            // SAFETY: shape and strides have `ndim` entries.
            unsafe { std::slice::from_raw_parts(p, ndim) }.to_vec()
        }
    };
    let ctx = Box::new(Ctx {
        managed: managed(t.data, t.device, t.ndim, t.dtype, t.byte_offset),
        shape: Shape::Any(copy(t.shape)),
        strides: copy(t.strides),
        keep: None,
        handle: 0,
    });
    adopt_ctx(ctx).map(|(handle, _)| handle)
}

fn tensor_handle(data: &EnvData, value: napi_value) -> Result<TVMFFIObjectHandle> {
    let handle = object::require_handle(data, value, "the receiver")?;
    // SAFETY: live handle.
    if unsafe { ffi::type_index_of(handle) } != tindex::TENSOR {
        return napi::type_error("not an ffi.Tensor");
    }
    Ok(handle)
}

fn dims(t: &DLTensor) -> (&[i64], Vec<i64>) {
    let ndim = t.ndim.max(0) as usize;
    let shape: &[i64] = if ndim == 0 || t.shape.is_null() {
        &[]
    } else {
        // SAFETY: `ndim` extents.
        unsafe { std::slice::from_raw_parts(t.shape, ndim) }
    };
    let strides = if ndim == 0 || t.strides.is_null() {
        compact_strides(shape)
    } else {
        // SAFETY: `ndim` strides.
        unsafe { std::slice::from_raw_parts(t.strides, ndim) }.to_vec()
    };
    (shape, strides)
}

fn compact_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    strides
}

fn is_compact(shape: &[i64], strides: &[i64]) -> bool {
    let expected = compact_strides(shape);
    shape
        .iter()
        .zip(strides.iter().zip(&expected))
        .all(|(d, (s, e))| *d == 1 || s == e)
}

/// `tensorInfo(t)`: `{ shape, strides, dtype: [code, bits, lanes], device: [type, id],
/// byteOffset, contiguous }`.
pub fn tensor_info(data: &EnvData, value: napi_value) -> Result<napi_value> {
    let env = data.env;
    let handle = tensor_handle(data, value)?;
    // SAFETY: a live Tensor.
    let t = unsafe { &*ffi::dltensor(handle) };
    let (shape, strides) = dims(t);
    let out = env.object()?;
    env.set_named(out, b"shape\0", object::int_array(env, shape)?)?;
    env.set_named(out, b"strides\0", object::int_array(env, &strides)?)?;
    let dtype = object::int_array(
        env,
        &[
            i64::from(t.dtype.code),
            i64::from(t.dtype.bits),
            i64::from(t.dtype.lanes),
        ],
    )?;
    env.set_named(out, b"dtype\0", dtype)?;
    let device = object::int_array(
        env,
        &[
            i64::from(t.device.device_type),
            i64::from(t.device.device_id),
        ],
    )?;
    env.set_named(out, b"device\0", device)?;
    env.set_named(out, b"byteOffset\0", env.double(t.byte_offset as f64)?)?;
    env.set_named(
        out,
        b"contiguous\0",
        env.boolean(is_compact(shape, &strides)),
    )?;
    Ok(out)
}

unsafe extern "C" fn release_tensor(_env: napi_env, _data: *mut c_void, hint: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `hint` is the tensor reference taken by `tensor_data`.
        unsafe { ffi::TVMFFIObjectDecRef(hint) };
    });
}

/// Whether `tensorData` may use external buffers (tests turn it off to exercise the copy that
/// hosts without external buffers get).
static EXTERNAL_BUFFERS: AtomicBool = AtomicBool::new(true);

/// `setExternalBuffers(allowed)`: see [`EXTERNAL_BUFFERS`].
pub fn set_external_buffers(allowed: bool) {
    EXTERNAL_BUFFERS.store(allowed, Ordering::Relaxed);
}

/// `tensorData(t)`: a TypedArray over the tensor's memory (CPU, contiguous tensors), or a copy
/// where external buffers are not allowed. Returns `[array, copied, cacheable]`: a view of
/// JavaScript memory is not cacheable (it is made anew, and its buffer checked, on each read).
pub fn tensor_data(data: &EnvData, value: napi_value) -> Result<napi_value> {
    let env = data.env;
    let handle = tensor_handle(data, value)?;
    if let Some(source) = js_source(data, handle)? {
        return source_view(data, handle, source);
    }
    // SAFETY: a live Tensor.
    let t = unsafe { &*ffi::dltensor(handle) };
    let cpu = [
        DLDeviceType::kDLCPU as i32,
        DLDeviceType::kDLCUDAHost as i32,
        DLDeviceType::kDLROCMHost as i32,
    ];
    if !cpu.contains(&t.device.device_type) {
        return napi::type_error("only tensors in host memory can be viewed from JavaScript");
    }
    let Some(kind) = kind_of_dtype(t.dtype) else {
        return napi::type_error("this tensor's data type has no TypedArray counterpart");
    };
    let (shape, strides) = dims(t);
    if !is_compact(shape, &strides) {
        return napi::type_error("the tensor is not contiguous");
    }
    let numel: i64 = shape.iter().product();
    let item = usize::from(t.dtype.bits / 8);
    let len = numel.max(0) as usize;
    let nbytes = len * item;
    // SAFETY: the data of a contiguous tensor spans `nbytes` from data + byte_offset.
    let start = unsafe { (t.data as *mut u8).add(t.byte_offset as usize) };
    let (buffer, copied) = if nbytes == 0 || t.data.is_null() {
        (env.arraybuffer(0)?.0, false)
    } else {
        // SAFETY: the buffer keeps its own reference to the tensor, released by
        // `release_tensor` when the buffer is collected.
        unsafe { ffi::TVMFFIObjectIncRef(handle) };
        let external = if EXTERNAL_BUFFERS.load(Ordering::Relaxed) {
            env.external_arraybuffer(start.cast(), nbytes, Some(release_tensor), handle)
        } else {
            Ok(None)
        };
        match external {
            Ok(Some(b)) => (b, false),
            other => {
                // SAFETY: the buffer was not created; drop its reference.
                unsafe { ffi::TVMFFIObjectDecRef(handle) };
                other?;
                let (b, dest) = env.arraybuffer(nbytes)?;
                // SAFETY: both ranges are `nbytes` long and do not overlap.
                unsafe { ptr::copy_nonoverlapping(start, dest, nbytes) };
                (b, true)
            }
        }
    };
    let array = env.typedarray(kind, len, buffer, 0)?;
    data_result(env, array, copied, true)
}

fn data_result(env: Env, array: napi_value, copied: bool, cacheable: bool) -> Result<napi_value> {
    let out = env.array(3)?;
    env.set_element(out, 0, array)?;
    env.set_element(out, 1, env.boolean(copied))?;
    env.set_element(out, 2, env.boolean(cacheable))?;
    Ok(out)
}

/// `tensorData` of a tensor over JavaScript memory: a view of the source's own ArrayBuffer.
fn source_view(
    data: &EnvData,
    handle: TVMFFIObjectHandle,
    source: napi_value,
) -> Result<napi_value> {
    let env = data.env;
    // SAFETY: a live Tensor.
    let t = unsafe { &*ffi::dltensor(handle) };
    let (shape, strides) = dims(t);
    if !is_compact(shape, &strides) {
        return napi::type_error("the tensor is not contiguous");
    }
    let Some(kind) = kind_of_dtype(t.dtype) else {
        return napi::type_error("this tensor's data type has no TypedArray counterpart");
    };
    let info = env.typedarray_info(source)?;
    let numel: i64 = shape.iter().product();
    let array = env.typedarray(kind, numel.max(0) as usize, info.buffer, info.byte_offset)?;
    data_result(env, array, false, false)
}

/// `dtypeParse(text)`: `[code, bits, lanes]` of a dtype string.
pub fn dtype_parse(env: Env, text: napi_value) -> Result<napi_value> {
    let text = env.get_string(text)?;
    let array = ffi::byte_array(&text);
    let mut d = DLDataType::default();
    // SAFETY: `array` views live bytes.
    if unsafe { ffi::TVMFFIDataTypeFromString(&array, &mut d) } != 0 {
        return Err(Error::Ffi(ffi::take_raised_error()));
    }
    object::int_array(
        env,
        &[i64::from(d.code), i64::from(d.bits), i64::from(d.lanes)],
    )
}

/// `dtypeString(code, bits, lanes)`: the name of a dtype.
pub fn dtype_string(data: &EnvData, code: u8, bits: u8, lanes: u16) -> Result<napi_value> {
    let d = DLDataType { code, bits, lanes };
    let mut out = ffi::none();
    // SAFETY: valid pointers; the result is an owned string.
    if unsafe { ffi::TVMFFIDataTypeToString(&d, &mut out) } != 0 {
        return Err(Error::Ffi(ffi::take_raised_error()));
    }
    crate::convert::from_any(data, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_and_contiguity() {
        assert_eq!(compact_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(compact_strides(&[]), Vec::<i64>::new());
        assert!(is_compact(&[2, 3], &[3, 1]));
        assert!(!is_compact(&[3, 2], &[1, 3]));
        // extents of 1 may have any stride
        assert!(is_compact(&[1, 3], &[99, 1]));
    }

    #[test]
    fn typed_array_kinds_and_dtypes_round_trip() {
        for kind in [
            TA::int8_array,
            TA::uint8_array,
            TA::int16_array,
            TA::uint16_array,
            TA::int32_array,
            TA::uint32_array,
            TA::float32_array,
            TA::float64_array,
            TA::bigint64_array,
            TA::biguint64_array,
        ] {
            let (dtype, item) = dtype_of_kind(kind).unwrap();
            assert_eq!(usize::from(dtype.bits / 8), item);
            assert_eq!(kind_of_dtype(dtype), Some(kind));
        }
        let f16 = DLDataType {
            code: Code::kDLFloat as u8,
            bits: 16,
            lanes: 1,
        };
        assert_eq!(kind_of_dtype(f16), Some(TA::uint16_array));
        assert_eq!(kind_of_dtype(DLDataType { lanes: 4, ..f16 }), None);
    }
}
