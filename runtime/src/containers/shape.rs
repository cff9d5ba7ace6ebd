//! Shape (`ffi.Shape`, type 69): an immutable list of `i64` behind a
//! `TVMFFIShapeCell {data, size}` at offset 24.
//!
//! Shapes we create store their values inline right after the 40-byte object
//! (`data == obj + 40`), like Apache's `ffi.Shape` and `MakeInplaceShape`. Shapes made by C++
//! may point elsewhere (`ShapeObjStdImpl` keeps a `std::vector`), so readers only ever follow
//! the cell.

use crate::abi::{TVMFFIAny, TVMFFIObject, TVMFFIShapeCell};
use crate::tindex;
use crate::value::any::Any;
use crate::value::object::{alloc_object, tail, ObjectRef, RustObject};

/// The payload of our Shape objects: the cell; the values follow inline.
#[repr(C)]
struct ShapePayload {
    cell: TVMFFIShapeCell,
}

// The object must be exactly Apache's 40-byte `ShapeObj`, so the values land at +40.
const _: () = assert!(std::mem::size_of::<RustObject<ShapePayload>>() == 40);

/// The values of any Shape object, ours or foreign, borrowed.
///
/// # Safety
/// `obj` is a live Shape object (shapes are immutable, so the slice stays valid while the object
/// lives).
pub unsafe fn shape_dims<'a>(obj: *mut TVMFFIObject) -> &'a [i64] {
    let cell = &*obj
        .cast::<u8>()
        .add(std::mem::size_of::<TVMFFIObject>())
        .cast::<TVMFFIShapeCell>();
    if cell.size == 0 || cell.data.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(cell.data, cell.size)
    }
}

/// An owned reference to a Shape object (ours or foreign).
#[derive(Clone, Debug)]
pub struct Shape(ObjectRef);

impl Shape {
    /// A fresh Shape holding a copy of `dims`, inline after the object.
    pub fn new(dims: &[i64]) -> Shape {
        let obj = alloc_object(
            tindex::SHAPE,
            ShapePayload {
                cell: TVMFFIShapeCell {
                    data: std::ptr::null(),
                    size: dims.len(),
                },
            },
            std::mem::size_of_val(dims),
        );
        // SAFETY: nobody else sees the object yet; the tail (8-byte aligned at +40 of a malloc'd
        // block) has room for `dims.len()` values.
        unsafe {
            let data = tail::<ShapePayload>(obj.as_ptr()).cast::<i64>();
            std::ptr::copy_nonoverlapping(dims.as_ptr(), data, dims.len());
            let payload = obj.as_ptr().cast::<RustObject<ShapePayload>>();
            (*payload).payload.cell.data = data;
        }
        Shape(obj)
    }

    /// Wraps a Shape object, or gives the object back if it is something else.
    pub fn from_object(obj: ObjectRef) -> Result<Shape, ObjectRef> {
        if obj.type_index() == tindex::SHAPE {
            Ok(Shape(obj))
        } else {
            Err(obj)
        }
    }

    /// A new reference to the Shape in `view`, if it holds one.
    ///
    /// # Safety
    /// `view` is a valid value or argument view.
    pub unsafe fn from_view(view: &TVMFFIAny) -> Option<Shape> {
        (view.type_index == tindex::SHAPE)
            .then(|| Shape(ObjectRef::from_borrowed(view.value.v_obj)))
    }

    /// The values.
    pub fn as_slice(&self) -> &[i64] {
        // SAFETY: we hold a reference to a Shape object, and shapes never change.
        unsafe { shape_dims(self.0.as_ptr()) }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// True for the empty shape.
    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    /// Value `i`.
    pub fn get(&self, i: usize) -> Option<i64> {
        self.as_slice().get(i).copied()
    }

    /// The product of the values (1 for the empty shape); a ValueError when it overflows int64
    /// (Apache's `Product()` wraps).
    pub fn product(&self) -> Result<i64, crate::value::error::Error> {
        crate::containers::tensor::checked_numel(self.as_slice())
    }

    /// The object.
    pub fn as_object(&self) -> &ObjectRef {
        &self.0
    }

    /// Gives up the handle as an object reference.
    pub fn into_object(self) -> ObjectRef {
        self.0
    }

    /// Gives up the handle as an owned value.
    pub fn into_any(self) -> Any {
        Any::object(self.0)
    }
}

impl From<&[i64]> for Shape {
    fn from(dims: &[i64]) -> Shape {
        Shape::new(dims)
    }
}

impl From<Shape> for Any {
    fn from(shape: Shape) -> Any {
        shape.into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_inline_after_the_object() {
        let shape = Shape::new(&[2, 3, 4]);
        let obj = shape.as_object().as_ptr() as usize;
        // SAFETY: the shape is alive.
        let cell = unsafe { shape.as_object().cell::<TVMFFIShapeCell>() };
        assert_eq!(cell.data as usize, obj + 40);
        assert_eq!(shape.as_slice(), &[2, 3, 4]);
        assert_eq!(shape.product().unwrap(), 24);
        let empty = Shape::new(&[]);
        assert!(empty.is_empty());
        assert_eq!(empty.product().unwrap(), 1);
    }
}
