//! The `__ffi_convert__` type attribute of the builtin reference types: `(AnyView) -> Any`,
//! converting a value to the type the way a typed C++ argument of that type accepts it (an
//! Array from a List and back, a Map from a Dict and back, a Shape from a sequence of ints, a
//! String from a C string), failing with `TypeError: Cannot cast from ...`. Bindings call it
//! when a value must become a given type (Python's type converters do).

use crate::abi::TVMFFIAny;
use crate::containers::map::{Dict, Map, MapView};
use crate::containers::seq::{seq_elements, Array, List};
use crate::containers::shape::Shape;
use crate::registry::args::Signature;
use crate::registry::type_schema::{Ty, ANY};
use crate::registry::types::type_key_of;
use crate::registry::types::{is_instance, TypeRegistrar};
use crate::tindex;
use crate::value::any::{view_to_owned, Any};
use crate::value::error::Error;
use crate::value::object::{is_object_index, ObjectRef};

/// A builtin type with a converter: its index, the converter's name, the name of the C++
/// reference type in messages, and whether that type admits None.
struct Target {
    index: i32,
    function_name: &'static str,
    type_str: &'static str,
    nullable: bool,
}

const fn target(index: i32, function_name: &'static str, type_str: &'static str) -> Target {
    Target {
        index,
        function_name,
        type_str,
        nullable: false,
    }
}

const fn nullable(index: i32, function_name: &'static str, type_str: &'static str) -> Target {
    Target {
        nullable: true,
        ..target(index, function_name, type_str)
    }
}

/// The types Apache's runtime gives a converter, in its registration order.
const TARGETS: [Target; 13] = [
    nullable(tindex::OBJECT, "ffi.Object.__ffi_convert__", "ffi.Object"),
    target(tindex::STR, "ffi.String.__ffi_convert__", "str"),
    target(tindex::BYTES, "ffi.Bytes.__ffi_convert__", "bytes"),
    target(tindex::ERROR, "ffi.Error.__ffi_convert__", "ffi.Error"),
    nullable(
        tindex::FUNCTION,
        "ffi.Function.__ffi_convert__",
        "ffi.Function",
    ),
    target(tindex::SHAPE, "ffi.Shape.__ffi_convert__", "ffi.Shape"),
    nullable(tindex::TENSOR, "ffi.Tensor.__ffi_convert__", "ffi.Tensor"),
    target(tindex::ARRAY, "ffi.Array.__ffi_convert__", "Array<Any>"),
    target(tindex::MAP, "ffi.Map.__ffi_convert__", "Map<Any, Any>"),
    target(tindex::LIST, "ffi.List.__ffi_convert__", "List<Any>"),
    target(tindex::DICT, "ffi.Dict.__ffi_convert__", "Dict<Any, Any>"),
    target(
        crate::registry::types::runtime_index::INT_ENUM,
        "ffi.IntEnum.__ffi_convert__",
        "ffi.IntEnum",
    ),
    target(
        crate::registry::types::runtime_index::STR_ENUM,
        "ffi.StrEnum.__ffi_convert__",
        "ffi.StrEnum",
    ),
];

/// The object of a view, borrowed into a new reference.
///
/// # Safety
/// `value` is a valid view holding an object.
unsafe fn object_of(value: &TVMFFIAny) -> ObjectRef {
    ObjectRef::from_borrowed(value.value.v_obj)
}

/// Shape's fallback: an Array or List whose elements are all ints (or bools).
///
/// # Safety
/// `value` is a valid view.
unsafe fn shape_from_ints(value: &TVMFFIAny) -> Option<Any> {
    if value.type_index != tindex::ARRAY && value.type_index != tindex::LIST {
        return None;
    }
    let dims = seq_elements(value.value.v_obj)
        .iter()
        .map(|e| matches!(e.type_index, tindex::INT | tindex::BOOL).then(|| e.value.v_int64))
        .collect::<Option<Vec<i64>>>()?;
    Some(Shape::new(&dims).into_any())
}

/// The value as `target`'s type, or None when it has no such form.
///
/// # Safety
/// `value` is a valid view.
unsafe fn convert(target: &Target, value: &TVMFFIAny) -> Result<Option<Any>, Error> {
    let t = value.type_index;
    if t == tindex::NONE {
        return Ok(target.nullable.then(Any::none));
    }
    let converted = match target.index {
        tindex::STR if matches!(t, tindex::RAW_STR | tindex::SMALL_STR | tindex::STR) => {
            Some(view_to_owned(value)?)
        }
        tindex::BYTES
            if matches!(
                t,
                tindex::BYTE_ARRAY_PTR | tindex::SMALL_BYTES | tindex::BYTES
            ) =>
        {
            Some(view_to_owned(value)?)
        }
        tindex::STR | tindex::BYTES => None,
        _ if is_object_index(t) && is_instance(t, target.index) => Some(view_to_owned(value)?),
        tindex::SHAPE => shape_from_ints(value),
        tindex::ARRAY if t == tindex::LIST => {
            let list = List::from_object(object_of(value)).ok();
            list.map(|l| Array::from_vec(l.iter().collect()).into_any())
        }
        tindex::LIST if t == tindex::ARRAY => {
            let elements = seq_elements(value.value.v_obj);
            let items = elements
                .iter()
                .map(|e| view_to_owned(e))
                .collect::<Result<_, _>>()?;
            Some(Any::object(List::from_vec(items).into_object()))
        }
        tindex::MAP | tindex::DICT if matches!(t, tindex::MAP | tindex::DICT) => {
            let source = object_of(value);
            let view = MapView::new(&source)
                .ok_or_else(|| Error::new("InternalError", "a map without a map layout"))?;
            Some(if target.index == tindex::MAP {
                Any::object(Map::from_pairs(view.iter())?.into_object())
            } else {
                Any::object(Dict::from_pairs(view.iter())?.into_object())
            })
        }
        _ => None,
    };
    Ok(converted)
}

fn converter(target: &'static Target) -> ObjectRef {
    let signature = Signature {
        name: target.function_name,
        ret: Ty::Named(target.type_str),
        params: vec![ANY],
    };
    crate::registry::define::typed_function(signature, move |call| {
        let value = call.any(0);
        // SAFETY: the caller passes valid views.
        unsafe { convert(target, value) }?.ok_or_else(|| {
            Error::new(
                "TypeError",
                format!(
                    "Cannot cast from `{}` to `{}`",
                    type_key_of(value.type_index),
                    target.type_str
                ),
            )
        })
    })
}

/// Registers the converters; called while the type registry is created.
pub(super) fn register(registrar: &mut TypeRegistrar) -> Result<(), Error> {
    for target in &TARGETS {
        let function = Any::object(converter(target));
        registrar.register_attr(target.index, b"__ffi_convert__", function.as_raw())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert_to(index: i32, value: &Any) -> Result<Any, Error> {
        let converter = crate::registry::types::attr_value(b"__ffi_convert__", index)
            .expect("a converter is registered");
        let function = converter.as_object().expect("a Function").as_ptr();
        // SAFETY: the converter is a live Function; the argument is a valid view.
        unsafe { crate::value::function::call(function, std::slice::from_ref(value.as_raw())) }
    }

    #[test]
    fn sequences_convert_to_each_other_and_to_shapes() {
        let list = Any::object(List::from_vec(vec![Any::int(3), Any::bool(true)]).into_object());
        let array = convert_to(tindex::ARRAY, &list).unwrap();
        assert_eq!(array.type_index(), tindex::ARRAY);
        let back = convert_to(tindex::LIST, &array).unwrap();
        assert_eq!(back.type_index(), tindex::LIST);
        let shape = convert_to(tindex::SHAPE, &list).unwrap();
        // SAFETY: the result is a Shape.
        let dims = unsafe { Shape::from_view(shape.as_raw()) }.unwrap();
        assert_eq!(dims.as_slice(), &[3, 1]);
        // An Array converts to an Array as itself.
        let same = convert_to(tindex::ARRAY, &array).unwrap();
        assert!(same.as_object().unwrap().as_ptr() == array.as_object().unwrap().as_ptr());
    }

    #[test]
    fn impossible_conversions_say_what_was_given_and_what_was_wanted() {
        let mixed = Any::object(Array::from_vec(vec![Any::int(1), Any::string("x")]).into_object());
        let error = convert_to(tindex::SHAPE, &mixed).unwrap_err();
        assert_eq!(error.kind(), b"TypeError");
        assert_eq!(
            error.message(),
            b"Cannot cast from `ffi.Array` to `ffi.Shape`"
        );
        let error = convert_to(tindex::MAP, &Any::none()).unwrap_err();
        assert_eq!(
            error.message(),
            b"Cannot cast from `None` to `Map<Any, Any>`"
        );
        assert_eq!(
            convert_to(tindex::FUNCTION, &Any::none())
                .unwrap()
                .type_index(),
            tindex::NONE
        );
    }
}
