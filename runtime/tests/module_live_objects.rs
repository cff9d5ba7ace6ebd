//! Modules and the functions they hand out are counted by `ffihub.LiveObjectCount` and freed
//! completely (alone in this process, so nothing else allocates meanwhile).

use std::ffi::c_void;
use tvm_ffi::abi::TVMFFIAny;
use tvm_ffi::module::{new_module, system_lib, Module, ModuleImpl};
use tvm_ffi::value::any::Any;
use tvm_ffi::value::error::Error;
use tvm_ffi::value::object::{live_object_count, ObjectRef};

struct Empty;

impl ModuleImpl for Empty {
    fn kind(&self) -> &str {
        "empty"
    }
    fn get_function(&self, _: &Module, _: &[u8]) -> Result<Option<ObjectRef>, Error> {
        Ok(None)
    }
}

extern "C" fn forty_two(_: *mut c_void, _: *const TVMFFIAny, _: i32, rv: *mut TVMFFIAny) -> i32 {
    // SAFETY: `rv` is the caller's result slot.
    unsafe { *rv = Any::int(42).into_raw() };
    0
}

#[test]
fn modules_imports_caches_and_functions_are_freed() {
    tvm_ffi::value::env::register_system_lib_symbol(b"__tvm_ffi_live.f", forty_two as *mut c_void);
    // The system library is a process-wide singleton: make it before counting.
    let sys = system_lib(b"live.").unwrap();
    let start = live_object_count();

    let root = new_module(Empty);
    let child = new_module(Empty);
    assert_eq!(
        live_object_count(),
        start + 6,
        "a module counts itself, its imports Array and its lookup cache Map"
    );
    root.import_module(&child).unwrap();
    root.import_module(&sys).unwrap();
    let f = root
        .get_function(b"f", true)
        .unwrap()
        .expect("f via the import");
    let cached = tvm_ffi::module::lookup_from_imports(root.library_ctx(), c"f").unwrap();
    let out = unsafe { tvm_ffi::value::function::call(cached, &[]) }.unwrap();
    assert_eq!(unsafe { out.as_raw().value.v_int64 }, 42);
    drop((root, child, f, out));
    assert_eq!(live_object_count(), start);
}
