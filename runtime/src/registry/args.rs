//! Typed access to the arguments of builtin functions, with Apache's error messages for a wrong
//! argument count or type.

use crate::abi::TVMFFIAny;
use crate::registry::type_schema::{signature_text, Ty};
use crate::tindex;
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;

/// A typed builtin's name and signature (kept in its Function, read only to describe errors).
pub struct Signature {
    pub name: &'static str,
    pub ret: Ty,
    pub params: Vec<Ty>,
}

impl Signature {
    fn text(&self) -> String {
        format!("{}{}", self.name, signature_text(&self.ret, &self.params))
    }

    /// The error for `args` that do not match the parameter count.
    #[cold]
    #[inline(never)]
    fn count_mismatch(&self, got: usize) -> Error {
        Error::new(
            "TypeError",
            format!(
                "Mismatched number of arguments when calling: `{}`. Expected {} but got {} arguments",
                self.text(),
                self.params.len(),
                got
            ),
        )
    }

    /// The error for argument `i`, of type `got`, that does not match its parameter.
    #[cold]
    #[inline(never)]
    fn mismatch(&self, i: usize, got: i32) -> Error {
        Error::new(
            "TypeError",
            format!(
                "Mismatched type on argument #{i} when calling: `{}`. Expected `{}` but got `{}`",
                self.text(),
                self.params[i].display_name(),
                crate::registry::types::type_key_of(got)
            ),
        )
    }
}

/// One call of a typed builtin: its signature and borrowed arguments, whose count matches the
/// signature's (the only way to make one is [`Call::new`], which checks it).
pub struct Call<'a> {
    signature: &'a Signature,
    args: &'a [TVMFFIAny],
}

impl<'a> Call<'a> {
    /// The call of `signature` with the `n` arguments at `args`, if their count matches.
    ///
    /// # Safety
    /// `args` is NULL or valid for `n` values for `'a`.
    #[inline]
    pub unsafe fn new(
        signature: &'a Signature,
        args: *const TVMFFIAny,
        n: i32,
    ) -> Result<Self, Error> {
        let count = signature.params.len();
        // A negative count converts to more than any signature has.
        if n as usize != count {
            return Err(signature.count_mismatch(n.max(0) as usize));
        }
        let args = if count == 0 {
            &[]
        } else if args.is_null() {
            return Err(signature.count_mismatch(0));
        } else {
            std::slice::from_raw_parts(args, count)
        };
        Ok(Call { signature, args })
    }

    /// The error for argument `i` (a separate call with scalar arguments, so that the hot path
    /// keeps the call's fields in registers).
    #[inline]
    fn mismatch(&self, i: usize) -> Error {
        self.signature.mismatch(i, self.args[i].type_index)
    }

    /// Argument `i` as a borrowed view.
    pub fn any(&self, i: usize) -> &'a TVMFFIAny {
        &self.args[i]
    }

    /// Argument `i` as string bytes (small, object or raw C string).
    pub fn string(&self, i: usize) -> Result<&'a [u8], Error> {
        // SAFETY: arguments are valid views for the duration of the call.
        unsafe { crate::value::string::str_bytes(&self.args[i]) }.ok_or_else(|| self.mismatch(i))
    }

    /// Argument `i` as bytes (small, object or byte-array pointer).
    pub fn bytes(&self, i: usize) -> Result<&'a [u8], Error> {
        // SAFETY: as for `string`.
        unsafe { crate::value::string::bytes_bytes(&self.args[i]) }.ok_or_else(|| self.mismatch(i))
    }

    /// Argument `i` as an integer (bools convert, as in Apache's runtime).
    pub fn int(&self, i: usize) -> Result<i64, Error> {
        match self.args[i].type_index {
            // SAFETY: the tag says the payload is an integer.
            tindex::INT | tindex::BOOL => Ok(unsafe { self.args[i].value.v_int64 }),
            _ => Err(self.mismatch(i)),
        }
    }

    /// Argument `i` as a boolean (integers convert).
    pub fn bool(&self, i: usize) -> Result<bool, Error> {
        match self.args[i].type_index {
            // SAFETY: as for `int`.
            tindex::INT | tindex::BOOL => Ok(unsafe { self.args[i].value.v_int64 } != 0),
            _ => Err(self.mismatch(i)),
        }
    }

    /// Argument `i` as a float (integers and bools convert).
    pub fn float(&self, i: usize) -> Result<f64, Error> {
        let arg = &self.args[i];
        match arg.type_index {
            // SAFETY: the tag says which payload is set.
            tindex::FLOAT => Ok(unsafe { arg.value.v_float64 }),
            tindex::INT | tindex::BOOL => Ok(unsafe { arg.value.v_int64 } as f64),
            _ => Err(self.mismatch(i)),
        }
    }

    /// Argument `i` as a data type (strings are parsed).
    pub fn dtype(&self, i: usize) -> Result<crate::dlpack::DLDataType, Error> {
        let arg = &self.args[i];
        match arg.type_index {
            // SAFETY: the tag says the payload is a data type.
            tindex::DATA_TYPE => Ok(unsafe { arg.value.v_dtype }),
            _ => match unsafe { crate::value::string::str_bytes(arg) } {
                Some(text) => Ok(crate::registry::dtype::parse_dtype(
                    &String::from_utf8_lossy(text),
                )?),
                None => Err(self.mismatch(i)),
            },
        }
    }

    /// Argument `i` as a device.
    pub fn device(&self, i: usize) -> Result<crate::dlpack::DLDevice, Error> {
        match self.args[i].type_index {
            // SAFETY: the tag says the payload is a device.
            tindex::DEVICE => Ok(unsafe { self.args[i].value.v_device }),
            _ => Err(self.mismatch(i)),
        }
    }

    /// Argument `i` as an opaque pointer (None is NULL).
    pub fn opaque_ptr(&self, i: usize) -> Result<*mut c_void, Error> {
        match self.args[i].type_index {
            tindex::NONE => Ok(std::ptr::null_mut()),
            // SAFETY: the tag says the payload is a pointer.
            tindex::OPAQUE_PTR => Ok(unsafe { self.args[i].value.v_ptr }),
            _ => Err(self.mismatch(i)),
        }
    }

    /// Argument `i` as a new reference to an object of type `type_index` or a subtype (for
    /// objects that outlive the call; otherwise [`object_view`](Self::object_view) is cheaper).
    pub fn object(&self, i: usize, type_index: i32) -> Result<ObjectRef, Error> {
        Ok(self.object_view(i, type_index)?.deref().clone())
    }

    /// Argument `i`, an object of type `type_index` or a subtype, borrowed for the call: no
    /// reference count is touched (the caller's reference keeps it alive).
    #[inline]
    pub fn object_view(&self, i: usize, type_index: i32) -> Result<Borrowed<'a, ObjectRef>, Error> {
        let arg = &self.args[i];
        if crate::value::object::is_object_index(arg.type_index)
            && crate::registry::types::is_instance(arg.type_index, type_index)
        {
            // SAFETY: the tag says the payload is a live object, which the caller keeps alive
            // for the duration of the call (`'a`); `Borrowed` never releases it.
            Ok(unsafe { Borrowed::new(ObjectRef::from_raw(arg.value.v_obj)) })
        } else {
            Err(self.mismatch(i))
        }
    }
}

/// An object handle (or a typed wrapper of one) that borrows an argument's reference instead of
/// owning one: it derefs to `T` and never drops it. Clone the inner value to keep it.
pub struct Borrowed<'a, T> {
    value: ManuallyDrop<T>,
    _args: PhantomData<&'a TVMFFIAny>,
}

impl<'a, T> Borrowed<'a, T> {
    /// # Safety
    /// `value` holds a reference that someone else owns for `'a`; it must not be released.
    unsafe fn new(value: T) -> Self {
        Borrowed {
            value: ManuallyDrop::new(value),
            _args: PhantomData,
        }
    }

    /// Converts the borrowed value (e.g. an `ObjectRef` into an `Array`); a failed conversion
    /// gives the value back, still borrowed. `convert` must not panic: a panic would release the
    /// caller's reference, so it aborts the process instead.
    pub fn try_map<U>(
        self,
        convert: impl FnOnce(T) -> Result<U, T>,
    ) -> Result<Borrowed<'a, U>, Borrowed<'a, T>> {
        struct AbortOnUnwind;
        impl Drop for AbortOnUnwind {
            fn drop(&mut self) {
                std::process::abort();
            }
        }
        // `Borrowed` has no destructor: moving the value out leaves nothing to release.
        let value = ManuallyDrop::into_inner(self.value);
        let guard = AbortOnUnwind;
        let converted = convert(value);
        std::mem::forget(guard);
        // SAFETY: the result carries the same borrowed reference.
        unsafe {
            match converted {
                Ok(converted) => Ok(Borrowed::new(converted)),
                Err(original) => Err(Borrowed::new(original)),
            }
        }
    }
}

impl<T> Deref for Borrowed<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.value
    }
}
