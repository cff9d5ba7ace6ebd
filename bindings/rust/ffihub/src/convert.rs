//! Conversions between Rust values and TVM-FFI values, and the type schema of each Rust type.
//!
//! | Rust | schema | accepted from |
//! |---|---|---|
//! | `()` | `None` | None |
//! | `i64`, `i32`, `u32`, `usize`... | `int` | Int, Bool (range-checked) |
//! | `f64`, `f32` | `float` | Float, Int, Bool |
//! | `bool` | `bool` | Bool, Int |
//! | [`String`](crate::String), `std::string::String` | `ffi.String` | small or heap string, C string |
//! | [`Bytes`](crate::Bytes) | `ffi.Bytes` | small or heap bytes, byte array |
//! | [`DataType`](crate::DataType) | `DataType` | DataType, or a string such as `"float32"` |
//! | [`Device`](crate::Device) | `Device` | Device |
//! | `Option<T>` | `Optional[T]` | None or what `T` accepts |
//! | [`Any`] | `Any` | anything |
//! | [`ObjectRef<T>`](crate::ObjectRef) | `T`'s type key | an instance of `T` or a subtype |
//! | [`Array<T>`](crate::Array), [`Map<K, V>`](crate::Map), [`Shape`](crate::Shape), [`Tensor`](crate::Tensor), [`Function`](crate::Function), [`TypedFunction<F>`](crate::TypedFunction), [`Module`](crate::Module) | `ffi.Array[T]`... | that container / object |

use crate::any::{Any, AnyView};
use crate::error::{Error, Result};
use crate::schema::Schema;
use ffihub_abi::tindex;

/// A Rust type with a TVM-FFI type schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a TVM-FFI value type",
    note = "supported: (), bool, integers, f32/f64, String, Bytes, DataType, Device, Any, Option<T>, ObjectRef<T>, Array<T>, Map<K, V>, Shape, Tensor, Function, TypedFunction<F>, Module, and #[derive(ffihub::Object)] types"
)]
pub trait FfiType {
    /// The schema (`int`, `ffi.Array[int]`, `demo.Point`...).
    fn schema() -> Schema;

    /// `field_static_type_index` of a field of this type (Apache's values: `-1` for Any-like
    /// storage such as strings and optionals, the type index for POD and some object types).
    const STATIC_TYPE_INDEX: i32 = tindex::ANY;
}

/// Conversion of a Rust value into an owned [`Any`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be converted to a TVM-FFI value",
    note = "supported: (), bool, integers, f32/f64, &str, String, Bytes, DataType, Device, Any, Option<T>, ObjectRef<T>, Array<T>, Map<K, V>, Shape, Tensor, Function, TypedFunction<F>, Module, and #[derive(ffihub::Object)] types"
)]
pub trait IntoAny {
    /// Converts (objects are moved or retained; strings are copied into the runtime).
    fn into_any(self) -> Result<Any>;
}

/// Checked conversion of a TVM-FFI value into a Rust value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be converted from a TVM-FFI value",
    note = "supported: (), bool, integers, f32/f64, String, Bytes, DataType, Device, Any, Option<T>, ObjectRef<T>, Array<T>, Map<K, V>, Shape, Tensor, Function, TypedFunction<F>, Module"
)]
pub trait FromAny: Sized {
    /// Converts a borrowed value (objects get a new reference). A value of the wrong type is a
    /// `TypeError` "Expected `T` but got `U`".
    fn from_view(view: AnyView<'_>) -> Result<Self>;

    /// Converts an owned value.
    fn from_any(any: Any) -> Result<Self> {
        Self::from_view(any.view())
    }
}

/// The `TypeError` for a value that is not a `T`.
///
/// Only the type index goes out of line: were the whole view passed, the compiler would copy
/// the argument to the stack on the hot path, with one 16-byte load of values the caller has
/// just written in parts (a store-forwarding stall that doubled the cost of a scalar call).
#[inline(always)]
pub(crate) fn mismatch<T: FfiType>(view: AnyView<'_>) -> Error {
    mismatch_of_index::<T>(view.type_index())
}

#[cold]
#[inline(never)]
fn mismatch_of_index<T: FfiType>(type_index: i32) -> Error {
    Error::type_error(format!(
        "Expected `{}` but got `{}`",
        T::schema().display_name(),
        crate::reflection::type_key_of_index(type_index)
    ))
}

/// What a function exported to TVM-FFI may return: a value, or a `Result` of one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a TVM-FFI function",
    note = "return a TVM-FFI value type, or a Result<T, E> of one with E: Into<ffihub::Error>"
)]
pub trait IntoReturn {
    /// The type of the successful value.
    type Value: FfiType;

    /// The result as an owned value, or the error to raise.
    fn into_return(self) -> Result<Any>;
}

impl<T: IntoAny + FfiType> IntoReturn for T {
    type Value = T;

    fn into_return(self) -> Result<Any> {
        self.into_any()
    }
}

impl<T: IntoAny + FfiType, E: Into<Error>> IntoReturn for std::result::Result<T, E> {
    type Value = T;

    fn into_return(self) -> Result<Any> {
        self.map_err(Into::into)?.into_any()
    }
}

// ---- None ----

impl FfiType for () {
    fn schema() -> Schema {
        Schema::named("None")
    }
}

impl IntoAny for () {
    fn into_any(self) -> Result<Any> {
        Ok(Any::none())
    }
}

impl FromAny for () {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        if view.is_none() {
            Ok(())
        } else {
            Err(mismatch::<()>(view))
        }
    }
}

// ---- integers ----

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl FfiType for $t {
            fn schema() -> Schema {
                Schema::named("int")
            }
            const STATIC_TYPE_INDEX: i32 = tindex::INT;
        }

        impl IntoAny for $t {
            #[inline]
            fn into_any(self) -> Result<Any> {
                let value = i64::try_from(self).map_err(|_| {
                    Error::value_error(format!("{self} does not fit in a 64-bit integer"))
                })?;
                Ok(Any::int(value))
            }
        }

        impl FromAny for $t {
            #[inline]
            fn from_view(view: AnyView<'_>) -> Result<Self> {
                match view.type_index() {
                    tindex::INT | tindex::BOOL => {
                        let value = view.int_payload();
                        <$t>::try_from(value).map_err(|_| {
                            Error::value_error(format!(
                                "{value} is out of range for {}",
                                stringify!($t)
                            ))
                        })
                    }
                    _ => Err(mismatch::<$t>(view)),
                }
            }
        }
    )*};
}

integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

// ---- floats ----

macro_rules! float {
    ($($t:ty),*) => {$(
        impl FfiType for $t {
            fn schema() -> Schema {
                Schema::named("float")
            }
            const STATIC_TYPE_INDEX: i32 = tindex::FLOAT;
        }

        impl IntoAny for $t {
            #[inline]
            fn into_any(self) -> Result<Any> {
                Ok(Any::float(f64::from(self)))
            }
        }

        impl FromAny for $t {
            #[inline]
            fn from_view(view: AnyView<'_>) -> Result<Self> {
                match view.type_index() {
                    // SAFETY: the tag says the payload is a double.
                    tindex::FLOAT => Ok(unsafe { view.as_raw().value.v_float64 } as $t),
                    tindex::INT | tindex::BOOL => Ok(view.int_payload() as $t),
                    _ => Err(mismatch::<$t>(view)),
                }
            }
        }
    )*};
}

float!(f32, f64);

// ---- bool ----

impl FfiType for bool {
    fn schema() -> Schema {
        Schema::named("bool")
    }
    const STATIC_TYPE_INDEX: i32 = tindex::BOOL;
}

impl IntoAny for bool {
    fn into_any(self) -> Result<Any> {
        Ok(Any::bool(self))
    }
}

impl FromAny for bool {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        match view.type_index() {
            tindex::BOOL | tindex::INT => Ok(view.int_payload() != 0),
            _ => Err(mismatch::<bool>(view)),
        }
    }
}

// ---- Any ----

impl FfiType for Any {
    fn schema() -> Schema {
        Schema::named("Any")
    }
}

impl IntoAny for Any {
    fn into_any(self) -> Result<Any> {
        Ok(self)
    }
}

impl ByRef for Any {}

impl IntoAny for AnyView<'_> {
    fn into_any(self) -> Result<Any> {
        self.to_owned()
    }
}

impl FromAny for Any {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        view.to_owned()
    }

    fn from_any(any: Any) -> Result<Self> {
        Ok(any)
    }
}

// ---- Option ----

impl<T: FfiType> FfiType for Option<T> {
    fn schema() -> Schema {
        Schema::Generic("Optional", vec![T::schema()])
    }
    // Apache: an optional object reference is still a nullable object pointer (64); other
    // optionals are stored as Any (-1).
    const STATIC_TYPE_INDEX: i32 = if T::STATIC_TYPE_INDEX == tindex::OBJECT {
        tindex::OBJECT
    } else {
        tindex::ANY
    };
}

impl<T: IntoAny> IntoAny for Option<T> {
    fn into_any(self) -> Result<Any> {
        match self {
            Some(value) => value.into_any(),
            None => Ok(Any::none()),
        }
    }
}

impl<T: FromAny> FromAny for Option<T> {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        if view.is_none() {
            Ok(None)
        } else {
            T::from_view(view).map(Some)
        }
    }
}

// ---- references to convertible values (for call arguments) ----

impl<T: Clone + IntoAny> IntoAny for &T
where
    T: crate::convert::ByRef,
{
    fn into_any(self) -> Result<Any> {
        self.clone().into_any()
    }
}

/// Marker of the reference-counted value types that `&T` converts from by retaining (a cheap
/// clone), so that call arguments can be passed by reference.
pub trait ByRef {}
