//! Modules (`ffi.Module`): shared libraries loaded by the runtime, and the functions they
//! export as `__tvm_ffi_<name>` symbols.

use crate::any::{Any, AnyView};
use crate::convert::{mismatch, ByRef, FfiType, FromAny, IntoAny};
use crate::error::{Error, Result};
use crate::function::{global, Function};
use crate::object::{Object, ObjectRef};
use crate::schema::Schema;
use ffihub_abi::tindex;

/// A loaded module.
#[derive(Clone)]
pub struct Module {
    obj: ObjectRef<Object>,
}

impl Module {
    /// Loads a shared library through the runtime (`ffi.ModuleLoadFromFile`): the library's
    /// load-time registrations (globals, types) run, and the module stays loaded for the
    /// process lifetime. An error the library's initializers raise fails the load (an
    /// extension already loaded from another path does that), on any runtime.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Module> {
        let path = path
            .as_ref()
            .to_str()
            .ok_or_else(|| Error::value_error(format!("path {:?} is not UTF-8", path.as_ref())))?;
        Error::discard_raised();
        let module = global!("ffi.ModuleLoadFromFile").call((path,))?;
        match Error::try_take_raised() {
            Some(error) => Err(error),
            None => Ok(module),
        }
    }

    /// The exported function `name` (`__tvm_ffi_<name>`), or `None`.
    pub fn get_function(&self, name: &str) -> Result<Option<Function>> {
        global!("ffi.ModuleGetFunction").call((&self.obj, name, false))
    }

    /// The exported function `name`; a `RuntimeError` if missing.
    pub fn function(&self, name: &str) -> Result<Function> {
        self.get_function(name)?
            .ok_or_else(|| Error::runtime_error(format!("module has no function `{name}`")))
    }

    /// The metadata JSON of exported function `name` (`__tvm_ffi__metadata_<name>`), if any.
    pub fn function_metadata(&self, name: &str) -> Result<Option<crate::String>> {
        global!("ffi.ModuleGetFunctionMetadata").call((&self.obj, name, false))
    }

    /// The documentation of exported function `name` (`__tvm_ffi__doc_<name>`), if any.
    pub fn function_doc(&self, name: &str) -> Result<Option<crate::String>> {
        global!("ffi.ModuleGetFunctionDoc").call((&self.obj, name, false))
    }

    /// The module kind (`library` for shared libraries).
    pub fn kind(&self) -> Result<crate::String> {
        global!("ffi.ModuleGetKind").call((&self.obj,))
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Module({:p})", self.obj.as_ptr())
    }
}

impl FfiType for Module {
    fn schema() -> Schema {
        Schema::named("ffi.Module")
    }
    const STATIC_TYPE_INDEX: i32 = tindex::MODULE;
}

impl ByRef for Module {}

impl IntoAny for Module {
    fn into_any(self) -> Result<Any> {
        self.obj.into_any()
    }
}

impl FromAny for Module {
    fn from_view(view: AnyView<'_>) -> Result<Self> {
        match view.object_ptr() {
            Some(ptr) if view.type_index() == tindex::MODULE => Ok(Module {
                // SAFETY: the view borrows a live module object (handles point at the header).
                obj: unsafe { ObjectRef::from_borrowed(ptr.cast()) },
            }),
            _ => Err(mismatch::<Module>(view)),
        }
    }
}
