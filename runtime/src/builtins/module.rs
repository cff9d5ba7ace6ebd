//! The `ffi.Module*` globals, `ffi.Module.load_from_file.so` and `ffi.SystemLib`, with Apache's
//! names and type schemas. The logic lives in `crate::module`.
//!
//! Arguments are converted last to first: Apache's C++ unpacks them as call arguments, which
//! GCC evaluates right to left, so when several are wrong its TypeError names the last one.

use crate::module::Module;
use crate::registry::args::Call;
use crate::registry::define::{def_packed, def_typed, Globals};
use crate::registry::type_schema::{Ty, BOOL, INT, NONE, PACKED_FUNCTION, STRING};
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;

const MODULE: Ty = Ty::Named("ffi.Module");

fn optional(ty: Ty) -> Ty {
    Ty::Generic("Optional", vec![ty])
}

fn module_arg(call: &Call, i: usize) -> Result<Module, Error> {
    Module::from_object(call.object(i, tindex::MODULE)?)
}

fn module_any(module: Module) -> Any {
    Any::object(module.into_object())
}

fn optional_string(bytes: Option<Vec<u8>>) -> Any {
    bytes.map_or_else(Any::none, Any::string)
}

pub(super) fn register(globals: &mut Globals) {
    def_typed(
        globals,
        "ffi.ModuleLoadFromFile",
        MODULE,
        vec![STRING],
        |c| Ok(module_any(crate::module::load_from_file(c.string(0)?)?)),
    );
    def_typed(
        globals,
        "ffi.Module.load_from_file.so",
        MODULE,
        vec![STRING, STRING],
        |c| {
            c.string(1)?;
            Ok(module_any(crate::module::load_dso(c.string(0)?)?))
        },
    );
    def_typed(
        globals,
        "ffi.ModuleGetFunction",
        optional(PACKED_FUNCTION),
        vec![MODULE, STRING, BOOL],
        |c| {
            let (query_imports, name) = (c.bool(2)?, c.string(1)?);
            let found = module_arg(c, 0)?.get_function(name, query_imports)?;
            Ok(found.map_or_else(Any::none, Any::object))
        },
    );
    def_typed(
        globals,
        "ffi.ModuleGetFunctionDoc",
        optional(STRING),
        vec![MODULE, STRING, BOOL],
        |c| {
            let (query_imports, name) = (c.bool(2)?, c.string(1)?);
            let doc = module_arg(c, 0)?.function_doc(name, query_imports)?;
            Ok(optional_string(doc))
        },
    );
    def_typed(
        globals,
        "ffi.ModuleGetFunctionMetadata",
        optional(STRING),
        vec![MODULE, STRING, BOOL],
        |c| {
            let (query_imports, name) = (c.bool(2)?, c.string(1)?);
            let metadata = module_arg(c, 0)?.function_metadata(name, query_imports)?;
            Ok(optional_string(metadata))
        },
    );
    def_typed(globals, "ffi.ModuleGetKind", STRING, vec![MODULE], |c| {
        Ok(Any::string(module_arg(c, 0)?.kind()?))
    });
    def_typed(
        globals,
        "ffi.ModuleGetPropertyMask",
        INT,
        vec![MODULE],
        |c| Ok(Any::int(module_arg(c, 0)?.property_mask()?)),
    );
    def_typed(
        globals,
        "ffi.ModuleImplementsFunction",
        BOOL,
        vec![MODULE, STRING, BOOL],
        |c| {
            let (query_imports, name) = (c.bool(2)?, c.string(1)?);
            let found = module_arg(c, 0)?.implements_function(name, query_imports)?;
            Ok(Any::bool(found))
        },
    );
    def_typed(
        globals,
        "ffi.ModuleImportModule",
        NONE,
        vec![MODULE, MODULE],
        |c| {
            let other = module_arg(c, 1)?;
            module_arg(c, 0)?.import_module(&other)?;
            Ok(Any::none())
        },
    );
    def_typed(globals, "ffi.ModuleClearImports", NONE, vec![MODULE], |c| {
        module_arg(c, 0)?.clear_imports()?;
        Ok(Any::none())
    });
    def_typed(
        globals,
        "ffi.ModuleInspectSource",
        STRING,
        vec![MODULE, STRING],
        |c| {
            let format = c.string(1)?;
            Ok(Any::string(module_arg(c, 0)?.inspect_source(format)?))
        },
    );
    def_typed(
        globals,
        "ffi.ModuleWriteToFile",
        NONE,
        vec![MODULE, STRING, STRING],
        |c| {
            let (format, file) = (c.string(2)?, c.string(1)?);
            module_arg(c, 0)?.write_to_file(file, format)?;
            Ok(Any::none())
        },
    );
    def_typed(
        globals,
        "ffi.ModuleGetWriteFormats",
        Ty::Generic("ffi.Array", vec![STRING]),
        vec![MODULE],
        |c| {
            let formats = module_arg(c, 0)?.write_formats()?;
            let items = formats.into_iter().map(Any::string).collect();
            Ok(crate::containers::seq::Array::from_vec(items).into_any())
        },
    );
    def_typed(globals, "ffi.ModuleGlobalsAdd", NONE, vec![MODULE], |c| {
        crate::module::globals_add(&module_arg(c, 0)?);
        Ok(Any::none())
    });
    def_typed(
        globals,
        "ffi.ModuleGlobalsRemove",
        NONE,
        vec![MODULE],
        |c| {
            crate::module::globals_remove(&module_arg(c, 0)?);
            Ok(Any::none())
        },
    );
    def_packed(globals, "ffi.SystemLib", |args| {
        let prefix = match args.first() {
            None => &b""[..],
            // SAFETY: arguments are valid views for the duration of the call.
            Some(arg) => unsafe { crate::value::string::str_bytes(arg) }.ok_or_else(|| {
                Error::new(
                    "TypeError",
                    format!(
                        "Cannot convert from type `{}` to `str`",
                        crate::registry::types::type_key_of(arg.type_index)
                    ),
                )
            })?,
        };
        Ok(module_any(crate::module::system_lib(prefix)?))
    });
}
