//! Tensors (`ffi.Tensor`): a reference-counted DLPack tensor. Data crosses without copies both
//! ways: [`Tensor::from_vec`] hands a Rust buffer to the runtime (freed when the last reference
//! goes), [`Tensor::from_dlpack_versioned`] adopts any DLPack producer's tensor and
//! [`Tensor::to_dlpack_versioned`] exports one.

use crate::any::{Any, AnyView};
use crate::convert::{mismatch, ByRef, FfiType, FromAny, IntoAny};
use crate::dtype::{DataType, Device};
use crate::error::{check, Error, Result};
use crate::object::{Object, ObjectRef};
use crate::schema::Schema;
use crate::sys;
use ffihub_abi::abi::TVMFFIObjectHandle;
use ffihub_abi::dlpack::{
    DLDataType, DLDataTypeCode, DLDeviceType, DLManagedTensorVersioned, DLPackVersion, DLTensor,
    DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION,
};
use ffihub_abi::tindex;
use std::ffi::c_void;
use std::fmt;

/// A Rust element type with a DLPack data type.
pub trait Element: Copy + Send + Sync + 'static {
    /// Its data type.
    const DTYPE: DLDataType;
}

macro_rules! element {
    ($($t:ty => $code:ident, $bits:literal;)*) => {$(
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
    f32 => kDLFloat, 32;
    f64 => kDLFloat, 64;
    i8 => kDLInt, 8;
    i16 => kDLInt, 16;
    i32 => kDLInt, 32;
    i64 => kDLInt, 64;
    u8 => kDLUInt, 8;
    u16 => kDLUInt, 16;
    u32 => kDLUInt, 32;
    u64 => kDLUInt, 64;
}

/// A DLPack tensor owned by the runtime (`ffi.Tensor`).
#[derive(Clone)]
pub struct Tensor {
    obj: ObjectRef<Object>,
}

/// What a tensor made by [`Tensor::from_vec`] owns.
struct VecOwner<T> {
    managed: DLManagedTensorVersioned,
    data: Vec<T>,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

unsafe extern "C" fn delete_vec_owner<T>(managed: *mut DLManagedTensorVersioned) {
    // A panicking destructor must not unwind into the runtime.
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `manager_ctx` is the box made by `from_vec`, freed once by this deleter.
        drop(unsafe { Box::from_raw((*managed).manager_ctx.cast::<VecOwner<T>>()) });
    });
}

/// The number of elements of `shape` (1 for no dimensions, 0 when an extent is 0); a
/// `ValueError` when the product overflows `i64`.
pub(crate) fn checked_numel(shape: &[i64]) -> Result<i64> {
    if shape.contains(&0) {
        return Ok(0);
    }
    shape
        .iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            Error::value_error(format!(
                "the element count of shape {shape:?} overflows int64"
            ))
        })
}

/// Compact row-major strides of `shape`, whose element count fits in `i64` (so does every
/// stride: each is a product of some of the extents).
fn compact_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].wrapping_mul(shape[i + 1]);
    }
    strides
}

impl Tensor {
    /// A CPU tensor of `shape` over `data` (row-major, no copy): the runtime owns the buffer
    /// from now on and frees it when the last reference goes.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[i64]) -> Result<Tensor> {
        let numel = checked_numel(shape)?;
        if shape.iter().any(|&d| d < 0) || numel != data.len() as i64 {
            return Err(Error::value_error(format!(
                "shape {shape:?} does not match {} elements",
                data.len()
            )));
        }
        let ndim =
            i32::try_from(shape.len()).map_err(|_| Error::value_error("too many dimensions"))?;
        let mut owner = Box::new(VecOwner {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion {
                    major: DLPACK_MAJOR_VERSION,
                    minor: DLPACK_MINOR_VERSION,
                },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_vec_owner::<T>),
                flags: 0,
                dl_tensor: DLTensor {
                    data: std::ptr::null_mut(),
                    device: Device::cpu(0).0,
                    ndim,
                    dtype: T::DTYPE,
                    shape: std::ptr::null_mut(),
                    strides: std::ptr::null_mut(),
                    byte_offset: 0,
                },
            },
            data,
            shape: shape.to_vec(),
            strides: compact_strides(shape),
        });
        owner.managed.dl_tensor.data = owner.data.as_mut_ptr().cast();
        owner.managed.dl_tensor.shape = owner.shape.as_mut_ptr();
        owner.managed.dl_tensor.strides = owner.strides.as_mut_ptr();
        let owner = Box::into_raw(owner);
        // SAFETY: `owner` is a live box; the manager context points back at it so that the
        // deleter can free it.
        let managed = unsafe {
            (*owner).managed.manager_ctx = owner.cast();
            std::ptr::addr_of_mut!((*owner).managed)
        };
        // SAFETY: `managed` is a valid versioned DLPack tensor whose deleter frees `owner`.
        unsafe { Tensor::from_dlpack_versioned(managed) }
    }

    /// Adopts a DLPack tensor: on success the tensor owns `managed` and calls its deleter when
    /// the last reference goes; on failure `managed` is released here.
    ///
    /// # Safety
    /// `managed` is a valid `DLManagedTensorVersioned` whose ownership is handed over.
    pub unsafe fn from_dlpack_versioned(managed: *mut DLManagedTensorVersioned) -> Result<Tensor> {
        let mut handle: TVMFFIObjectHandle = std::ptr::null_mut();
        let code = sys::TVMFFITensorFromDLPackVersioned(managed, 0, 0, &mut handle);
        if code != 0 {
            let error = Error::take_raised();
            if let Some(deleter) = (*managed).deleter {
                deleter(managed);
            }
            return Err(error);
        }
        Ok(Tensor {
            obj: ObjectRef::from_raw(handle),
        })
    }

    /// Exports the tensor as a DLPack tensor holding a new reference: the consumer calls its
    /// deleter once.
    pub fn to_dlpack_versioned(&self) -> Result<*mut DLManagedTensorVersioned> {
        let mut out = std::ptr::null_mut();
        // SAFETY: the tensor is live; `out` is valid for a write.
        check(unsafe { sys::TVMFFITensorToDLPackVersioned(self.obj.as_ptr().cast(), &mut out) })?;
        Ok(out)
    }

    /// The DLTensor (at offset 24 of the object, as in the ABI).
    pub fn dl_tensor(&self) -> &DLTensor {
        // SAFETY: an ffi.Tensor object: its DLTensor follows the 24-byte header.
        unsafe { &*self.obj.as_ptr().cast::<u8>().add(24).cast::<DLTensor>() }
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.dl_tensor().ndim.max(0) as usize
    }

    /// The extents.
    pub fn shape(&self) -> &[i64] {
        let t = self.dl_tensor();
        if self.ndim() == 0 || t.shape.is_null() {
            &[]
        } else {
            // SAFETY: `shape` holds `ndim` extents owned by the tensor.
            unsafe { std::slice::from_raw_parts(t.shape, self.ndim()) }
        }
    }

    /// The strides in elements (compact row-major strides when the producer gave none).
    pub fn strides(&self) -> Vec<i64> {
        let t = self.dl_tensor();
        if self.ndim() == 0 || t.strides.is_null() {
            compact_strides(self.shape())
        } else {
            // SAFETY: `strides` holds `ndim` entries owned by the tensor.
            unsafe { std::slice::from_raw_parts(t.strides, self.ndim()) }.to_vec()
        }
    }

    /// The element type.
    pub fn dtype(&self) -> DataType {
        DataType(self.dl_tensor().dtype)
    }

    /// The device.
    pub fn device(&self) -> Device {
        Device(self.dl_tensor().device)
    }

    /// The number of elements; a `ValueError` when the shape's product overflows `i64` (a
    /// producer's tensor may claim any shape).
    pub fn numel(&self) -> Result<i64> {
        checked_numel(self.shape())
    }

    /// Whether the elements are laid out row-major without gaps.
    pub fn is_contiguous(&self) -> bool {
        let shape = self.shape();
        let strides = self.strides();
        let mut expected = 1i64;
        for i in (0..shape.len()).rev() {
            if shape[i] != 1 && strides[i] != expected {
                return false;
            }
            // A shape whose product overflows cannot be laid out without gaps.
            match expected.checked_mul(shape[i]) {
                Some(next) => expected = next,
                None => return false,
            }
        }
        true
    }

    /// The address of the first element (`data + byte_offset`).
    pub fn data_ptr(&self) -> *mut c_void {
        let t = self.dl_tensor();
        t.data
            .cast::<u8>()
            .wrapping_add(t.byte_offset as usize)
            .cast()
    }

    /// Element offsets (in elements from [`Tensor::data_ptr`]) in row-major index order; a
    /// `MemoryError` when they do not fit in memory (a broadcast view can be huge), a
    /// `ValueError` when the element count or an offset overflows.
    pub fn element_offsets(&self) -> Result<Vec<isize>> {
        let shape = self.shape();
        let strides = self.strides();
        let numel = usize::try_from(self.numel()?.max(0))
            .map_err(|_| Error::value_error("the tensor has more elements than memory holds"))?;
        // The farthest offset bounds every other one: check it once.
        shape
            .iter()
            .zip(&strides)
            .try_fold(0isize, |acc, (&d, &s)| {
                let reach = isize::try_from((d.max(1) - 1).checked_mul(s.abs())?).ok()?;
                acc.checked_add(reach)
            })
            .ok_or_else(|| {
                Error::value_error(format!(
                    "the offsets of shape {shape:?} with strides {strides:?} overflow"
                ))
            })?;
        let mut offsets = crate::alloc::try_vec(numel)?;
        let mut index = vec![0i64; shape.len()];
        for _ in 0..numel {
            offsets.push(
                index
                    .iter()
                    .zip(&strides)
                    .map(|(i, s)| (i * s) as isize)
                    .sum(),
            );
            for d in (0..shape.len()).rev() {
                index[d] += 1;
                if index[d] < shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Ok(offsets)
    }

    /// Checks that the tensor holds `T` on the CPU.
    fn check_cpu<T: Element>(&self) -> Result<()> {
        if self.dl_tensor().dtype != T::DTYPE {
            return Err(Error::type_error(format!(
                "expected a {} tensor, got {}",
                DataType(T::DTYPE),
                self.dtype()
            )));
        }
        if self.device().device_type() != DLDeviceType::kDLCPU as i32 {
            return Err(Error::value_error(format!(
                "expected a CPU tensor, got one on {}",
                self.device()
            )));
        }
        Ok(())
    }

    /// A copy of the elements in row-major order (any strides). Fails unless the tensor holds
    /// `T` on the CPU. Like every DLPack consumer, this assumes no one writes the data
    /// concurrently.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.check_cpu::<T>()?;
        let base = self.data_ptr().cast::<T>();
        crate::alloc::try_collect(
            self.element_offsets()?
                .into_iter()
                // SAFETY: DLPack guarantees every in-bounds offset addresses an element of `T`.
                .map(|offset| unsafe { base.offset(offset).read_unaligned() }),
        )
    }

    /// Applies `f` to every element in place (any strides), for CPU tensors of `T`.
    ///
    /// # Safety
    /// No one else reads or writes the tensor's data during the call, and no two indices alias
    /// the same element (no zero strides): the usual contract of in-place kernels.
    pub unsafe fn for_each_mut<T: Element>(&self, mut f: impl FnMut(&mut T)) -> Result<()> {
        self.check_cpu::<T>()?;
        let base = self.data_ptr().cast::<T>();
        for offset in self.element_offsets()? {
            // SAFETY: in bounds (DLPack), exclusive (the caller's contract).
            let element = unsafe { &mut *base.offset(offset) };
            f(element);
        }
        Ok(())
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor(shape={:?}, dtype={}, device={})",
            self.shape(),
            self.dtype(),
            self.device()
        )
    }
}

impl FfiType for Tensor {
    fn schema() -> Schema {
        Schema::named("ffi.Tensor")
    }
    const STATIC_TYPE_INDEX: i32 = tindex::TENSOR;
}

impl ByRef for Tensor {}

impl IntoAny for Tensor {
    fn into_any(self) -> Result<Any> {
        self.obj.into_any()
    }
}

impl FromAny for Tensor {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        match view.object_ptr() {
            Some(ptr) if view.type_index() == tindex::TENSOR => Ok(Tensor {
                // SAFETY: the view borrows a live tensor object.
                obj: unsafe { ObjectRef::from_borrowed(ptr.cast()) },
            }),
            _ => Err(mismatch::<Tensor>(view)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_counts_are_checked() {
        assert_eq!(checked_numel(&[]).unwrap(), 1);
        assert_eq!(checked_numel(&[2, 3, 4]).unwrap(), 24);
        assert_eq!(checked_numel(&[0, 1 << 62, 4]).unwrap(), 0);
        let error = checked_numel(&[1 << 62, 4]).unwrap_err();
        assert_eq!(error.kind(), "ValueError");
        assert_eq!(
            error.message(),
            "the element count of shape [4611686018427387904, 4] overflows int64"
        );
        assert_eq!(compact_strides(&[2, 3, 4]), vec![12, 4, 1]);
    }
}
