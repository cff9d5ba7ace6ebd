//! Functions: calling TVM-FFI functions (globals, module functions, callbacks) and creating them
//! from Rust closures.

use crate::any::{Any, AnyView};
use crate::convert::{mismatch, ByRef, FfiType, FromAny, IntoAny, IntoReturn};
use crate::error::{check, Error, Result};
use crate::object::{Object, ObjectRef};
use crate::schema::{signature_text, Schema};
use crate::sys;
use ffihub_abi::abi::{TVMFFIAny, TVMFFIObjectHandle};
use ffihub_abi::tindex;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::OnceLock;

/// A TVM-FFI function (`ffi.Function`): anything callable through the packed convention.
#[derive(Clone)]
pub struct Function {
    obj: ObjectRef<Object>,
}

impl Function {
    /// The global function `name`, or `None` if none is registered.
    pub fn get_global(name: &str) -> Result<Option<Function>> {
        let name = sys::byte_array(name.as_bytes());
        let mut handle: TVMFFIObjectHandle = std::ptr::null_mut();
        // SAFETY: `name` points at a live string; `handle` is valid for a write.
        check(unsafe { sys::TVMFFIFunctionGetGlobal(&name, &mut handle) })?;
        if handle.is_null() {
            return Ok(None);
        }
        // SAFETY: the runtime handed over a new reference to a function object.
        Ok(Some(Function {
            obj: unsafe { ObjectRef::from_raw(handle) },
        }))
    }

    /// The global function `name`; a `RuntimeError` if none is registered.
    pub fn global(name: &str) -> Result<Function> {
        Function::get_global(name)?.ok_or_else(|| {
            Error::runtime_error(format!("Global function `{name}` is not registered"))
        })
    }

    /// Registers this function as the global `name` (no metadata; see the `#[ffihub::function]`
    /// macro for typed registration with metadata).
    pub fn register_global(&self, name: &str, allow_override: bool) -> Result<()> {
        let name = sys::byte_array(name.as_bytes());
        // SAFETY: `name` points at a live string; the runtime retains the function.
        check(unsafe {
            sys::TVMFFIFunctionSetGlobal(&name, self.obj.as_ptr().cast(), allow_override.into())
        })
    }

    /// The metadata JSON the global `name` was registered with (`{"type_schema": ...}`; empty
    /// for functions registered without metadata).
    pub fn global_metadata(name: &str) -> Result<crate::String> {
        global!("ffi.GetGlobalFuncMetadata").call((name,))
    }

    /// A function running `f` on the borrowed arguments of each call: the packed convention
    /// (any number of arguments of any type). `f` may be called from any thread.
    pub fn from_packed<F>(f: F) -> Result<Function>
    where
        F: Fn(&[AnyView<'_>]) -> Result<Any> + Send + Sync + 'static,
    {
        let state = Box::into_raw(Box::new(f));
        let mut handle: TVMFFIObjectHandle = std::ptr::null_mut();
        // SAFETY: `state` is a live box that `drop_boxed::<F>` frees exactly once (the runtime
        // calls the deleter when the function dies); `handle` is valid for a write.
        let code = unsafe {
            sys::TVMFFIFunctionCreate(
                state.cast(),
                Some(packed_trampoline::<F>),
                Some(drop_boxed::<F>),
                &mut handle,
            )
        };
        if code != 0 {
            // SAFETY: the runtime did not take the state.
            drop(unsafe { Box::from_raw(state) });
            return Err(Error::take_raised());
        }
        // SAFETY: the runtime handed over a new function object.
        Ok(Function {
            obj: unsafe { ObjectRef::from_raw(handle) },
        })
    }

    /// A function from a typed Rust closure (`|x: i64, s: String| -> f64`): arguments are
    /// converted (a wrong count or type is a `TypeError` with the signature), the result too.
    pub fn from_typed<Args, F: TypedClosure<Args>>(f: F) -> Result<Function> {
        let signature = signature_text(&F::return_schema(), &F::param_schemas());
        Function::from_packed(move |args| f.invoke(&signature, args))
    }

    /// Calls with borrowed arguments; the result is owned.
    pub fn call_packed(&self, args: &[AnyView<'_>]) -> Result<Any> {
        let mut result = crate::any::RAW_NONE;
        let count = i32::try_from(args.len())
            .map_err(|_| Error::value_error("too many arguments for one call"))?;
        // SAFETY: `AnyView` is a transparent `TVMFFIAny`; the callee only reads the arguments
        // (the ABI's `TVMFFIAny*` is not const for historical reasons); `result` is None.
        check(unsafe {
            sys::TVMFFIFunctionCall(
                self.obj.as_ptr().cast(),
                args.as_ptr().cast::<TVMFFIAny>().cast_mut(),
                count,
                &mut result,
            )
        })?;
        // SAFETY: on success the result is an owned value.
        Ok(unsafe { Any::from_raw(result) })
    }

    /// Calls with Rust arguments (a tuple: `f.call::<i64>((1, "x"))`) and converts the result.
    pub fn call<R: FromAny>(&self, args: impl IntoArgs) -> Result<R> {
        let args = args.into_args()?;
        let views: Vec<AnyView<'_>> = args.iter().map(Any::view).collect();
        R::from_any(self.call_packed(&views)?)
    }

    /// The function object.
    pub fn as_object(&self) -> &ObjectRef<Object> {
        &self.obj
    }
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Function({:p})", self.obj.as_ptr())
    }
}

/// Looks a global function up once and caches it for the process (or the library) lifetime.
pub(crate) fn cached_global(
    cell: &'static OnceLock<Function>,
    name: &'static str,
) -> Result<&'static Function> {
    if let Some(function) = cell.get() {
        return Ok(function);
    }
    let function = Function::global(name)?;
    Ok(cell.get_or_init(|| function))
}

/// The global function `$name`, looked up on first use and then cached.
macro_rules! global {
    ($name:literal) => {{
        static CELL: ::std::sync::OnceLock<$crate::function::Function> =
            ::std::sync::OnceLock::new();
        $crate::function::cached_global(&CELL, $name)?
    }};
}
pub(crate) use global;

unsafe extern "C" fn packed_trampoline<F>(
    state: *mut c_void,
    args: *const TVMFFIAny,
    num_args: i32,
    result: *mut TVMFFIAny,
) -> i32
where
    F: Fn(&[AnyView<'_>]) -> Result<Any> + Send + Sync + 'static,
{
    // SAFETY: `state` is the `F` boxed by `from_packed`, alive while the function is.
    let f = unsafe { &*state.cast::<F>() };
    // SAFETY: the caller passes `num_args` valid views and a result slot (the safe-call contract).
    unsafe { crate::__private::safe_call(args, num_args, result, |args| f(args)) }
}

unsafe extern "C" fn drop_boxed<T>(state: *mut c_void) {
    // A panicking destructor must not unwind into the runtime.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: `state` came from `Box::into_raw` and the runtime frees it once.
        drop(unsafe { Box::from_raw(state.cast::<T>()) });
    }));
}

impl FfiType for Function {
    fn schema() -> Schema {
        Schema::named("ffi.Function")
    }
    const STATIC_TYPE_INDEX: i32 = tindex::FUNCTION;
}

impl ByRef for Function {}

impl IntoAny for Function {
    fn into_any(self) -> Result<Any> {
        // SAFETY: the reference is moved into the Any.
        Ok(unsafe { Any::from_object_raw(self.obj.into_raw().cast()) })
    }
}

impl FromAny for Function {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        match view.object_ptr() {
            Some(ptr) if view.type_index() == tindex::FUNCTION => Ok(Function {
                // SAFETY: the view borrows a live function object.
                obj: unsafe { ObjectRef::from_borrowed(ptr.cast()) },
            }),
            _ => Err(mismatch::<Function>(view)),
        }
    }
}

/// Arguments of [`Function::call`]: `()`, tuples of up to 8 convertible values, or a `Vec<Any>`.
pub trait IntoArgs {
    /// The owned arguments.
    fn into_args(self) -> Result<Vec<Any>>;
}

impl IntoArgs for Vec<Any> {
    fn into_args(self) -> Result<Vec<Any>> {
        Ok(self)
    }
}

impl IntoArgs for &[AnyView<'_>] {
    fn into_args(self) -> Result<Vec<Any>> {
        self.iter().map(AnyView::to_owned).collect()
    }
}

macro_rules! tuple_args {
    ($($name:ident),*) => {
        impl<$($name: IntoAny),*> IntoArgs for ($($name,)*) {
            #[allow(non_snake_case)]
            fn into_args(self) -> Result<Vec<Any>> {
                let ($($name,)*) = self;
                Ok(vec![$($name.into_any()?),*])
            }
        }
    };
}

tuple_args!();
tuple_args!(A0);
tuple_args!(A0, A1);
tuple_args!(A0, A1, A2);
tuple_args!(A0, A1, A2, A3);
tuple_args!(A0, A1, A2, A3, A4);
tuple_args!(A0, A1, A2, A3, A4, A5);
tuple_args!(A0, A1, A2, A3, A4, A5, A6);
tuple_args!(A0, A1, A2, A3, A4, A5, A6, A7);

/// A Rust closure with typed parameters that [`Function::from_typed`] can wrap.
pub trait TypedClosure<Args>: Send + Sync + 'static {
    /// The type of the successful result.
    type Output: FfiType;
    /// The parameter schemas.
    fn param_schemas() -> Vec<Schema>;
    /// The return schema.
    fn return_schema() -> Schema;
    /// Converts the arguments, calls, converts the result. `signature` names the function in
    /// argument errors.
    fn invoke(&self, signature: &str, args: &[AnyView<'_>]) -> Result<Any>;
}

/// The `TypeError` for a wrong argument count.
pub(crate) fn count_error(signature: &str, expected: &str, got: usize) -> Error {
    Error::type_error(format!(
        "Mismatched number of arguments when calling: `{signature}`. Expected {expected} but got {got} arguments"
    ))
}

/// Converts argument `i`, naming the call (`signature()`, only evaluated then) in a type
/// mismatch.
#[inline]
pub(crate) fn convert_arg<'s, T: FromAny>(
    args: &[AnyView<'_>],
    i: usize,
    signature: impl FnOnce() -> &'s str,
) -> Result<T> {
    T::from_view(args[i]).map_err(|e| name_the_argument(e, signature(), i))
}

#[cold]
#[inline(never)]
pub(crate) fn name_the_argument(e: Error, signature: &str, i: usize) -> Error {
    if e.kind() == "TypeError" {
        e.with_prefix(&format!(
            "Mismatched type on argument #{i} when calling: `{signature}`. "
        ))
    } else {
        e
    }
}

macro_rules! typed_closure {
    ($n:literal; $($arg:ident : $idx:tt),*) => {
        impl<F, R, $($arg),*> TypedClosure<($($arg,)*)> for F
        where
            F: Fn($($arg),*) -> R + Send + Sync + 'static,
            R: IntoReturn,
            $($arg: FromAny + FfiType,)*
        {
            type Output = R::Value;

            fn param_schemas() -> Vec<Schema> {
                vec![$(<$arg as FfiType>::schema()),*]
            }

            fn return_schema() -> Schema {
                <R::Value as FfiType>::schema()
            }

            #[allow(unused_variables)]
            fn invoke(&self, signature: &str, args: &[AnyView<'_>]) -> Result<Any> {
                if args.len() != $n {
                    return Err(count_error(signature, stringify!($n), args.len()));
                }
                self($(convert_arg::<$arg>(args, $idx, || signature)?),*).into_return()
            }
        }

        impl<R: FfiType, $($arg: FfiType),*> Signature for fn($($arg),*) -> R {
            type Args = ($($arg,)*);
            type Ret = R;

            fn schema() -> Schema {
                Schema::Function(Box::new(R::schema()), vec![$(<$arg as FfiType>::schema()),*])
            }
        }

        impl<R: FfiType + FromAny, $($arg: FfiType + IntoAny),*> TypedFunction<fn($($arg),*) -> R> {
            /// Calls with typed arguments.
            #[allow(non_snake_case, clippy::too_many_arguments)]
            pub fn call(&self, $($arg: $arg),*) -> Result<R> {
                self.function.call(($($arg,)*))
            }
        }
    };
}

typed_closure!(0;);
typed_closure!(1; A0: 0);
typed_closure!(2; A0: 0, A1: 1);
typed_closure!(3; A0: 0, A1: 1, A2: 2);
typed_closure!(4; A0: 0, A1: 1, A2: 2, A3: 3);
typed_closure!(5; A0: 0, A1: 1, A2: 2, A3: 3, A4: 4);
typed_closure!(6; A0: 0, A1: 1, A2: 2, A3: 3, A4: 4, A5: 5);

/// A function signature written as a Rust function-pointer type (`fn(i64, String) -> f64`).
pub trait Signature {
    /// The parameter types as a tuple.
    type Args;
    /// The return type.
    type Ret: FfiType;
    /// `{"type":"ffi.Function","named_args":{...}}`.
    fn schema() -> Schema;
}

/// A [`Function`] with a known signature `F` (a function-pointer type such as
/// `fn(f64) -> f64`): typed calls, and the typed schema in metadata
/// (`{"type":"ffi.Function","named_args":...}`, as Apache's `TypedFunction`).
pub struct TypedFunction<F> {
    function: Function,
    _signature: PhantomData<F>,
}

impl<F> TypedFunction<F> {
    /// The untyped function.
    pub fn function(&self) -> &Function {
        &self.function
    }

    /// Treats `function` as having signature `F` (calls still check every argument and the
    /// result at run time).
    pub fn from_function(function: Function) -> Self {
        TypedFunction {
            function,
            _signature: PhantomData,
        }
    }
}

impl<F: Signature> TypedFunction<F> {
    /// A function from a closure with this signature (the closure may return the value or a
    /// `Result` of it).
    pub fn new<C>(closure: C) -> Result<Self>
    where
        C: TypedClosure<F::Args, Output = F::Ret>,
    {
        Ok(TypedFunction::from_function(Function::from_typed(closure)?))
    }
}

impl<F> Clone for TypedFunction<F> {
    fn clone(&self) -> Self {
        TypedFunction::from_function(self.function.clone())
    }
}

impl<F> std::fmt::Debug for TypedFunction<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.function.fmt(f)
    }
}

impl<F: Signature> FfiType for TypedFunction<F> {
    fn schema() -> Schema {
        F::schema()
    }
    const STATIC_TYPE_INDEX: i32 = tindex::FUNCTION;
}

impl<F> ByRef for TypedFunction<F> {}

impl<F> IntoAny for TypedFunction<F> {
    fn into_any(self) -> Result<Any> {
        self.function.into_any()
    }
}

impl<F: Signature> FromAny for TypedFunction<F> {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        Function::from_view(view)
            .map(TypedFunction::from_function)
            .map_err(|_| mismatch::<TypedFunction<F>>(view))
    }
}
