//! Containers: `Array<T>`, `Map<K, V>` and `Shape`.
//!
//! They are runtime objects. New ones are built by the runtime's `ffi.Array` / `ffi.Map` /
//! `ffi.Shape` global functions (looked up once), so they are exactly what the runtime in use
//! (ffihub's or Apache's) builds. Arrays and shapes are read through their ABI cells (Apache's
//! header-only C++ does the same); map lookups and iteration go through `ffi.MapGetItem`,
//! `ffi.MapCount` and `ffi.MapForwardIterFunctor`, because the hash-table layout is the
//! runtime's business.

use crate::any::{Any, AnyView};
use crate::convert::{mismatch, ByRef, FfiType, FromAny, IntoAny};
use crate::error::{Error, Result};
use crate::function::{global, Function};
use crate::object::{Object, ObjectRef};
use crate::schema::Schema;
use ffihub_abi::abi::{TVMFFIAny, TVMFFISeqCell, TVMFFIShapeCell};
use ffihub_abi::tindex;
use std::fmt;
use std::marker::PhantomData;

/// The object of a view with type index `index`, as a new reference.
fn object_of(view: AnyView<'_>, index: i32) -> Option<ObjectRef<Object>> {
    let ptr = view.object_ptr()?;
    // SAFETY: the view borrows a live object.
    (view.type_index() == index).then(|| unsafe { ObjectRef::from_borrowed(ptr.cast()) })
}

/// An immutable array (`ffi.Array`) of values converted as `T` (use `Array<Any>` for mixed
/// contents).
pub struct Array<T> {
    obj: ObjectRef<Object>,
    _elements: PhantomData<fn() -> T>,
}

impl<T> Clone for Array<T> {
    fn clone(&self) -> Self {
        Array {
            obj: self.obj.clone(),
            _elements: PhantomData,
        }
    }
}

impl<T> Array<T> {
    fn cell(&self) -> &TVMFFISeqCell {
        // SAFETY: an ffi.Array object: its sequence cell follows the 24-byte header.
        unsafe {
            &*self
                .obj
                .as_ptr()
                .cast::<u8>()
                .add(24)
                .cast::<TVMFFISeqCell>()
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.cell().size.max(0) as usize
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a borrowed value.
    pub fn get_view(&self, i: usize) -> Option<AnyView<'_>> {
        let cell = self.cell();
        if i >= self.len() {
            return None;
        }
        // SAFETY: `data` holds `size` owned values that live as long as the array (arrays are
        // immutable once shared).
        Some(unsafe { AnyView::from_raw(*cell.data.cast::<TVMFFIAny>().add(i)) })
    }

    /// The array object.
    pub fn as_object(&self) -> &ObjectRef<Object> {
        &self.obj
    }
}

impl<T: FromAny> Array<T> {
    /// Element `i`; an `IndexError` when out of range.
    pub fn get(&self, i: usize) -> Result<T> {
        let view = self.get_view(i).ok_or_else(|| {
            Error::index_error(format!(
                "index {i} is out of range for an array of length {}",
                self.len()
            ))
        })?;
        T::from_view(view)
    }

    /// The elements, converted one by one.
    pub fn iter(&self) -> impl Iterator<Item = Result<T>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// All elements as a `Vec`.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        crate::alloc::try_collect_results(self.iter())
    }
}

impl<T: IntoAny> Array<T> {
    /// A new array of `items` (built by the runtime's `ffi.Array`).
    pub fn new(items: impl IntoIterator<Item = T>) -> Result<Array<T>> {
        let items = crate::alloc::try_collect_results(items.into_iter().map(IntoAny::into_any))?;
        let views = crate::alloc::try_collect(items.iter().map(Any::view))?;
        let array = global!("ffi.Array").call_packed(&views)?;
        Ok(Array {
            obj: object_of(array.view(), tindex::ARRAY)
                .ok_or_else(|| Error::runtime_error("ffi.Array did not return an array"))?,
            _elements: PhantomData,
        })
    }
}

impl<T> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries((0..self.len()).filter_map(|i| self.get_view(i)))
            .finish()
    }
}

impl<T: FfiType> FfiType for Array<T> {
    fn schema() -> Schema {
        Schema::Generic("ffi.Array", vec![T::schema()])
    }
    const STATIC_TYPE_INDEX: i32 = tindex::ARRAY;
}

impl<T> ByRef for Array<T> {}

impl<T> IntoAny for Array<T> {
    fn into_any(self) -> Result<Any> {
        self.obj.into_any()
    }
}

impl<T: FromAny + FfiType> FromAny for Array<T> {
    /// Accepts an `ffi.Array` whose every element converts to `T`.
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        let obj = object_of(view, tindex::ARRAY).ok_or_else(|| mismatch::<Array<T>>(view))?;
        let array = Array {
            obj,
            _elements: PhantomData,
        };
        for i in 0..array.len() {
            if let Err(e) = array.get(i) {
                return Err(Error::type_error(format!(
                    "Expected `{}` but got an array whose element {i} is not: {}",
                    Self::schema().display_name(),
                    e.message()
                )));
            }
        }
        Ok(array)
    }
}

/// An immutable map (`ffi.Map`) with keys converted as `K` and values as `V`.
pub struct Map<K, V> {
    obj: ObjectRef<Object>,
    _entries: PhantomData<fn() -> (K, V)>,
}

impl<K, V> Clone for Map<K, V> {
    fn clone(&self) -> Self {
        Map {
            obj: self.obj.clone(),
            _entries: PhantomData,
        }
    }
}

impl<K, V> Map<K, V> {
    /// The number of entries (`size_` of the ABI's map object, at offset 32).
    pub fn len(&self) -> usize {
        // SAFETY: an ffi.Map object: `MapBaseObj { data_ @24, size_ @32, ... }`.
        unsafe { self.obj.as_ptr().cast::<u8>().add(32).cast::<u64>().read() as usize }
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The map object.
    pub fn as_object(&self) -> &ObjectRef<Object> {
        &self.obj
    }

    /// Every entry as owned values, in the map's iteration order.
    pub fn raw_entries(&self) -> Result<Vec<(Any, Any)>> {
        let iter: Function = global!("ffi.MapForwardIterFunctor").call((&self.obj,))?;
        let mut entries = crate::alloc::try_vec(self.len())?;
        for _ in 0..self.len() {
            let key: Any = iter.call((0,))?;
            let value: Any = iter.call((1,))?;
            crate::alloc::try_push(&mut entries, (key, value))?;
            iter.call::<Any>((2,))?;
        }
        Ok(entries)
    }
}

impl<K: IntoAny, V: FromAny> Map<K, V> {
    /// The value of `key`, or `None`.
    pub fn get(&self, key: K) -> Result<Option<V>> {
        let key = key.into_any()?;
        let count: i64 = global!("ffi.MapCount").call((&self.obj, &key))?;
        if count == 0 {
            return Ok(None);
        }
        let value: Any = global!("ffi.MapGetItem").call((&self.obj, &key))?;
        V::from_any(value).map(Some)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: K) -> Result<bool> {
        let count: i64 = global!("ffi.MapCount").call((&self.obj, key))?;
        Ok(count != 0)
    }
}

impl<K: FromAny, V: FromAny> Map<K, V> {
    /// Every entry, converted, in the map's iteration order.
    pub fn entries(&self) -> Result<Vec<(K, V)>> {
        crate::alloc::try_collect_results(
            self.raw_entries()?
                .into_iter()
                .map(|(k, v)| Ok((K::from_any(k)?, V::from_any(v)?))),
        )
    }
}

impl<K: IntoAny, V: IntoAny> Map<K, V> {
    /// A new map of `entries` (built by the runtime's `ffi.Map`; a repeated key keeps the last
    /// value).
    pub fn new(entries: impl IntoIterator<Item = (K, V)>) -> Result<Map<K, V>> {
        let mut items = Vec::new();
        for (key, value) in entries {
            crate::alloc::try_push(&mut items, key.into_any()?)?;
            crate::alloc::try_push(&mut items, value.into_any()?)?;
        }
        let views = crate::alloc::try_collect(items.iter().map(Any::view))?;
        let map = global!("ffi.Map").call_packed(&views)?;
        Ok(Map {
            obj: object_of(map.view(), tindex::MAP)
                .ok_or_else(|| Error::runtime_error("ffi.Map did not return a map"))?,
            _entries: PhantomData,
        })
    }
}

impl<K, V> fmt::Debug for Map<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.raw_entries() {
            Ok(entries) => f
                .debug_map()
                .entries(entries.iter().map(|(k, v)| (k.view(), v.view())))
                .finish(),
            Err(e) => write!(f, "Map(<{e}>)"),
        }
    }
}

impl<K: FfiType, V: FfiType> FfiType for Map<K, V> {
    fn schema() -> Schema {
        Schema::Generic("ffi.Map", vec![K::schema(), V::schema()])
    }
    // Apache reports maps as plain object references.
    const STATIC_TYPE_INDEX: i32 = tindex::OBJECT;
}

impl<K, V> ByRef for Map<K, V> {}

impl<K, V> IntoAny for Map<K, V> {
    fn into_any(self) -> Result<Any> {
        self.obj.into_any()
    }
}

impl<K: FfiType, V: FfiType> FromAny for Map<K, V> {
    /// Accepts an `ffi.Map`; keys and values are converted (and checked) when read.
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        Ok(Map {
            obj: object_of(view, tindex::MAP).ok_or_else(|| mismatch::<Map<K, V>>(view))?,
            _entries: PhantomData,
        })
    }
}

/// An immutable tensor shape (`ffi.Shape`): a list of 64-bit extents.
#[derive(Clone)]
pub struct Shape {
    obj: ObjectRef<Object>,
}

impl Shape {
    /// A shape with `dims` (built by the runtime's `ffi.Shape`).
    pub fn new(dims: &[i64]) -> Result<Shape> {
        let dims: Vec<Any> = dims.iter().map(|&d| Any::int(d)).collect();
        let views: Vec<AnyView<'_>> = dims.iter().map(Any::view).collect();
        let shape = global!("ffi.Shape").call_packed(&views)?;
        Ok(Shape {
            obj: object_of(shape.view(), tindex::SHAPE)
                .ok_or_else(|| Error::runtime_error("ffi.Shape did not return a shape"))?,
        })
    }

    /// The extents.
    pub fn as_slice(&self) -> &[i64] {
        // SAFETY: an ffi.Shape object: its cell follows the 24-byte header and points at `size`
        // extents owned by the object.
        unsafe {
            let cell = &*self
                .obj
                .as_ptr()
                .cast::<u8>()
                .add(24)
                .cast::<TVMFFIShapeCell>();
            if cell.size == 0 {
                &[]
            } else {
                std::slice::from_raw_parts(cell.data, cell.size)
            }
        }
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.as_slice().len()
    }

    /// The product of the extents; a `ValueError` when it overflows `i64`.
    pub fn numel(&self) -> Result<i64> {
        crate::tensor::checked_numel(self.as_slice())
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Shape({:?})", self.as_slice())
    }
}

impl PartialEq for Shape {
    fn eq(&self, other: &Shape) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl FfiType for Shape {
    fn schema() -> Schema {
        Schema::named("ffi.Shape")
    }
    const STATIC_TYPE_INDEX: i32 = tindex::SHAPE;
}

impl ByRef for Shape {}

impl IntoAny for Shape {
    fn into_any(self) -> Result<Any> {
        self.obj.into_any()
    }
}

impl FromAny for Shape {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        Ok(Shape {
            obj: object_of(view, tindex::SHAPE).ok_or_else(|| mismatch::<Shape>(view))?,
        })
    }
}
