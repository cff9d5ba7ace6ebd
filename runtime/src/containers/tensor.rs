//! The Tensor object (`ffi.Tensor`, type index 70) and DLPack exchange.
//!
//! # Layout
//!
//! A Tensor is the 24-byte object header followed by a `DLTensor` (so `TVMFFITensorGetDLTensorPtr`
//! of header-only C++ code, which adds 24 to the handle, finds it), then whatever keeps the memory
//! alive. Its `strides` are never NULL when `ndim > 0`: when a producer gives no strides, the
//! compact row-major strides are computed into storage at the end of the object.
//!
//! Tensors are made in four ways, each with its own keeper:
//! * from a DLPack capsule (`DLManagedTensor` or `DLManagedTensorVersioned`): the tensor owns the
//!   capsule and calls its deleter exactly once when it dies; `shape` keeps pointing into the
//!   producer's memory, as in Apache's runtime;
//! * from the environment allocator (`TVMFFIEnvTensorAlloc`): a versioned capsule as above;
//! * as a view of another object (`TVMFFITensorCreateUnsafeView`): shape and strides are copied
//!   into the object, which holds a reference to the source until it dies;
//! * from Rust parts ([`Tensor::from_parts`], [`Tensor::from_vec`]): shape and strides are copied
//!   into the object, and a Rust value (the owner of the data) is dropped when the tensor dies.
//!
//! Exporting ([`Tensor::to_dlpack`], [`Tensor::to_dlpack_versioned`]) makes a capsule whose
//! `dl_tensor` is a copy of the tensor's and whose `manager_ctx` is the tensor handle; the capsule
//! holds one reference to the tensor until its consumer calls the deleter.
//!
//! The checks (alignment, contiguity, DLPack flags, an element count that fits in int64) happen
//! before anything is taken over: a failing import leaves the capsule with its producer. Since no
//! tensor's element count overflows, neither do its compact strides (each is a product of some of
//! the extents).
#![warn(unsafe_op_in_unsafe_fn)]

use crate::abi::{TVMFFIObject, TVMFFIObjectHandle};
use crate::dlpack::{
    DLDataType, DLDataTypeCode, DLDevice, DLDeviceType, DLManagedTensor, DLManagedTensorVersioned,
    DLPackVersion, DLTensor, DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, DLPACK_MAJOR_VERSION,
    DLPACK_MINOR_VERSION,
};
use crate::tindex;
use crate::value::error::{set_raised, take_raised_or_unknown, Error};
use crate::value::object::{alloc_object, dec_ref, ObjectRef, RustObject};
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

// ---------------------------------------------------------------------------------------------
// DLTensor predicates
// ---------------------------------------------------------------------------------------------

/// Does the device address memory directly, so that the data pointer itself tells the alignment?
/// (CPU, CUDA, CUDA host, CUDA managed, ROCm and ROCm host; other devices use opaque handles.)
pub fn is_direct_address_device(device: DLDevice) -> bool {
    device.device_type <= DLDeviceType::kDLCUDAHost as i32
        || device.device_type == DLDeviceType::kDLCUDAManaged as i32
        || device.device_type == DLDeviceType::kDLROCM as i32
        || device.device_type == DLDeviceType::kDLROCMHost as i32
}

/// Is the first element aligned to `alignment` bytes?
///
/// On direct-address devices this looks at `data + byte_offset`; elsewhere the data pointer is an
/// opaque handle and only `byte_offset` counts. An alignment of 0 asks for nothing.
pub fn is_aligned(tensor: &DLTensor, alignment: usize) -> bool {
    if alignment == 0 {
        return true;
    }
    if is_direct_address_device(tensor.device) {
        (tensor.data as usize)
            .wrapping_add(tensor.byte_offset as usize)
            .is_multiple_of(alignment)
    } else {
        (tensor.byte_offset as usize).is_multiple_of(alignment)
    }
}

/// Is the tensor laid out in compact row-major order?
///
/// The same notion as Apache's runtime (and NumPy/PyTorch): NULL strides mean compact; a tensor
/// with no elements (some dimension of size 0) is always contiguous; and the stride of a
/// dimension of size 1 is ignored, whatever its value.
///
/// # Safety
/// `shape` (and `strides`, when not NULL) point at `ndim` values.
pub unsafe fn is_contiguous(tensor: &DLTensor) -> bool {
    if tensor.strides.is_null() {
        return true;
    }
    let ndim = tensor.ndim.max(0) as usize;
    // SAFETY: the caller guarantees `ndim` readable values behind both pointers.
    let (shape, strides) = unsafe {
        (
            raw_slice(tensor.shape, ndim),
            raw_slice(tensor.strides, ndim),
        )
    };
    if shape.contains(&0) {
        return true;
    }
    let mut expected = 1i64;
    for (&extent, &stride) in shape.iter().zip(strides).rev() {
        if extent == 1 {
            continue;
        }
        if stride != expected {
            return false;
        }
        expected = expected.wrapping_mul(extent);
    }
    true
}

/// The compact row-major strides of `shape` (the last dimension varies fastest).
pub fn compact_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![0i64; shape.len()];
    fill_compact_strides(shape, &mut strides);
    strides
}

fn fill_compact_strides(shape: &[i64], out: &mut [i64]) {
    let mut stride = 1i64;
    for (extent, slot) in shape.iter().zip(out.iter_mut()).rev() {
        *slot = stride;
        stride = stride.wrapping_mul(*extent);
    }
}

/// The number of elements of `shape` (1 for no dimensions, 0 when an extent is 0); a
/// ValueError when the product overflows int64.
pub fn checked_numel(shape: &[i64]) -> Result<i64, Error> {
    if shape.contains(&0) {
        return Ok(0);
    }
    shape
        .iter()
        .try_fold(1i64, |acc, &extent| acc.checked_mul(extent))
        .ok_or_else(|| {
            Error::new(
                "ValueError",
                format!("the element count of shape {shape:?} overflows int64"),
            )
        })
}

/// Bytes needed to store `numel` packed elements of `dtype` (sub-byte types are packed, rounded
/// up to whole bytes); a ValueError when that overflows.
pub fn data_size(numel: u64, dtype: DLDataType) -> Result<u64, Error> {
    numel
        .checked_mul(dtype.bits as u64)
        .and_then(|bits| bits.checked_mul(dtype.lanes as u64))
        .and_then(|bits| bits.checked_add(7))
        .map(|bits| bits / 8)
        .ok_or_else(|| {
            Error::new(
                "ValueError",
                format!(
                    "{numel} elements of {} bits x {} lanes overflow uint64 bytes",
                    dtype.bits, dtype.lanes
                ),
            )
        })
}

/// `ndim` values at `ptr` (empty for none or NULL).
///
/// # Safety
/// `ptr` is NULL or valid for `len` reads that outlive `'a`.
unsafe fn raw_slice<'a>(ptr: *const i64, len: usize) -> &'a [i64] {
    if ptr.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: non-NULL and valid for `len` reads, as the caller guarantees.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

/// The dimension count as a length, or a ValueError for a negative one.
fn ndim_of(tensor: &DLTensor) -> Result<usize, Error> {
    usize::try_from(tensor.ndim).map_err(|_| {
        Error::new(
            "ValueError",
            format!("ndim must not be negative, got {}", tensor.ndim),
        )
    })
}

/// A ValueError unless `ndim >= 0` and the element count fits in int64.
///
/// # Safety
/// `tensor.shape` is valid for `ndim` reads when `ndim > 0`.
unsafe fn check_dims(tensor: &DLTensor) -> Result<(), Error> {
    let ndim = ndim_of(tensor)?;
    // SAFETY: the caller guarantees `ndim` values behind `shape`.
    checked_numel(unsafe { raw_slice(tensor.shape, ndim) }).map(|_| ())
}

// ---------------------------------------------------------------------------------------------
// The object
// ---------------------------------------------------------------------------------------------

/// What keeps a tensor's memory alive; released exactly once, when the tensor dies.
enum Keeper {
    /// A legacy DLPack capsule owned by the tensor.
    Managed(*mut DLManagedTensor),
    /// A versioned DLPack capsule owned by the tensor.
    Versioned(*mut DLManagedTensorVersioned),
    /// The source of a view (None when the view was made from a NULL source, as Apache allows).
    /// Held only to be released when the tensor dies.
    Object(#[allow(dead_code)] Option<ObjectRef>),
    /// A Rust value owning the data, held only to be dropped when the tensor dies.
    Rust(#[allow(dead_code)] Box<dyn std::any::Any + Send>),
}

// SAFETY: the capsule pointers are owned exclusively by the tensor, and DLPack deleters may be run
// from any thread (tensors are shared between threads under the TVM-FFI ABI, exactly as in
// Apache's runtime); the other variants are Send by themselves.
unsafe impl Send for Keeper {}

impl Drop for Keeper {
    fn drop(&mut self) {
        match *self {
            Keeper::Managed(capsule) => {
                // SAFETY: the tensor took the capsule over at creation; this is the one release.
                unsafe {
                    if let Some(deleter) = (*capsule).deleter {
                        deleter(capsule);
                    }
                }
            }
            Keeper::Versioned(capsule) => {
                // SAFETY: as above.
                unsafe {
                    if let Some(deleter) = (*capsule).deleter {
                        deleter(capsule);
                    }
                }
            }
            Keeper::Object(_) | Keeper::Rust(_) => {}
        }
    }
}

/// The payload of the Tensor objects this runtime creates: the DLTensor right after the header
/// (the ABI), then the keeper. Optional `i64` storage for shape and strides follows the payload.
#[repr(C)]
struct TensorPayload {
    dl_tensor: DLTensor,
    keeper: Keeper,
}

/// Where the shape and strides of a new tensor come from.
enum Dims<'a> {
    /// Keep the DLTensor's pointers (the keeper owns the memory they point at).
    Borrowed,
    /// Keep `shape`'s pointer, compute compact strides into the object.
    CompactStrides,
    /// Copy `shape` and `strides` into the object.
    Copied {
        shape: &'a [i64],
        strides: &'a [i64],
    },
}

/// Allocates a Tensor object holding `dl_tensor` and `keeper`.
///
/// # Safety
/// For `Dims::CompactStrides`, `dl_tensor.shape` is valid for `ndim` reads; `ndim >= 0`.
unsafe fn new_tensor_object(dl_tensor: DLTensor, keeper: Keeper, dims: Dims<'_>) -> ObjectRef {
    let ndim = dl_tensor.ndim.max(0) as usize;
    let tail_len = match dims {
        Dims::Borrowed => 0,
        Dims::CompactStrides => ndim,
        Dims::Copied { .. } => 2 * ndim,
    };
    let obj = alloc_object(
        tindex::TENSOR,
        TensorPayload { dl_tensor, keeper },
        tail_len * std::mem::size_of::<i64>(),
    );
    let body = obj.as_ptr().cast::<RustObject<TensorPayload>>();
    // SAFETY: `obj` is a fresh `RustObject<TensorPayload>` allocated with `tail_len` i64s after
    // the payload (the tail starts at a multiple of the payload's alignment, 8), and nobody else
    // sees it yet, so writing its DLTensor and tail is exclusive. The shape read for
    // `CompactStrides` is valid for `ndim` values (caller's guarantee); `Copied` slices hold
    // `ndim` values each (checked by the constructors).
    unsafe {
        let tail = crate::value::object::tail::<TensorPayload>(obj.as_ptr()).cast::<i64>();
        let dl = std::ptr::addr_of_mut!((*body).payload.dl_tensor);
        match dims {
            Dims::Borrowed => {}
            Dims::CompactStrides => {
                let strides = std::slice::from_raw_parts_mut(tail, ndim);
                fill_compact_strides(raw_slice((*dl).shape, ndim), strides);
                (*dl).strides = tail;
            }
            Dims::Copied { shape, strides } => {
                debug_assert!(shape.len() == ndim && strides.len() == ndim);
                std::ptr::copy_nonoverlapping(shape.as_ptr(), tail, ndim);
                std::ptr::copy_nonoverlapping(strides.as_ptr(), tail.add(ndim), ndim);
                (*dl).shape = tail;
                (*dl).strides = tail.add(ndim);
            }
        }
    }
    obj
}

/// The checks of an import, in Apache's order; nothing is taken over when they fail.
///
/// # Safety
/// `dl_tensor` is a producer's valid DLTensor (shape and strides valid for `ndim` reads).
unsafe fn check_import(
    dl_tensor: &DLTensor,
    require_alignment: usize,
    require_contiguous: bool,
) -> Result<(), Error> {
    // SAFETY: the caller's guarantee.
    unsafe { check_dims(dl_tensor)? };
    if require_alignment != 0 && !is_aligned(dl_tensor, require_alignment) {
        return Err(Error::new(
            "RuntimeError",
            format!("FromDLPack: Data is not aligned to {require_alignment} bytes."),
        ));
    }
    // SAFETY: the producer's DLTensor has valid shape/strides arrays of `ndim` values.
    if require_contiguous && !unsafe { is_contiguous(dl_tensor) } {
        return Err(Error::new(
            "RuntimeError",
            "FromDLPack: Tensor is not contiguous.",
        ));
    }
    Ok(())
}

/// How the tensor made from a producer's DLTensor stores its dimensions.
fn dims_of_capsule(dl_tensor: &DLTensor) -> Dims<'static> {
    if dl_tensor.strides.is_null() && dl_tensor.ndim > 0 {
        Dims::CompactStrides
    } else {
        Dims::Borrowed
    }
}

// ---------------------------------------------------------------------------------------------
// The Rust API
// ---------------------------------------------------------------------------------------------

/// An owned reference to a Tensor object (one this runtime made, or a foreign one: only the
/// `DLTensor` after the header is used).
#[derive(Clone, Debug)]
pub struct Tensor(ObjectRef);

/// Element types with a DLPack data type, for [`Tensor::from_vec`].
pub trait Element: Copy + Send + 'static {
    /// The DLPack data type of one element.
    const DTYPE: DLDataType;
}

macro_rules! element {
    ($($t:ty => $code:ident, $bits:expr;)*) => {$(
        impl Element for $t {
            const DTYPE: DLDataType = DLDataType {
                code: DLDataTypeCode::$code as u8,
                bits: $bits,
                lanes: 1,
            };
        }
    )*};
}

element! {
    i8 => kDLInt, 8;
    i16 => kDLInt, 16;
    i32 => kDLInt, 32;
    i64 => kDLInt, 64;
    u8 => kDLUInt, 8;
    u16 => kDLUInt, 16;
    u32 => kDLUInt, 32;
    u64 => kDLUInt, 64;
    f32 => kDLFloat, 32;
    f64 => kDLFloat, 64;
    bool => kDLBool, 8;
}

/// The CPU device.
pub const CPU: DLDevice = DLDevice {
    device_type: DLDeviceType::kDLCPU as i32,
    device_id: 0,
};

impl Tensor {
    /// Wraps a legacy DLPack capsule. On success the tensor owns `capsule` and calls its deleter
    /// once when it dies; on failure (`require_alignment` bytes not met, or not contiguous when
    /// `require_contiguous`) the capsule is left untouched with the caller.
    ///
    /// # Safety
    /// `capsule` points at a valid `DLManagedTensor` whose `dl_tensor` stays valid until its
    /// deleter is called, and nobody else releases it once this succeeds.
    pub unsafe fn from_dlpack(
        capsule: *mut DLManagedTensor,
        require_alignment: usize,
        require_contiguous: bool,
    ) -> Result<Tensor, Error> {
        // SAFETY: the caller guarantees a valid capsule.
        let dl_tensor = unsafe { (*capsule).dl_tensor };
        // SAFETY: as above.
        unsafe { check_import(&dl_tensor, require_alignment, require_contiguous)? };
        let dims = dims_of_capsule(&dl_tensor);
        // SAFETY: the checks passed, so the tensor takes the capsule over (its shape is valid
        // for `ndim >= 0` values while the capsule lives).
        Ok(Tensor(unsafe {
            new_tensor_object(dl_tensor, Keeper::Managed(capsule), dims)
        }))
    }

    /// Wraps a versioned DLPack capsule, like [`Tensor::from_dlpack`]; additionally rejects
    /// capsules flagged `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED` (after the alignment and
    /// contiguity checks, as Apache's runtime does).
    ///
    /// # Safety
    /// As for [`Tensor::from_dlpack`].
    pub unsafe fn from_dlpack_versioned(
        capsule: *mut DLManagedTensorVersioned,
        require_alignment: usize,
        require_contiguous: bool,
    ) -> Result<Tensor, Error> {
        // SAFETY: the caller guarantees a valid capsule.
        let (dl_tensor, flags) = unsafe { ((*capsule).dl_tensor, (*capsule).flags) };
        // SAFETY: as above.
        unsafe { check_import(&dl_tensor, require_alignment, require_contiguous)? };
        if flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED != 0 {
            return Err(Error::new(
                "RuntimeError",
                "Subbyte type padded is not yet supported",
            ));
        }
        // SAFETY: a valid capsule with `ndim >= 0`, handed over by the caller.
        Ok(unsafe { Self::adopt_versioned(capsule) })
    }

    /// Wraps a versioned capsule without any check.
    ///
    /// # Safety
    /// As for [`Tensor::from_dlpack`], and `ndim >= 0`.
    unsafe fn adopt_versioned(capsule: *mut DLManagedTensorVersioned) -> Tensor {
        // SAFETY: the caller guarantees a valid capsule that is now the tensor's to release.
        unsafe {
            let dl_tensor = (*capsule).dl_tensor;
            let dims = dims_of_capsule(&dl_tensor);
            Tensor(new_tensor_object(
                dl_tensor,
                Keeper::Versioned(capsule),
                dims,
            ))
        }
    }

    /// A tensor over memory owned by a Rust value: `owner` is dropped (on whichever thread
    /// releases the last reference) when the tensor dies. `shape` and `strides` are copied into
    /// the object; `None` strides mean compact row-major.
    ///
    /// # Safety
    /// While `owner` is alive, `data + byte_offset` addresses the elements that `shape`,
    /// `strides` and `dtype` describe on `device` (consumers of the tensor will read and may write
    /// them).
    pub unsafe fn from_parts(
        data: *mut c_void,
        shape: &[i64],
        strides: Option<&[i64]>,
        dtype: DLDataType,
        device: DLDevice,
        byte_offset: u64,
        owner: Box<dyn std::any::Any + Send>,
    ) -> Result<Tensor, Error> {
        let ndim = i32::try_from(shape.len()).map_err(|_| {
            Error::new(
                "ValueError",
                format!("a tensor has at most {} dimensions", i32::MAX),
            )
        })?;
        checked_numel(shape)?;
        let computed;
        let strides = match strides {
            Some(strides) if strides.len() != shape.len() => {
                return Err(Error::new(
                    "ValueError",
                    "shape and strides must have the same size.",
                ))
            }
            Some(strides) => strides,
            None => {
                computed = compact_strides(shape);
                &computed
            }
        };
        let dl_tensor = DLTensor {
            data,
            device,
            ndim,
            dtype,
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            byte_offset,
        };
        // SAFETY: both slices hold `ndim` values; the data contract is the caller's.
        Ok(Tensor(unsafe {
            new_tensor_object(
                dl_tensor,
                Keeper::Rust(owner),
                Dims::Copied { shape, strides },
            )
        }))
    }

    /// A compact CPU tensor that takes over `values` (no copy); `shape`'s product must equal the
    /// number of values.
    pub fn from_vec<T: Element>(mut values: Vec<T>, shape: &[i64]) -> Result<Tensor, Error> {
        let numel = shape.iter().try_fold(1usize, |acc, &extent| {
            usize::try_from(extent)
                .ok()
                .and_then(|extent| acc.checked_mul(extent))
        });
        if numel != Some(values.len()) {
            return Err(Error::new(
                "ValueError",
                format!(
                    "shape {shape:?} does not describe {} elements",
                    values.len()
                ),
            ));
        }
        let data = values.as_mut_ptr().cast::<c_void>();
        // SAFETY: the vector's buffer holds exactly the compact elements the shape describes and
        // lives as long as the vector, which the tensor owns (moving the Vec keeps its buffer).
        unsafe { Self::from_parts(data, shape, None, T::DTYPE, CPU, 0, Box::new(values)) }
    }

    /// A tensor viewing `prototype` (data pointer, byte offset, dtype and device taken verbatim;
    /// shape and strides copied), keeping `source` alive until the view dies. `source` may be any
    /// object, or None. Fails (InternalError, like Apache's check) when `prototype.strides` is
    /// NULL.
    ///
    /// # Safety
    /// `prototype.shape` and `prototype.strides` are valid for `ndim` reads, and the memory the
    /// prototype describes stays valid while `source` is alive.
    pub unsafe fn create_unsafe_view(
        source: Option<&ObjectRef>,
        prototype: &DLTensor,
    ) -> Result<Tensor, Error> {
        if prototype.strides.is_null() {
            return Err(Error::new(
                "InternalError",
                "Check not null: prototype.strides ",
            ));
        }
        let ndim = ndim_of(prototype)?;
        // SAFETY: the caller guarantees `ndim` values behind shape and strides, which are copied
        // into the new object; the data contract is the caller's.
        unsafe {
            let shape = raw_slice(prototype.shape, ndim);
            checked_numel(shape)?;
            let strides = raw_slice(prototype.strides, ndim);
            Ok(Tensor(new_tensor_object(
                *prototype,
                Keeper::Object(source.cloned()),
                Dims::Copied { shape, strides },
            )))
        }
    }

    /// A view of this tensor's memory described by `prototype`, keeping this tensor alive.
    ///
    /// # Safety
    /// As for [`Tensor::create_unsafe_view`], with this tensor as the source: the prototype must
    /// describe memory inside this tensor's.
    pub unsafe fn view(&self, prototype: &DLTensor) -> Result<Tensor, Error> {
        // SAFETY: the caller's guarantees are those of `create_unsafe_view`.
        unsafe { Self::create_unsafe_view(Some(&self.0), prototype) }
    }

    /// A Tensor from the current environment allocator (`TVMFFIEnvSetDLPackManagedTensorAllocator`)
    /// shaped like `prototype` (its dtype, ndim, shape and device are what allocators use).
    ///
    /// On failure the error comes with the code to return from a C entry point: the allocator's
    /// own non-zero code (its error raised through the `SetError` callback), or -1.
    pub fn env_alloc(prototype: &DLTensor) -> Result<Tensor, (i32, Error)> {
        let Some(allocator) = crate::value::env::tensor_allocator() else {
            return Err((
                -1,
                Error::new(
                    "RuntimeError",
                    "TVMFFIEnvTensorAlloc: allocator is nullptr, likely because \
                     TVMFFIEnvSetDLPackManagedTensorAllocator has not been called.",
                ),
            ));
        };
        // The allocator may treat its prototype as scratch: give it a copy of ours.
        let mut scratch = *prototype;
        let mut capsule: *mut DLManagedTensorVersioned = std::ptr::null_mut();
        // SAFETY: the allocator follows the DLPack allocator contract; every pointer is valid.
        let code = unsafe {
            allocator(
                &mut scratch,
                &mut capsule,
                std::ptr::null_mut(),
                Some(raise_from_allocator),
            )
        };
        if code != 0 {
            return Err((code, take_raised_or_unknown(code)));
        }
        if capsule.is_null() {
            return Err((
                -1,
                Error::new(
                    "RuntimeError",
                    "Check failed: (dlpack_tensor != nullptr) is false: TVMFFIEnvTensorAlloc: \
                     failed to allocate a tensor from the allocator",
                ),
            ));
        }
        // SAFETY: the allocator handed us a valid capsule, now ours to release.
        unsafe {
            if let Err(error) = check_dims(&(*capsule).dl_tensor) {
                if let Some(deleter) = (*capsule).deleter {
                    deleter(capsule);
                }
                return Err((-1, error));
            }
            Ok(Self::adopt_versioned(capsule))
        }
    }

    /// Takes a Tensor out of an object reference, or gives the object back if it is not a Tensor
    /// (or a subtype of it).
    pub fn from_object(obj: ObjectRef) -> Result<Tensor, ObjectRef> {
        if is_tensor_index(obj.type_index()) {
            Ok(Tensor(obj))
        } else {
            Err(obj)
        }
    }

    /// A new reference to the Tensor behind a borrowed handle.
    ///
    /// # Safety
    /// `handle` is NULL or points at a live object.
    pub unsafe fn from_borrowed_handle(handle: TVMFFIObjectHandle) -> Result<Tensor, Error> {
        let obj = handle.cast::<TVMFFIObject>();
        if obj.is_null() {
            return Err(Error::new(
                "ValueError",
                "the tensor handle must not be NULL",
            ));
        }
        // SAFETY: a non-NULL handle points at a live object (caller's guarantee).
        let type_index = unsafe { (*obj).type_index };
        if !is_tensor_index(type_index) {
            return Err(Error::new(
                "TypeError",
                format!(
                    "expected `ffi.Tensor` but got `{}`",
                    crate::registry::types::type_key_of(type_index)
                ),
            ));
        }
        // SAFETY: as above; the new reference is the result's.
        Ok(Tensor(unsafe { ObjectRef::from_borrowed(obj) }))
    }

    /// The underlying object.
    pub fn as_object(&self) -> &ObjectRef {
        &self.0
    }

    /// Gives up the wrapper, keeping the reference.
    pub fn into_object(self) -> ObjectRef {
        self.0
    }

    /// The DLTensor (valid while this reference is).
    pub fn dl_tensor(&self) -> &DLTensor {
        // SAFETY: every Tensor object has its DLTensor right after the header.
        unsafe { self.0.cell::<DLTensor>() }
    }

    /// The DLTensor's address, for `kTVMFFIDLTensorPtr` arguments (valid while this reference is).
    pub fn dl_tensor_ptr(&self) -> *mut DLTensor {
        // Derived from the object pointer, not from a shared reference: C callees may write
        // through it (as they may through `TVMFFITensorGetDLTensorPtr`).
        self.0
            .as_ptr()
            .cast::<u8>()
            .wrapping_add(std::mem::size_of::<TVMFFIObject>())
            .cast::<DLTensor>()
    }

    /// The data pointer (add [`Tensor::byte_offset`] for the first element).
    pub fn data_ptr(&self) -> *mut c_void {
        self.dl_tensor().data
    }

    /// The byte offset of the first element from the data pointer.
    pub fn byte_offset(&self) -> u64 {
        self.dl_tensor().byte_offset
    }

    /// The device.
    pub fn device(&self) -> DLDevice {
        self.dl_tensor().device
    }

    /// The element type.
    pub fn dtype(&self) -> DLDataType {
        self.dl_tensor().dtype
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.dl_tensor().ndim.max(0) as usize
    }

    /// The extents.
    pub fn shape(&self) -> &[i64] {
        // SAFETY: a tensor's shape holds `ndim` values while the tensor lives.
        unsafe { raw_slice(self.dl_tensor().shape, self.ndim()) }
    }

    /// The strides, in elements (never missing for a well-formed tensor; empty for ndim 0).
    pub fn strides(&self) -> &[i64] {
        // SAFETY: as for `shape`.
        unsafe { raw_slice(self.dl_tensor().strides, self.ndim()) }
    }

    /// The number of elements (a ValueError only if C code grew the shape in place past int64:
    /// every constructor checks it).
    pub fn numel(&self) -> Result<i64, Error> {
        checked_numel(self.shape())
    }

    /// Is the tensor compact row-major (see [`is_contiguous`])?
    pub fn is_contiguous(&self) -> bool {
        // SAFETY: a live tensor's shape and strides are valid.
        unsafe { is_contiguous(self.dl_tensor()) }
    }

    /// Is the first element aligned to `alignment` bytes (see [`is_aligned`])?
    pub fn is_aligned(&self, alignment: usize) -> bool {
        is_aligned(self.dl_tensor(), alignment)
    }

    /// Exports as a legacy DLPack capsule holding one reference to this tensor; the consumer
    /// must call its deleter exactly once.
    pub fn to_dlpack(&self) -> *mut DLManagedTensor {
        Box::into_raw(Box::new(DLManagedTensor {
            dl_tensor: *self.dl_tensor(),
            manager_ctx: self.0.clone().into_raw().cast(),
            deleter: Some(release_exported),
        }))
    }

    /// Exports as a versioned DLPack capsule (version 1.3, flags 0) holding one reference to this
    /// tensor; the consumer must call its deleter exactly once.
    pub fn to_dlpack_versioned(&self) -> *mut DLManagedTensorVersioned {
        Box::into_raw(Box::new(DLManagedTensorVersioned {
            version: DLPackVersion {
                major: DLPACK_MAJOR_VERSION,
                minor: DLPACK_MINOR_VERSION,
            },
            manager_ctx: self.0.clone().into_raw().cast(),
            deleter: Some(release_exported_versioned),
            flags: 0,
            dl_tensor: *self.dl_tensor(),
        }))
    }
}

impl From<Tensor> for ObjectRef {
    fn from(tensor: Tensor) -> ObjectRef {
        tensor.0
    }
}

impl From<Tensor> for crate::value::any::Any {
    fn from(tensor: Tensor) -> crate::value::any::Any {
        crate::value::any::Any::object(tensor.0)
    }
}

impl TryFrom<ObjectRef> for Tensor {
    type Error = ObjectRef;
    fn try_from(obj: ObjectRef) -> Result<Tensor, ObjectRef> {
        Tensor::from_object(obj)
    }
}

/// Is `type_index` the Tensor type or a type derived from it?
fn is_tensor_index(type_index: i32) -> bool {
    crate::registry::types::is_instance(type_index, tindex::TENSOR)
}

/// Deleter of capsules made by [`Tensor::to_dlpack`]: drops the capsule's tensor reference.
unsafe extern "C" fn release_exported(capsule: *mut DLManagedTensor) {
    if capsule.is_null() {
        return;
    }
    // SAFETY: the capsule was boxed by `to_dlpack` and holds one reference to its tensor in
    // `manager_ctx`; the consumer calls this once, so both are released once.
    unsafe {
        let capsule = Box::from_raw(capsule);
        dec_ref(capsule.manager_ctx.cast());
    }
}

/// Deleter of capsules made by [`Tensor::to_dlpack_versioned`].
unsafe extern "C" fn release_exported_versioned(capsule: *mut DLManagedTensorVersioned) {
    if capsule.is_null() {
        return;
    }
    // SAFETY: as for `release_exported`, for capsules boxed by `to_dlpack_versioned`.
    unsafe {
        let capsule = Box::from_raw(capsule);
        dec_ref(capsule.manager_ctx.cast());
    }
}

/// The `SetError` callback handed to DLPack allocators: raises a new error on this thread.
unsafe extern "C" fn raise_from_allocator(
    _error_ctx: *mut c_void,
    kind: *const c_char,
    message: *const c_char,
) {
    let text = |s: *const c_char| {
        if s.is_null() {
            &[][..]
        } else {
            // SAFETY: allocators pass NUL-terminated strings.
            unsafe { CStr::from_ptr(s) }.to_bytes()
        }
    };
    // Nothing may unwind into the allocator (C code): a failure here just raises nothing.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let backtrace = crate::value::backtrace::capture();
        let error = Error::from_parts(text(kind), text(message), backtrace.as_bytes(), None, None);
        set_raised(error.into_object());
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dl(shape: &mut [i64], strides: Option<&mut [i64]>) -> DLTensor {
        DLTensor {
            data: std::ptr::null_mut(),
            device: CPU,
            ndim: shape.len() as i32,
            dtype: f32::DTYPE,
            shape: shape.as_mut_ptr(),
            strides: strides.map_or(std::ptr::null_mut(), |s| s.as_mut_ptr()),
            byte_offset: 0,
        }
    }

    #[test]
    fn contiguity_follows_apache() {
        let contiguous = |shape: &[i64], strides: Option<&[i64]>| {
            let mut shape = shape.to_vec();
            let mut strides = strides.map(<[i64]>::to_vec);
            // SAFETY: the DLTensor points at the two local vectors of `ndim` values.
            unsafe { is_contiguous(&dl(&mut shape, strides.as_deref_mut())) }
        };
        assert!(contiguous(&[2, 3], None));
        assert!(contiguous(&[2, 3], Some(&[3, 1])));
        assert!(!contiguous(&[2, 3], Some(&[1, 2])));
        // size-1 dimensions: any stride
        assert!(contiguous(&[2, 1, 3], Some(&[3, 99, 1])));
        assert!(contiguous(&[1, 4], Some(&[0, 1])));
        // no elements: always contiguous
        assert!(contiguous(&[0, 3], Some(&[7, 7])));
        assert!(contiguous(&[], Some(&[])));
        assert!(!contiguous(&[3], Some(&[2])));
    }

    #[test]
    fn alignment_uses_the_address_only_on_direct_devices() {
        let mut shape = [4i64];
        let mut t = dl(&mut shape, None);
        t.data = 0x1001 as *mut c_void;
        t.byte_offset = 3;
        assert!(is_aligned(&t, 4));
        assert!(!is_aligned(&t, 8));
        assert!(is_aligned(&t, 0));
        t.device.device_type = DLDeviceType::kDLVulkan as i32;
        assert!(!is_aligned(&t, 4), "only byte_offset (3) counts");
        t.byte_offset = 8;
        assert!(is_aligned(&t, 8));
        assert!(is_direct_address_device(DLDevice {
            device_type: DLDeviceType::kDLROCMHost as i32,
            device_id: 0
        }));
    }

    #[test]
    fn compact_strides_and_sizes() {
        assert_eq!(compact_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(compact_strides(&[]), Vec::<i64>::new());
        let int4 = DLDataType {
            code: 0,
            bits: 4,
            lanes: 1,
        };
        assert_eq!(data_size(3, int4).unwrap(), 2);
        assert_eq!(data_size(6, f32::DTYPE).unwrap(), 24);
        assert_eq!(
            data_size(u64::MAX / 8, f32::DTYPE).unwrap_err().kind(),
            b"ValueError"
        );
        assert_eq!(checked_numel(&[]).unwrap(), 1);
        assert_eq!(checked_numel(&[2, 3]).unwrap(), 6);
        assert_eq!(checked_numel(&[1 << 62, 0, 4]).unwrap(), 0);
        assert_eq!(
            checked_numel(&[1 << 62, 4]).unwrap_err().kind(),
            b"ValueError"
        );
        assert_eq!(checked_numel(&[-(1 << 61), 4]).unwrap(), i64::MIN);
        assert_eq!(
            checked_numel(&[-(1 << 62), -4]).unwrap_err().kind(),
            b"ValueError"
        );
    }

    #[test]
    fn dl_tensor_sits_right_after_the_header() {
        assert_eq!(
            std::mem::offset_of!(RustObject<TensorPayload>, payload),
            std::mem::size_of::<TVMFFIObject>()
        );
        assert_eq!(std::mem::offset_of!(TensorPayload, dl_tensor), 0);
        assert_eq!(std::mem::size_of::<RustObject<TensorPayload>>() % 8, 0);
    }
}
