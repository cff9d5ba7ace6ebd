//! Objects: the 24-byte header every TVM-FFI object starts with ([`Object`]), the trait of object
//! types whose layout Rust knows ([`ObjectType`]), and strong references ([`ObjectRef`]).
//!
//! Object types defined in Rust are `#[repr(C)]` structs whose first field is their parent's
//! struct ([`Object`] for a root type), so the header comes first and the parent's fields come
//! before the child's: `#[derive(ffihub::Object)]` checks this and registers the type.

use crate::error::Result;
use crate::sys;
use ffihub_abi::abi::{TVMFFIObject, TVMFFIObjectHandle};
use ffihub_abi::tindex;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The root of every object layout: the TVM-FFI object header (type key `ffi.Object`).
///
/// Rust-defined root types embed it as their first field; its contents are filled in by
/// [`ObjectRef::new`], so create it with [`Object::new`].
#[repr(C)]
pub struct Object {
    header: TVMFFIObject,
}

impl Object {
    /// A blank header, to be filled in when the object is placed on the heap by
    /// [`ObjectRef::new`].
    pub const fn new() -> Object {
        Object {
            header: TVMFFIObject {
                combined_ref_count: AtomicU64::new(0),
                type_index: 0,
                __padding: 0,
                deleter: None,
            },
        }
    }

    /// The runtime type index of the object.
    pub fn type_index(&self) -> i32 {
        self.header.type_index
    }

    /// The type key of the object (`demo.Point`, `ffi.Array`...).
    pub fn type_key(&self) -> std::string::String {
        crate::reflection::type_key_of_index(self.header.type_index)
    }

    /// The number of strong references (for tests and diagnostics; racy by nature).
    pub fn strong_count(&self) -> u32 {
        (self.header.combined_ref_count.load(Ordering::Relaxed) & 0xffff_ffff) as u32
    }
}

impl Default for Object {
    fn default() -> Self {
        Object::new()
    }
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}>", self.type_key())
    }
}

/// A type of object whose Rust layout is known: `#[derive(ffihub::Object)]` implements it.
///
/// # Safety
/// Implementors are `#[repr(C)]` and start with their parent's struct (ultimately [`Object`]),
/// `TYPE_KEY` names the runtime type, and `type_index()` returns its runtime index; objects of
/// that index (or of a subtype) must have this layout.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an object type",
    note = "the first field of a #[derive(ffihub::Object)] struct is its parent: `ffihub::Object` for a root type, or another #[derive(ffihub::Object)] struct"
)]
pub unsafe trait ObjectType: Send + Sync + Sized + 'static {
    /// The type key (`demo.Point`).
    const TYPE_KEY: &'static str;

    /// The runtime type index (registering the type on first use).
    fn type_index() -> i32;

    /// Whether objects of this index are known to have this Rust layout: false when another
    /// library registered the same type key first (then checked downcasts to it fail).
    #[doc(hidden)]
    fn __layout_is_ours() -> bool {
        true
    }
}

// SAFETY: `Object` is exactly the header, which every object starts with.
unsafe impl ObjectType for Object {
    const TYPE_KEY: &'static str = "ffi.Object";

    fn type_index() -> i32 {
        tindex::OBJECT
    }
}

/// Number of objects created by [`ObjectRef::new`] in this copy of the crate and not yet freed.
static LIVE_OBJECTS: AtomicUsize = AtomicUsize::new(0);

/// The number of Rust-defined objects created by this library (this copy of `ffihub`) that are
/// still alive: a leak counter for tests, complementing the runtime's `ffihub.LiveObjectCount`.
pub fn live_rust_objects() -> usize {
    LIVE_OBJECTS.load(Ordering::Relaxed)
}

/// The deleter of objects created by [`ObjectRef::new`].
unsafe extern "C" fn delete_rust_object<T: ObjectType>(ptr: *mut std::ffi::c_void, flags: i32) {
    const STRONG: i32 = 1;
    const WEAK: i32 = 2;
    let ptr = ptr.cast::<T>();
    // A panic in a destructor must not unwind into the runtime.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if flags & STRONG != 0 {
            // SAFETY: the runtime calls this once when the last strong reference goes away;
            // the value was written by `ObjectRef::new` and is dropped exactly once.
            unsafe { std::ptr::drop_in_place(ptr) };
            LIVE_OBJECTS.fetch_sub(1, Ordering::Relaxed);
        }
        if flags & WEAK != 0 {
            // SAFETY: allocated by `Box::new` in `ObjectRef::new` with `T`'s layout.
            unsafe { std::alloc::dealloc(ptr.cast(), std::alloc::Layout::new::<T>()) };
        }
    }));
}

/// A strong reference to an object whose layout starts with `T` (by default just the header).
///
/// Cloning increments the reference count; dropping decrements it. Returned values are owned
/// (the reference is ours); arguments received by functions are borrowed views that converting
/// to an `ObjectRef` retains.
pub struct ObjectRef<T: ObjectType = Object> {
    ptr: NonNull<T>,
    _owns: PhantomData<T>,
}

// SAFETY: reference counting is atomic and `T: Send + Sync` (required by `ObjectType`).
unsafe impl<T: ObjectType> Send for ObjectRef<T> {}
// SAFETY: as above.
unsafe impl<T: ObjectType> Sync for ObjectRef<T> {}

impl<T: ObjectType> ObjectRef<T> {
    /// Moves `value` to the heap as a new object of type `T` (one strong reference).
    ///
    /// Panics if another library registered `T`'s type key first (with its own layout).
    pub fn new(value: T) -> ObjectRef<T> {
        let type_index = T::type_index();
        assert!(
            T::__layout_is_ours(),
            "type `{}` was registered by another library: its objects cannot be created here",
            T::TYPE_KEY
        );
        let ptr = Box::into_raw(Box::new(value));
        let header = ptr.cast::<TVMFFIObject>();
        // SAFETY: `T` is `#[repr(C)]` and starts with the header (the `ObjectType` contract);
        // we own the fresh allocation, so writing its header fields is race-free.
        unsafe {
            (*header)
                .combined_ref_count
                .store((1 << 32) | 1, Ordering::Relaxed);
            (*header).type_index = type_index;
            (*header).__padding = 0;
            (*header).deleter = Some(delete_rust_object::<T>);
        }
        LIVE_OBJECTS.fetch_add(1, Ordering::Relaxed);
        ObjectRef {
            // SAFETY: `Box::into_raw` never returns NULL.
            ptr: unsafe { NonNull::new_unchecked(ptr) },
            _owns: PhantomData,
        }
    }

    /// Takes over one reference to `handle`.
    ///
    /// # Safety
    /// `handle` is a live, non-NULL object whose layout starts with `T`, and the caller hands
    /// over one strong reference.
    pub unsafe fn from_raw(handle: TVMFFIObjectHandle) -> ObjectRef<T> {
        ObjectRef {
            ptr: NonNull::new_unchecked(handle.cast()),
            _owns: PhantomData,
        }
    }

    /// A new reference to a borrowed object.
    ///
    /// # Safety
    /// `handle` is a live, non-NULL object whose layout starts with `T`.
    pub unsafe fn from_borrowed(handle: TVMFFIObjectHandle) -> ObjectRef<T> {
        sys::TVMFFIObjectIncRef(handle);
        ObjectRef::from_raw(handle)
    }

    /// Gives up the reference: the caller becomes responsible for it.
    pub fn into_raw(self) -> TVMFFIObjectHandle {
        let handle = self.ptr.as_ptr().cast();
        std::mem::forget(self);
        handle
    }

    /// The handle (the address of the header), still owned by `self`.
    pub fn as_ptr(&self) -> *mut TVMFFIObject {
        self.ptr.as_ptr().cast()
    }

    /// The header.
    pub fn header(&self) -> &Object {
        // SAFETY: every object starts with its header, and `Object` is exactly the header.
        unsafe { &*self.ptr.as_ptr().cast::<Object>() }
    }

    /// The runtime type index of the object (of its most derived type).
    pub fn type_index(&self) -> i32 {
        self.header().type_index()
    }

    /// The type key of the object's most derived type.
    pub fn type_key(&self) -> std::string::String {
        self.header().type_key()
    }

    /// Whether both refer to the same object.
    pub fn ptr_eq<U: ObjectType>(&self, other: &ObjectRef<U>) -> bool {
        self.as_ptr() == other.as_ptr()
    }

    /// The same reference, typed as a plain object.
    pub fn upcast(self) -> ObjectRef<Object> {
        // SAFETY: every object starts with the header; the reference is moved over.
        unsafe { ObjectRef::from_raw(self.into_raw()) }
    }

    /// Whether the object is an instance of `U` (its type or a subtype), by type index.
    pub fn is_instance<U: ObjectType>(&self) -> bool {
        U::__layout_is_ours() && is_instance_index(self.type_index(), U::type_index())
    }

    /// A reference typed as `U` if the object is an instance of `U`, else the original.
    pub fn downcast<U: ObjectType>(self) -> std::result::Result<ObjectRef<U>, ObjectRef<T>> {
        if self.is_instance::<U>() {
            // SAFETY: the runtime says the object's type is `U` or derives from it, and
            // derived layouts start with their parent's.
            Ok(unsafe { ObjectRef::from_raw(self.into_raw()) })
        } else {
            Err(self)
        }
    }

    /// The object's reflected field `name` (searched in its type and ancestors), read through
    /// the getter the type registered.
    pub fn get_field(&self, name: &str) -> Result<crate::Any> {
        crate::reflection::get_field(self.as_ptr(), name)
    }

    /// Writes the reflected field `name` through the setter the type registered; fails with
    /// `AttributeError` when the field does not exist or is read-only.
    pub fn set_field<V: crate::IntoAny>(&self, name: &str, value: V) -> Result<()> {
        let value = value.into_any()?;
        crate::reflection::set_field(self.as_ptr(), name, value.view())
    }

    /// Calls the instance method `name` (searched in the type and its ancestors) with `self`
    /// as the first argument.
    pub fn call_method<R: crate::FromAny>(
        &self,
        name: &str,
        args: impl crate::function::IntoArgs,
    ) -> Result<R> {
        let method = crate::reflection::find_method(self.type_index(), name)?;
        let mut all = vec![crate::Any::from_value(self)?];
        all.extend(args.into_args()?);
        let views: Vec<crate::AnyView<'_>> = all.iter().map(crate::Any::view).collect();
        method.call_packed(&views)?.cast()
    }
}

impl<T: ObjectType> Clone for ObjectRef<T> {
    fn clone(&self) -> Self {
        // SAFETY: we own a reference, so the object is live.
        unsafe { sys::TVMFFIObjectIncRef(self.as_ptr().cast()) };
        ObjectRef {
            ptr: self.ptr,
            _owns: PhantomData,
        }
    }
}

impl<T: ObjectType> Drop for ObjectRef<T> {
    fn drop(&mut self) {
        // SAFETY: we own one reference.
        unsafe { sys::TVMFFIObjectDecRef(self.as_ptr().cast()) };
    }
}

impl<T: ObjectType> std::ops::Deref for ObjectRef<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the object is live while we hold a reference, and its layout starts with `T`.
        unsafe { self.ptr.as_ref() }
    }
}

impl<T: ObjectType> fmt::Debug for ObjectRef<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ObjectRef<{}>({:p})", self.type_key(), self.as_ptr())
    }
}

/// Whether an object of type index `child` is an instance of type `parent` (equal, or `parent`
/// among its ancestors).
pub(crate) fn is_instance_index(child: i32, parent: i32) -> bool {
    if child == parent || parent == tindex::OBJECT {
        return child >= tindex::OBJECT;
    }
    let (Some(child_info), Some(parent_info)) = (
        crate::reflection::type_info_raw(child),
        crate::reflection::type_info_raw(parent),
    ) else {
        return false;
    };
    let depth = parent_info.type_depth;
    if child_info.type_depth <= depth || depth < 0 {
        return false;
    }
    // SAFETY: `type_ancestors` holds `type_depth` entries (root first).
    let ancestor = unsafe { &**child_info.type_ancestors.add(depth as usize) };
    ancestor.type_index == parent
}

impl<T: ObjectType> crate::convert::FfiType for ObjectRef<T> {
    fn schema() -> crate::schema::Schema {
        crate::schema::Schema::named(T::TYPE_KEY)
    }
    const STATIC_TYPE_INDEX: i32 = tindex::OBJECT;
}

impl<T: ObjectType> crate::convert::ByRef for ObjectRef<T> {}

impl<T: ObjectType> crate::convert::IntoAny for ObjectRef<T> {
    fn into_any(self) -> Result<crate::Any> {
        // SAFETY: the reference is moved into the Any.
        Ok(unsafe { crate::Any::from_object_raw(self.into_raw().cast()) })
    }
}

/// The object of `view` as a `T`, borrowed for as long as the view (no reference of its own),
/// if it is an instance of `T` (or a subtype) in the layout this library knows.
pub(crate) fn borrow_instance<'a, T: ObjectType>(view: crate::AnyView<'a>) -> Result<&'a T> {
    if let Some(ptr) = view.object_ptr() {
        if T::__layout_is_ours() && is_instance_index(view.type_index(), T::type_index()) {
            // SAFETY: a live object of type `T` or a subtype, whose layout starts with `T`,
            // kept alive by the reference the view borrows.
            return Ok(unsafe { &*ptr.cast::<T>() });
        }
    }
    Err(crate::convert::mismatch::<ObjectRef<T>>(view))
}

impl<T: ObjectType> crate::convert::FromAny for ObjectRef<T> {
    fn from_view(view: crate::AnyView<'_>) -> Result<Self> {
        let object = borrow_instance::<T>(view)?;
        // SAFETY: a live object of type `T` (checked above); the new reference is our own.
        Ok(unsafe { ObjectRef::from_borrowed((object as *const T).cast_mut().cast()) })
    }
}
