//! The Tensor object and DLPack exchange, in process: the Rust API of `tvm_ffi::containers::tensor` and the
//! `TVMFFITensor*` C entry points (declared here, resolved from the runtime's rlib).
//!
//! Ownership is checked by counting deleter calls per capsule (each producer has its own counter,
//! so the tests can run in parallel), and by reference counts.

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tvm_ffi::abi::TVMFFIObjectHandle;
use tvm_ffi::containers::tensor::{self, Element, Tensor, CPU};
use tvm_ffi::dlpack::{
    DLDataType, DLDevice, DLDeviceType, DLManagedTensor, DLManagedTensorVersioned, DLPackVersion,
    DLTensor, DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, DLPACK_FLAG_BITMASK_READ_ONLY,
};
use tvm_ffi::value::error::{take_raised, Error};
use tvm_ffi::value::object::{strong_count, ObjectRef};

extern "C" {
    fn TVMFFITensorFromDLPack(
        from: *mut DLManagedTensor,
        require_alignment: i32,
        require_contiguous: i32,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    fn TVMFFITensorFromDLPackVersioned(
        from: *mut DLManagedTensorVersioned,
        require_alignment: i32,
        require_contiguous: i32,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    fn TVMFFITensorToDLPack(from: TVMFFIObjectHandle, out: *mut *mut DLManagedTensor) -> i32;
    fn TVMFFITensorToDLPackVersioned(
        from: TVMFFIObjectHandle,
        out: *mut *mut DLManagedTensorVersioned,
    ) -> i32;
    fn TVMFFITensorCreateUnsafeView(
        source: TVMFFIObjectHandle,
        prototype: *const DLTensor,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    fn TVMFFIObjectDecRef(obj: TVMFFIObjectHandle) -> i32;
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Counts how often it is dropped (through a shared counter).
struct DropProbe(Arc<AtomicUsize>);

impl Drop for DropProbe {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// What a producer capsule owns: its shape, strides, data, and a counter of deleter calls.
struct Producer {
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    /// u64 storage: the data is 8-byte aligned whatever the allocator does.
    data: Vec<u64>,
    _probe: DropProbe,
}

/// A legacy or versioned capsule made by a Rust "producer".
struct Capsule {
    legacy: *mut DLManagedTensor,
    versioned: *mut DLManagedTensorVersioned,
    deleted: Arc<AtomicUsize>,
}

unsafe extern "C" fn delete_legacy(mt: *mut DLManagedTensor) {
    let mt = Box::from_raw(mt);
    drop(Box::from_raw(mt.manager_ctx.cast::<Producer>()));
}

unsafe extern "C" fn delete_versioned(mt: *mut DLManagedTensorVersioned) {
    let mt = Box::from_raw(mt);
    drop(Box::from_raw(mt.manager_ctx.cast::<Producer>()));
}

fn f32_dtype() -> DLDataType {
    <f32 as Element>::DTYPE
}

impl Capsule {
    /// A float32 CPU capsule (legacy or versioned) with room for its elements (zeroed).
    fn new(shape: &[i64], strides: Option<&[i64]>, versioned: bool) -> Capsule {
        let deleted = Arc::new(AtomicUsize::new(0));
        let numel = shape.iter().product::<i64>().max(1) as usize;
        let mut producer = Box::new(Producer {
            shape: shape.to_vec(),
            strides: strides.map(<[i64]>::to_vec),
            data: vec![0; numel / 2 + 16],
            _probe: DropProbe(deleted.clone()),
        });
        let dl_tensor = DLTensor {
            data: producer.data.as_mut_ptr().cast(),
            device: CPU,
            ndim: shape.len() as i32,
            dtype: f32_dtype(),
            shape: producer.shape.as_mut_ptr(),
            strides: producer
                .strides
                .as_mut()
                .map_or(std::ptr::null_mut(), |s| s.as_mut_ptr()),
            byte_offset: 0,
        };
        let ctx = Box::into_raw(producer).cast::<c_void>();
        let mut capsule = Capsule {
            legacy: std::ptr::null_mut(),
            versioned: std::ptr::null_mut(),
            deleted,
        };
        if versioned {
            capsule.versioned = Box::into_raw(Box::new(DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 3 },
                manager_ctx: ctx,
                deleter: Some(delete_versioned),
                flags: 0,
                dl_tensor,
            }));
        } else {
            capsule.legacy = Box::into_raw(Box::new(DLManagedTensor {
                dl_tensor,
                manager_ctx: ctx,
                deleter: Some(delete_legacy),
            }));
        }
        capsule
    }

    fn deleted(&self) -> usize {
        self.deleted.load(Ordering::SeqCst)
    }

    fn dl_tensor(&mut self) -> &mut DLTensor {
        // SAFETY: the capsule is alive while the test holds it (checked by `deleted()`).
        unsafe {
            if self.legacy.is_null() {
                &mut (*self.versioned).dl_tensor
            } else {
                &mut (*self.legacy).dl_tensor
            }
        }
    }

    /// Releases a capsule that nobody took over.
    fn release(self) {
        // SAFETY: the capsule was not consumed; its deleter runs once here.
        unsafe {
            if self.legacy.is_null() {
                delete_versioned(self.versioned);
            } else {
                delete_legacy(self.legacy);
            }
        }
    }
}

fn kind_and_message(error: &Error) -> (String, String) {
    (
        String::from_utf8_lossy(error.kind()).into_owned(),
        String::from_utf8_lossy(error.message()).into_owned(),
    )
}

/// Takes this thread's raised error as (kind, message).
fn raised() -> (String, String) {
    let error = Error::from_object(take_raised().expect("an error was raised"));
    kind_and_message(&error)
}

fn strong(obj: &ObjectRef) -> u32 {
    // SAFETY: the test holds a reference.
    unsafe { strong_count(obj.as_ptr()) }
}

// ---------------------------------------------------------------------------------------------
// Tensors from Rust values
// ---------------------------------------------------------------------------------------------

#[test]
fn from_vec_describes_a_compact_cpu_tensor() {
    let values: Vec<f32> = (0..6).map(|i| i as f32).collect();
    let data = values.as_ptr();
    let t = Tensor::from_vec(values, &[2, 3]).unwrap();
    assert_eq!(t.as_object().type_index(), tvm_ffi::tindex::TENSOR);
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.strides(), &[3, 1]);
    assert_eq!(t.ndim(), 2);
    assert_eq!(t.numel().unwrap(), 6);
    assert_eq!(t.dtype(), f32_dtype());
    assert_eq!(t.device(), CPU);
    assert_eq!(t.byte_offset(), 0);
    assert_eq!(t.data_ptr().cast_const().cast::<f32>(), data, "no copy");
    assert!(t.is_contiguous());
    assert!(t.is_aligned(4));
    // The DLTensor sits right after the 24-byte header (what TVMFFITensorGetDLTensorPtr reads).
    assert_eq!(
        t.dl_tensor_ptr() as usize,
        t.as_object().as_ptr() as usize + 24
    );
    let dl = t.dl_tensor();
    // SAFETY: the shape holds `ndim` (2) values while `t` lives.
    assert_eq!(unsafe { *dl.shape.add(1) }, 3);

    let scalar = Tensor::from_vec(vec![7i64], &[]).unwrap();
    assert_eq!(scalar.ndim(), 0);
    assert_eq!(scalar.numel().unwrap(), 1);
    assert!(
        !scalar.dl_tensor().strides.is_null(),
        "copied dims live in the object"
    );
    assert_eq!(scalar.dtype().bits, 64);
    let flags = Tensor::from_vec(vec![true, false], &[2]).unwrap();
    assert_eq!(flags.dtype(), <bool as Element>::DTYPE);
}

#[test]
fn from_vec_rejects_a_wrong_shape() {
    let error = Tensor::from_vec(vec![1u8, 2, 3], &[2, 2]).unwrap_err();
    assert_eq!(
        kind_and_message(&error),
        (
            "ValueError".into(),
            "shape [2, 2] does not describe 3 elements".into()
        )
    );
    assert!(Tensor::from_vec(vec![0u8; 0], &[-1, 0]).is_err());
}

#[test]
fn from_parts_owner_is_dropped_once_when_the_tensor_dies() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let mut buffer = vec![0f64; 12];
    let data = buffer.as_mut_ptr().cast::<c_void>();
    let owner = Box::new((buffer, DropProbe(dropped.clone())));
    // SAFETY: `data` points into `owner`'s buffer of 12 f64, which the tensor keeps alive.
    let t = unsafe {
        Tensor::from_parts(
            data,
            &[3, 2],
            Some(&[1, 6]),
            <f64 as Element>::DTYPE,
            CPU,
            8,
            owner,
        )
    }
    .unwrap();
    assert_eq!(t.strides(), &[1, 6]);
    assert!(!t.is_contiguous());
    assert_eq!(t.byte_offset(), 8);
    let copy = t.clone();
    assert_eq!(strong(t.as_object()), 2);
    drop(t);
    assert_eq!(dropped.load(Ordering::SeqCst), 0);
    // The last reference goes on another thread: the owner is dropped there, once.
    std::thread::spawn(move || drop(copy)).join().unwrap();
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
}

#[test]
fn from_parts_checks_the_strides_length() {
    let dropped = Arc::new(AtomicUsize::new(0));
    // SAFETY: a NULL data pointer is never read: the call fails on the strides length.
    let error = unsafe {
        Tensor::from_parts(
            std::ptr::null_mut(),
            &[2, 2],
            Some(&[1]),
            f32_dtype(),
            CPU,
            0,
            Box::new(DropProbe(dropped.clone())),
        )
    }
    .unwrap_err();
    assert_eq!(
        kind_and_message(&error),
        (
            "ValueError".into(),
            "shape and strides must have the same size.".into()
        )
    );
    assert_eq!(dropped.load(Ordering::SeqCst), 1, "the owner is not leaked");
}

// ---------------------------------------------------------------------------------------------
// Import
// ---------------------------------------------------------------------------------------------

#[test]
fn from_dlpack_owns_the_capsule_and_computes_missing_strides() {
    let capsule = Capsule::new(&[2, 3, 4], None, false);
    // SAFETY: a fresh, valid capsule, handed over on success.
    let t = unsafe { Tensor::from_dlpack(capsule.legacy, 8, true) }.unwrap();
    assert_eq!(t.strides(), &[12, 4, 1]);
    assert_eq!(
        t.dl_tensor().shape,
        // SAFETY: the capsule is alive (owned by `t`).
        unsafe { (*capsule.legacy).dl_tensor.shape },
        "shape stays the producer's"
    );
    assert_eq!(capsule.deleted(), 0);
    let copy = t.clone();
    drop(t);
    assert_eq!(capsule.deleted(), 0);
    drop(copy);
    assert_eq!(capsule.deleted(), 1);

    let mut capsule = Capsule::new(&[2, 3], Some(&[3, 1]), true);
    let strides = capsule.dl_tensor().strides;
    // SAFETY: a fresh, valid capsule, handed over on success.
    let t = unsafe { Tensor::from_dlpack_versioned(capsule.versioned, 0, false) }.unwrap();
    assert_eq!(t.dl_tensor().strides, strides, "given strides are kept");
    drop(t);
    assert_eq!(capsule.deleted(), 1);
}

#[test]
fn failed_imports_leave_the_capsule_with_its_producer() {
    let mut capsule = Capsule::new(&[2, 3], Some(&[1, 2]), false);
    capsule.dl_tensor().byte_offset = 4;
    // SAFETY: a valid capsule; the call fails and leaves it with us.
    let error = unsafe { Tensor::from_dlpack(capsule.legacy, 8, true) }.unwrap_err();
    assert_eq!(
        kind_and_message(&error),
        (
            "RuntimeError".into(),
            "FromDLPack: Data is not aligned to 8 bytes.".into()
        )
    );
    // SAFETY: as above.
    let error = unsafe { Tensor::from_dlpack(capsule.legacy, 4, true) }.unwrap_err();
    assert_eq!(
        kind_and_message(&error),
        (
            "RuntimeError".into(),
            "FromDLPack: Tensor is not contiguous.".into()
        )
    );
    assert_eq!(capsule.deleted(), 0);
    capsule.release();

    let capsule = Capsule::new(&[8], None, true);
    // SAFETY: the capsule is ours (not consumed).
    unsafe { (*capsule.versioned).flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED };
    // SAFETY: a valid capsule; the call fails and leaves it with us.
    let error = unsafe { Tensor::from_dlpack_versioned(capsule.versioned, 0, false) }.unwrap_err();
    assert_eq!(
        kind_and_message(&error),
        (
            "RuntimeError".into(),
            "Subbyte type padded is not yet supported".into()
        )
    );
    // Other flags are accepted (and, as in Apache's runtime, not kept).
    // SAFETY: the capsule is still ours.
    unsafe { (*capsule.versioned).flags = DLPACK_FLAG_BITMASK_READ_ONLY };
    assert_eq!(capsule.deleted(), 0);
    // SAFETY: a valid capsule, handed over on success.
    let t = unsafe { Tensor::from_dlpack_versioned(capsule.versioned, 0, false) }.unwrap();
    assert_eq!(exported_flags(&t), 0);
    drop(t);
    assert_eq!(capsule.deleted(), 1);
}

/// Shapes whose element count overflows int64 are refused with a ValueError by every way of making
/// a tensor (imports leave the capsule with its producer), and a Shape's product is checked too.
#[test]
fn element_counts_that_overflow_int64_are_value_errors() {
    let overflow = (
        "ValueError".to_string(),
        "the element count of shape [4611686018427387904, 4] overflows int64".to_string(),
    );
    let huge = |capsule: &mut Capsule| {
        let t = capsule.dl_tensor();
        // SAFETY: the producer's shape holds 2 values.
        unsafe { std::slice::from_raw_parts_mut(t.shape, 2).copy_from_slice(&[1 << 62, 4]) };
    };
    for versioned in [false, true] {
        let mut capsule = Capsule::new(&[2, 3], None, versioned);
        huge(&mut capsule);
        let mut out: TVMFFIObjectHandle = std::ptr::null_mut();
        // SAFETY: a valid capsule; the call fails and leaves it with us.
        let code = unsafe {
            if versioned {
                TVMFFITensorFromDLPackVersioned(capsule.versioned, 0, 0, &mut out)
            } else {
                TVMFFITensorFromDLPack(capsule.legacy, 0, 0, &mut out)
            }
        };
        assert_eq!(code, -1);
        assert_eq!(raised(), overflow);
        assert!(out.is_null());
        assert_eq!(capsule.deleted(), 0);
        capsule.release();
    }
    // An empty tensor may have huge extents.
    let mut capsule = Capsule::new(&[2, 3], None, true);
    // SAFETY: the producer's shape holds 2 values.
    unsafe {
        std::slice::from_raw_parts_mut(capsule.dl_tensor().shape, 2).copy_from_slice(&[0, 1 << 62])
    };
    // SAFETY: a valid capsule, handed over on success.
    let empty = unsafe { Tensor::from_dlpack_versioned(capsule.versioned, 0, false) }.unwrap();
    assert_eq!(empty.numel().unwrap(), 0);
    drop(empty);

    let dropped = Arc::new(AtomicUsize::new(0));
    // SAFETY: the call fails on the shape before the data pointer matters.
    let error = unsafe {
        Tensor::from_parts(
            std::ptr::null_mut(),
            &[1 << 62, 4],
            None,
            f32_dtype(),
            CPU,
            0,
            Box::new(DropProbe(dropped.clone())),
        )
    }
    .unwrap_err();
    assert_eq!(kind_and_message(&error), overflow);
    assert_eq!(dropped.load(Ordering::SeqCst), 1, "the owner is not leaked");

    let source = Tensor::from_vec(vec![0f32; 8], &[8]).unwrap();
    let mut shape = [1i64 << 62, 4];
    let mut strides = [4i64, 1];
    let mut prototype = *source.dl_tensor();
    prototype.ndim = 2;
    prototype.shape = shape.as_mut_ptr();
    prototype.strides = strides.as_mut_ptr();
    // SAFETY: shape and strides hold 2 values; the call fails before any view exists.
    let error = unsafe { source.view(&prototype) }.unwrap_err();
    assert_eq!(kind_and_message(&error), overflow);

    let shape = tvm_ffi::containers::shape::Shape::new(&[1 << 62, 4]);
    assert_eq!(kind_and_message(&shape.product().unwrap_err()), overflow);
}

/// The flags of a fresh versioned export (released right away).
fn exported_flags(t: &Tensor) -> u64 {
    let capsule = t.to_dlpack_versioned();
    // SAFETY: a fresh export, released once.
    unsafe {
        let flags = (*capsule).flags;
        (*capsule).deleter.unwrap()(capsule);
        flags
    }
}

#[test]
fn contiguity_ignores_size_one_dims_and_empty_tensors() {
    for (shape, strides, expected) in [
        (&[2i64, 1, 3][..], &[3i64, 99, 1][..], true),
        (&[1, 4], &[0, 1], true),
        (&[0, 3], &[7, 7], true),
        (&[3], &[2], false),
        (&[2, 3], &[1, 2], false),
        (&[2, 3], &[3, 1], true),
    ] {
        let mut capsule = Capsule::new(shape, Some(strides), false);
        assert_eq!(
            // SAFETY: the DLTensor points at the producer's shape and strides.
            unsafe { tensor::is_contiguous(capsule.dl_tensor()) },
            expected,
            "{shape:?} {strides:?}"
        );
        // SAFETY: a valid capsule, handed over on success only.
        let result = unsafe { Tensor::from_dlpack(capsule.legacy, 0, true) };
        assert_eq!(result.is_ok(), expected);
        if let Ok(t) = result {
            drop(t);
            assert_eq!(capsule.deleted(), 1);
        } else {
            assert_eq!(capsule.deleted(), 0);
            capsule.release();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------------------------

#[test]
fn exported_capsules_hold_a_reference_until_their_deleter_runs() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let mut values = vec![1.5f32; 6];
    let data = values.as_mut_ptr().cast::<c_void>();
    // SAFETY: `data` points into the Vec that the owner keeps alive.
    let t = unsafe {
        Tensor::from_parts(
            data,
            &[2, 3],
            None,
            f32_dtype(),
            CPU,
            0,
            Box::new((values, DropProbe(dropped.clone()))),
        )
    }
    .unwrap();
    let legacy = t.to_dlpack();
    let versioned = t.to_dlpack_versioned();
    assert_eq!(strong(t.as_object()), 3);
    // SAFETY: the capsules are alive until their deleters run below.
    unsafe {
        assert_eq!((*legacy).manager_ctx, t.as_object().as_ptr().cast());
        assert_eq!((*legacy).dl_tensor.shape, t.dl_tensor().shape);
        assert_eq!((*legacy).dl_tensor.strides, t.dl_tensor().strides);
        assert_eq!((*legacy).dl_tensor.data, data);
        assert_eq!((*versioned).version, DLPackVersion { major: 1, minor: 3 });
        assert_eq!((*versioned).flags, 0);
        assert_eq!((*versioned).dl_tensor.ndim, 2);
    }
    drop(t);
    assert_eq!(dropped.load(Ordering::SeqCst), 0);
    // SAFETY: each capsule is released exactly once; `legacy` keeps the tensor and its data alive.
    unsafe {
        assert_eq!(*(*legacy).dl_tensor.data.cast::<f32>(), 1.5);
        (*legacy).deleter.unwrap()(legacy);
        assert_eq!(dropped.load(Ordering::SeqCst), 0);
        // The consumer may release on another thread.
        let versioned = versioned as usize;
        std::thread::spawn(move || {
            let versioned = versioned as *mut DLManagedTensorVersioned;
            (*versioned).deleter.unwrap()(versioned);
        })
        .join()
        .unwrap();
    }
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
}

#[test]
fn round_trip_through_dlpack_shares_memory() {
    let t = Tensor::from_vec(vec![3i32; 4], &[4]).unwrap();
    let capsule = t.to_dlpack_versioned();
    // SAFETY: a fresh export: a valid capsule handed over on success.
    let back = unsafe { Tensor::from_dlpack_versioned(capsule, 4, true) }.unwrap();
    assert_ne!(back.as_object().as_ptr(), t.as_object().as_ptr());
    assert_eq!(back.data_ptr(), t.data_ptr());
    assert_eq!(back.dl_tensor().strides, t.dl_tensor().strides);
    assert_eq!(strong(t.as_object()), 2);
    drop(back);
    assert_eq!(strong(t.as_object()), 1);
}

// ---------------------------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------------------------

#[test]
fn views_copy_their_dims_and_keep_the_source_alive() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let mut values: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let data = values.as_mut_ptr();
    // SAFETY: `data` points into the Vec of 24 f32 that the owner keeps alive.
    let source = unsafe {
        Tensor::from_parts(
            data.cast(),
            &[4, 6],
            None,
            f32_dtype(),
            CPU,
            0,
            Box::new((values, DropProbe(dropped.clone()))),
        )
    }
    .unwrap();
    let mut shape = [2i64, 3];
    let mut strides = [6i64, 1];
    let mut prototype = *source.dl_tensor();
    // SAFETY: offset 8 is inside the 24-element buffer.
    prototype.data = unsafe { data.add(6 + 2) }.cast();
    prototype.shape = shape.as_mut_ptr();
    prototype.strides = strides.as_mut_ptr();
    // SAFETY: the prototype describes a 2x3 window inside the source's 4x6 buffer.
    let view = unsafe { source.view(&prototype) }.unwrap();
    // Overwriting the prototype's arrays does not change the view.
    shape.fill(100);
    strides.fill(100);
    assert_eq!(view.shape(), &[2, 3]);
    assert_eq!(view.strides(), &[6, 1]);
    // SAFETY: the view's data points at element 8 of the live buffer.
    assert_eq!(unsafe { *view.data_ptr().cast::<f32>() }, 8.0);
    assert_eq!(strong(source.as_object()), 2);
    drop(source);
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        0,
        "the view keeps the source"
    );
    drop(view);
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
}

#[test]
fn views_need_strides_but_not_a_source() {
    let t = Tensor::from_vec(vec![0u16; 6], &[2, 3]).unwrap();
    let mut prototype = *t.dl_tensor();
    prototype.strides = std::ptr::null_mut();
    // SAFETY: the prototype's shape is the tensor's own (2 values); the call fails on NULL strides.
    let error = unsafe { Tensor::create_unsafe_view(Some(t.as_object()), &prototype) }.unwrap_err();
    assert_eq!(
        kind_and_message(&error),
        (
            "InternalError".into(),
            "Check not null: prototype.strides ".into()
        )
    );
    assert_eq!(strong(t.as_object()), 1);
    let prototype = *t.dl_tensor();
    // SAFETY: the prototype's shape and strides are the tensor's own, alive while `t` is.
    let view = unsafe { Tensor::create_unsafe_view(None, &prototype) }.unwrap();
    assert_eq!(strong(t.as_object()), 1, "nothing kept alive");
    assert_eq!(view.shape(), t.shape());
}

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

#[test]
fn only_tensors_convert() {
    let not_a_tensor = tvm_ffi::value::object::alloc_object(tvm_ffi::tindex::OBJECT, 0u64, 0);
    let back = Tensor::from_object(not_a_tensor).unwrap_err();
    // SAFETY: `back` is a live object we hold a reference to.
    let error = unsafe { Tensor::from_borrowed_handle(back.as_ptr().cast()) }.unwrap_err();
    assert_eq!(
        kind_and_message(&error),
        (
            "TypeError".into(),
            "expected `ffi.Tensor` but got `ffi.Object`".into()
        )
    );
    let t = Tensor::from_vec(vec![1u8], &[1]).unwrap();
    let obj: ObjectRef = t.into();
    let t = Tensor::try_from(obj).unwrap();
    let any: tvm_ffi::value::any::Any = t.into();
    assert_eq!(any.type_index(), tvm_ffi::tindex::TENSOR);
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Tensor>();
}

// ---------------------------------------------------------------------------------------------
// The environment allocator (thread-local here, so parallel tests do not interfere)
// ---------------------------------------------------------------------------------------------

type SetError = Option<unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char)>;

struct EnvBlock {
    shape: Vec<i64>,
    _data: Vec<u8>,
}

unsafe extern "C" fn env_delete(mt: *mut DLManagedTensorVersioned) {
    let mt = Box::from_raw(mt);
    drop(Box::from_raw(mt.manager_ctx.cast::<EnvBlock>()));
    ENV_FREES.with(|f| f.set(f.get() + 1));
}

thread_local! {
    static ENV_FREES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

unsafe extern "C" fn env_alloc_ok(
    prototype: *mut DLTensor,
    out: *mut *mut DLManagedTensorVersioned,
    _ctx: *mut c_void,
    _set_error: SetError,
) -> i32 {
    let p = &*prototype;
    let shape = std::slice::from_raw_parts(p.shape, p.ndim as usize).to_vec();
    let bytes = tensor::data_size(shape.iter().product::<i64>() as u64, p.dtype).unwrap() as usize;
    let mut block = Box::new(EnvBlock {
        shape,
        _data: vec![0u8; bytes.max(1)],
    });
    let dl_tensor = DLTensor {
        data: block._data.as_mut_ptr().cast(),
        shape: block.shape.as_mut_ptr(),
        strides: std::ptr::null_mut(),
        byte_offset: 0,
        ..*p
    };
    *out = Box::into_raw(Box::new(DLManagedTensorVersioned {
        version: DLPackVersion { major: 1, minor: 3 },
        manager_ctx: Box::into_raw(block).cast(),
        deleter: Some(env_delete),
        flags: 0,
        dl_tensor,
    }));
    0
}

unsafe extern "C" fn env_alloc_fails(
    _prototype: *mut DLTensor,
    _out: *mut *mut DLManagedTensorVersioned,
    ctx: *mut c_void,
    set_error: SetError,
) -> i32 {
    set_error.unwrap()(ctx, c"MemoryError".as_ptr(), c"out of pool".as_ptr());
    -7
}

fn prototype(shape: &mut [i64]) -> DLTensor {
    DLTensor {
        data: std::ptr::null_mut(),
        device: DLDevice {
            device_type: DLDeviceType::kDLCPU as i32,
            device_id: 0,
        },
        ndim: shape.len() as i32,
        dtype: f32_dtype(),
        shape: shape.as_mut_ptr(),
        strides: std::ptr::null_mut(),
        byte_offset: 0,
    }
}

#[test]
fn env_alloc_wraps_the_allocators_capsule() {
    let mut shape = [2i64, 5];
    let proto = prototype(&mut shape);
    tvm_ffi::value::env::set_tensor_allocator(None, false);
    if tvm_ffi::value::env::tensor_allocator().is_none() {
        let (code, error) = Tensor::env_alloc(&proto).unwrap_err();
        assert_eq!(code, -1);
        assert_eq!(kind_and_message(&error).0, "RuntimeError");
        assert!(kind_and_message(&error)
            .1
            .starts_with("TVMFFIEnvTensorAlloc: allocator is nullptr"));
    }

    tvm_ffi::value::env::set_tensor_allocator(Some(env_alloc_ok), false);
    let t = Tensor::env_alloc(&proto).unwrap();
    assert_eq!(t.shape(), &[2, 5]);
    assert_eq!(
        t.strides(),
        &[5, 1],
        "computed when the allocator gives none"
    );
    let obj = Tensor::env_alloc(&proto).unwrap().into_object();
    assert_eq!(obj.type_index(), tvm_ffi::tindex::TENSOR);
    let before = ENV_FREES.with(|f| f.get());
    drop(t);
    drop(obj);
    assert_eq!(ENV_FREES.with(|f| f.get()), before + 2);

    // The allocator's code and error come back as they were raised.
    tvm_ffi::value::env::set_tensor_allocator(Some(env_alloc_fails), false);
    let (code, error) = Tensor::env_alloc(&proto).unwrap_err();
    assert_eq!(code, -7);
    assert_eq!(
        kind_and_message(&error),
        ("MemoryError".into(), "out of pool".into())
    );
    assert!(
        take_raised().is_none(),
        "the error was moved out of the slot"
    );
    tvm_ffi::value::env::set_tensor_allocator(None, false);
}

// ---------------------------------------------------------------------------------------------
// The C entry points
// ---------------------------------------------------------------------------------------------

#[test]
fn c_entry_points_import_export_and_view() {
    // SAFETY: capsules and handles are used only while alive; each is released exactly once.
    unsafe {
        let capsule = Capsule::new(&[3, 4], None, false);
        let mut handle: TVMFFIObjectHandle = std::ptr::null_mut();
        assert_eq!(TVMFFITensorFromDLPack(capsule.legacy, 4, 1, &mut handle), 0);
        let mut exported: *mut DLManagedTensorVersioned = std::ptr::null_mut();
        assert_eq!(TVMFFITensorToDLPackVersioned(handle, &mut exported), 0);
        let mut legacy: *mut DLManagedTensor = std::ptr::null_mut();
        assert_eq!(TVMFFITensorToDLPack(handle, &mut legacy), 0);
        let mut view: TVMFFIObjectHandle = std::ptr::null_mut();
        let proto = (*exported).dl_tensor;
        assert_eq!(TVMFFITensorCreateUnsafeView(handle, &proto, &mut view), 0);
        let mut again: TVMFFIObjectHandle = std::ptr::null_mut();
        assert_eq!(
            TVMFFITensorFromDLPackVersioned(exported, 0, 0, &mut again),
            0
        );
        TVMFFIObjectDecRef(handle);
        (*legacy).deleter.unwrap()(legacy);
        TVMFFIObjectDecRef(again);
        assert_eq!(capsule.deleted(), 0, "the view still holds the tensor");
        TVMFFIObjectDecRef(view);
        assert_eq!(capsule.deleted(), 1);
    }
}

#[test]
fn c_entry_points_report_bad_arguments_without_consuming() {
    // SAFETY: every pointer is valid or deliberately NULL; the entry points check for NULL.
    unsafe {
        let capsule = Capsule::new(&[2], None, false);
        assert_eq!(
            TVMFFITensorFromDLPack(capsule.legacy, 0, 0, std::ptr::null_mut()),
            -1
        );
        assert_eq!(
            raised(),
            ("ValueError".into(), "out must not be NULL".into())
        );
        let mut out: TVMFFIObjectHandle = std::ptr::null_mut();
        assert_eq!(TVMFFITensorFromDLPack(capsule.legacy, -1, 0, &mut out), -1);
        assert_eq!(
            raised(),
            (
                "RuntimeError".into(),
                "FromDLPack: Data is not aligned to 18446744073709551615 bytes.".into()
            )
        );
        assert!(out.is_null());
        assert_eq!(capsule.deleted(), 0);
        capsule.release();

        assert_eq!(
            TVMFFITensorFromDLPackVersioned(std::ptr::null_mut(), 0, 0, &mut out),
            -1
        );
        assert_eq!(
            raised(),
            ("ValueError".into(), "from must not be NULL".into())
        );

        let mut capsule_out: *mut DLManagedTensor = std::ptr::null_mut();
        assert_eq!(
            TVMFFITensorToDLPack(std::ptr::null_mut(), &mut capsule_out),
            -1
        );
        assert_eq!(raised().0, "ValueError");
        let not_a_tensor = tvm_ffi::value::any::Any::string("certainly not a tensor, but a string");
        let handle = not_a_tensor.as_object().unwrap().as_ptr().cast();
        assert_eq!(TVMFFITensorToDLPack(handle, &mut capsule_out), -1);
        assert_eq!(
            raised(),
            (
                "TypeError".into(),
                "expected `ffi.Tensor` but got `ffi.String`".into()
            )
        );
        assert!(capsule_out.is_null());

        assert_eq!(
            TVMFFITensorCreateUnsafeView(handle, std::ptr::null(), &mut out),
            -1
        );
        assert_eq!(
            raised(),
            ("ValueError".into(), "prototype must not be NULL".into())
        );
        // Any object may be the source of a view.
        let t = Tensor::from_vec(vec![0f32; 2], &[2]).unwrap();
        assert_eq!(
            TVMFFITensorCreateUnsafeView(handle, t.dl_tensor(), &mut out),
            0
        );
        assert_eq!(strong(not_a_tensor.as_object().unwrap()), 2);
        TVMFFIObjectDecRef(out);
        assert_eq!(strong(not_a_tensor.as_object().unwrap()), 1);
    }
}
