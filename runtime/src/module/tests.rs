//! Unit tests of module objects (layout, imports, lookups, system library) with Rust-implemented
//! module kinds and system-library symbols registered in-process.

use super::*;
use crate::abi::TVMFFIAny;
use crate::value::any::RAW_NONE;
use crate::value::env::register_system_lib_symbol;
use std::collections::BTreeMap;

/// A module kind serving named closures.
struct Table {
    kind: &'static str,
    functions: BTreeMap<&'static str, ObjectRef>,
}

impl ModuleImpl for Table {
    fn kind(&self) -> &str {
        self.kind
    }
    fn get_function(&self, _module: &Module, name: &[u8]) -> Result<Option<ObjectRef>, Error> {
        let name = std::str::from_utf8(name).unwrap_or("");
        Ok(self.functions.get(name).cloned())
    }
    fn function_doc(&self, name: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        Ok((name == b"answer").then(|| b"the answer".to_vec()))
    }
}

fn constant(v: i64) -> ObjectRef {
    crate::value::function::from_closure(move |_| Ok(Any::int(v)))
}

fn table(kind: &'static str, entries: &[(&'static str, i64)]) -> Module {
    new_module(Table {
        kind,
        functions: entries.iter().map(|&(n, v)| (n, constant(v))).collect(),
    })
}

fn call_int(f: &ObjectRef) -> i64 {
    let out = unsafe { crate::value::function::call(f.as_ptr(), &[]) }.unwrap();
    unsafe { out.as_raw().value.v_int64 }
}

#[test]
fn layout_has_the_cxx_vptr_an_imports_array_and_a_cache_map() {
    let m = table("t", &[]);
    let handle = m.as_object().as_ptr();
    assert_eq!(m.as_object().type_index(), tindex::MODULE);
    assert_eq!(m.library_ctx() as usize + 8, handle as usize);
    unsafe {
        let vptr = *m.library_ctx().cast::<*const c_void>();
        assert!(!vptr.is_null());
        assert_eq!(
            vptr,
            crate::module::cxx::module_vptr(),
            "the C++ layer's module class"
        );
        let imports = *handle.cast::<u8>().add(24).cast::<*mut TVMFFIObject>();
        assert!(!imports.is_null());
        assert_eq!((*imports).type_index, tindex::ARRAY);
        let cache = *handle.cast::<u8>().add(32).cast::<*mut TVMFFIObject>();
        assert!(!cache.is_null());
        assert_eq!((*cache).type_index, tindex::MAP);
    }
    assert!(m.is_ffihub());
}

#[test]
fn get_function_searches_imports_depth_first_only_when_asked() {
    let root = table("root", &[("a", 1)]);
    let left = table("left", &[("b", 2)]);
    let deep = table("deep", &[("c", 3), ("b", 20)]);
    let right = table("right", &[("c", 30)]);
    left.import_module(&deep).unwrap();
    root.import_module(&left).unwrap();
    root.import_module(&right).unwrap();
    assert!(root.get_function(b"b", false).unwrap().is_none());
    assert_eq!(
        call_int(&root.get_function(b"b", true).unwrap().unwrap()),
        2
    );
    // depth first: left's import `deep` comes before `right`
    assert_eq!(
        call_int(&root.get_function(b"c", true).unwrap().unwrap()),
        3
    );
    assert!(root.implements_function(b"c", true).unwrap());
    assert!(!root.implements_function(b"c", false).unwrap());
    assert!(!root.implements_function(b"zzz", true).unwrap());
    assert_eq!(root.imports().len(), 2);
    assert_eq!(
        root.function_doc(b"answer", false).unwrap().unwrap(),
        b"the answer"
    );
    assert!(root.function_metadata(b"a", true).unwrap().is_none());
}

#[test]
fn import_cycles_are_refused() {
    let a = table("a", &[]);
    let b = table("b", &[]);
    a.import_module(&b).unwrap();
    let e = b.import_module(&a).unwrap_err();
    assert_eq!(e.kind(), b"RuntimeError");
    assert_eq!(e.message(), b"Cyclic dependency detected during import");
    let e = a.import_module(&a).unwrap_err();
    assert_eq!(e.message(), b"Cyclic dependency detected during import");
    // Diamonds are fine.
    let c = table("c", &[]);
    b.import_module(&c).unwrap();
    a.import_module(&c).unwrap();
    a.clear_imports().unwrap();
    assert!(a.imports().is_empty());
    b.import_module(&a).unwrap();
}

#[test]
fn imports_are_copy_on_write_in_the_abi_slot() {
    let a = table("a", &[]);
    let first = a.imports_array().unwrap();
    a.import_module(&table("b", &[])).unwrap();
    assert_eq!(first.len(), 0, "a reader's snapshot does not change");
    assert_eq!(a.imports_array().unwrap().len(), 1);
}

#[test]
fn default_methods_match_apache() {
    let m = table("custom", &[]);
    assert_eq!(m.kind().unwrap(), "custom");
    assert_eq!(m.property_mask().unwrap(), 0);
    assert!(m.write_formats().unwrap().is_empty());
    assert!(m.inspect_source(b"asm").unwrap().is_empty());
    let e = m.write_to_file(b"/tmp/x", b"so").unwrap_err();
    assert_eq!(e.message(), b"Module[custom] does not support WriteToFile");
    let e = m.save_to_bytes().unwrap_err();
    assert_eq!(e.message(), b"Module[custom] does not support SaveToBytes");
}

#[test]
fn lookup_from_imports_caches_and_falls_back_to_globals() {
    let root = table("root", &[("own", 1)]);
    let import = table("import", &[("shared", 7)]);
    root.import_module(&import).unwrap();
    let ctx = root.library_ctx();
    let f = lookup_from_imports(ctx, c"shared").unwrap();
    assert_eq!(lookup_from_imports(ctx, c"shared").unwrap(), f, "cached");
    let out = unsafe { crate::value::function::call(f, &[]) }.unwrap();
    assert_eq!(unsafe { out.as_raw().value.v_int64 }, 7);
    // The module's own functions are not searched; globals are.
    let e = lookup_from_imports(ctx, c"own").unwrap_err();
    assert_eq!(
        e.message(),
        b"Cannot find function own in the imported modules or global registry."
    );
    let g = lookup_from_imports(ctx, c"ffi.ModuleGetKind").unwrap();
    assert_eq!(
        g,
        crate::registry::globals::get(b"ffi.ModuleGetKind")
            .unwrap()
            .function
            .as_ptr()
    );
    let cache = unsafe { ObjectRef::from_borrowed(*root.lookup_cache_slot()) };
    assert_eq!(
        Map::from_object(cache).unwrap().len(),
        2,
        "the ABI cache Map"
    );
    // The cache keeps the function even when the import goes away.
    root.clear_imports().unwrap();
    drop(import);
    assert_eq!(lookup_from_imports(ctx, c"shared").unwrap(), f);
    let e = lookup_from_imports(std::ptr::null_mut(), c"x").unwrap_err();
    assert_eq!(e.kind(), b"RuntimeError");
}

#[test]
fn modules_without_a_vtable_fail_cleanly() {
    // A module object laid out like a C++ ModuleObj but with a NULL vptr (not made by C++ code):
    // header, imports_ Array, cache slot. Real C++ modules are tested by the conformance suite.
    #[repr(C)]
    struct NoVtableModule {
        vptr: *const c_void,
        header: TVMFFIObject,
        imports: *mut TVMFFIObject,
        cache: *mut TVMFFIObject,
    }
    let child = table("child", &[("f", 5)]);
    let imports = Array::from_vec(vec![Any::object(child.as_object().clone())]);
    let mut fake = Box::new(NoVtableModule {
        vptr: std::ptr::null(),
        header: TVMFFIObject {
            combined_ref_count: AtomicU64::new(FRESH_COUNT),
            type_index: tindex::MODULE,
            __padding: 0,
            deleter: None,
        },
        imports: imports.into_object().into_raw(),
        cache: std::ptr::null_mut(),
    });
    let m = Module(unsafe { ObjectRef::from_raw(std::ptr::addr_of_mut!(fake.header)) });
    assert!(!m.is_ffihub());
    assert_eq!(m.imports().len(), 1, "imports are read from the layout");
    let e = m.kind().unwrap_err();
    assert!(String::from_utf8_lossy(e.message()).contains("no C++ vtable"));
    let other = table("other", &[]);
    assert!(m.import_module(&other).is_err(), "ImportModule is virtual");
    // ffihub modules can import it; searches into it fail with the clear error.
    let root = table("root", &[]);
    root.import_module(&m).unwrap();
    assert!(root.get_function(b"f", true).is_err());
    root.clear_imports().unwrap();
    drop(m);
    // The fake has no deleter: release its imports array by hand.
    unsafe { dec_ref(fake.imports) };
}

extern "C" fn sys_add_one(
    _: *mut c_void,
    args: *const TVMFFIAny,
    n: i32,
    rv: *mut TVMFFIAny,
) -> i32 {
    assert_eq!(n, 1);
    unsafe { *rv = Any::int((*args).value.v_int64 + 1).into_raw() };
    0
}

extern "C" fn sys_add_two(
    _: *mut c_void,
    args: *const TVMFFIAny,
    _: i32,
    rv: *mut TVMFFIAny,
) -> i32 {
    unsafe { *rv = Any::int((*args).value.v_int64 + 2).into_raw() };
    0
}

extern "C" fn sys_doc(_: *mut c_void, _: *const TVMFFIAny, _: i32, rv: *mut TVMFFIAny) -> i32 {
    unsafe { *rv = Any::string("adds one, system style").into_raw() };
    0
}

fn call1(f: &ObjectRef, v: i64) -> i64 {
    let out =
        unsafe { crate::value::function::call(f.as_ptr(), &[*Any::int(v).as_raw()]) }.unwrap();
    unsafe { out.as_raw().value.v_int64 }
}

#[test]
fn system_library_prefixes_and_singletons() {
    register_system_lib_symbol(b"__tvm_ffi_ut_a.add", sys_add_one as *mut c_void);
    register_system_lib_symbol(b"__tvm_ffi_ut_b.add", sys_add_two as *mut c_void);
    register_system_lib_symbol(b"__tvm_ffi_ut_plain", sys_add_one as *mut c_void);
    register_system_lib_symbol(b"ut_a.__tvm_ffi__doc_add", sys_doc as *mut c_void);
    let a = system_lib(b"ut_a.").unwrap();
    let b = system_lib(b"ut_b.").unwrap();
    assert_eq!(
        a.as_object().as_ptr(),
        system_lib(b"ut_a.").unwrap().as_object().as_ptr()
    );
    assert_ne!(a.as_object().as_ptr(), b.as_object().as_ptr());
    assert_eq!(a.kind().unwrap(), "library");
    assert_eq!(a.property_mask().unwrap(), 3);
    assert_eq!(
        call1(&a.get_function(b"add", false).unwrap().unwrap(), 10),
        11
    );
    assert_eq!(
        call1(&b.get_function(b"add", false).unwrap().unwrap(), 10),
        12
    );
    // Unprefixed fallback, and full names through the empty prefix.
    assert_eq!(
        call1(&a.get_function(b"ut_plain", false).unwrap().unwrap(), 1),
        2
    );
    let root = system_lib(b"").unwrap();
    assert_eq!(
        call1(&root.get_function(b"ut_b.add", false).unwrap().unwrap(), 1),
        3
    );
    assert!(root.get_function(b"add", false).unwrap().is_none());
    assert_eq!(
        a.function_doc(b"add", false).unwrap().unwrap(),
        b"adds one, system style"
    );
    assert!(b.function_doc(b"add", false).unwrap().is_none());
}

extern "C" fn failing_getter(
    _: *mut c_void,
    _: *const TVMFFIAny,
    _: i32,
    _: *mut TVMFFIAny,
) -> i32 {
    crate::value::error::raise(Error::new("ValueError", "no metadata today"))
}

extern "C" fn int_getter(_: *mut c_void, _: *const TVMFFIAny, _: i32, rv: *mut TVMFFIAny) -> i32 {
    unsafe { *rv = Any::int(3).into_raw() };
    0
}

#[test]
fn metadata_getters_must_succeed_and_return_strings() {
    register_system_lib_symbol(b"ut_m.__tvm_ffi__metadata_f", failing_getter as *mut c_void);
    register_system_lib_symbol(b"ut_m.__tvm_ffi__doc_f", int_getter as *mut c_void);
    let m = system_lib(b"ut_m.").unwrap();
    let e = m.function_metadata(b"f", false).unwrap_err();
    assert_eq!(e.kind(), b"ValueError");
    assert_eq!(e.message(), b"no metadata today");
    let e = m.function_doc(b"f", false).unwrap_err();
    assert_eq!(e.kind(), b"TypeError");
    assert_eq!(e.message(), b"Cannot convert from type `int` to `str`");
    let _ = RAW_NONE;
}

#[test]
fn load_from_file_messages_match_apache() {
    let e = load_from_file(b"noext").unwrap_err();
    assert_eq!(e.kind(), b"RuntimeError");
    assert_eq!(e.message(), b"Failed to get file format from noext");
    let e = load_from_file(b"/tmp/foo.xyz").unwrap_err();
    assert_eq!(
        String::from_utf8_lossy(e.message()),
        "Loader for `.xyz` files is not registered, resolved to (ffi.Module.load_from_file.xyz) \
         in the global registry.Ensure that you have loaded the correct runtime code, andthat you \
         are on the correct hardware architecture."
    );
    let e = load_from_file(b"/nonexistent/libx.dylib").unwrap_err();
    assert_eq!(e.kind(), b"InternalError");
    assert_eq!(
        String::from_utf8_lossy(e.message()),
        "Failed to load dynamic shared library /nonexistent/libx.dylib /nonexistent/libx.dylib: \
         cannot open shared object file: No such file or directory"
    );
    let e = load_from_bytes(b"nokind", b"").unwrap_err();
    assert_eq!(
        String::from_utf8_lossy(e.message()),
        "Library binary was created using {nokind} but a loader of that name is not registered. \
         Make sure to have runtime that registers ffi.Module.load_from_bytes.nokind"
    );
}

#[test]
fn pinning_keeps_a_module_alive() {
    let m = table("pinned", &[]);
    let raw = m.as_object().as_ptr();
    globals_add(&m);
    globals_add(&m);
    drop(m);
    assert_eq!(unsafe { crate::value::object::strong_count(raw) }, 1);
    let m = Module(unsafe { ObjectRef::from_borrowed(raw) });
    globals_remove(&m);
    globals_remove(&m);
    assert_eq!(unsafe { crate::value::object::strong_count(raw) }, 1);
}

#[test]
fn concurrent_lookups_share_one_cached_function() {
    let root = table("root", &[]);
    root.import_module(&table("import", &[("f", 1), ("g", 2)]))
        .unwrap();
    let ctx = root.library_ctx() as usize;
    let handles: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let name: &CStr = if i % 2 == 0 { c"f" } else { c"g" };
                let found = lookup_from_imports(ctx as *mut c_void, name).unwrap();
                (name, found as usize)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    for (name, found) in &results {
        assert_eq!(
            lookup_from_imports(ctx as *mut c_void, name).unwrap() as usize,
            *found,
            "every thread got the cached function"
        );
    }
}
