//! Support code for what `ffihub-macros` generates. Not a public API: names and signatures may
//! change with the macros.

use crate::any::{Any, AnyView};
use crate::convert::{FfiType, FromAny, IntoAny, IntoReturn};
use crate::error::{Error, Result};
use crate::function::{convert_arg, count_error, name_the_argument, Function};
use crate::object::ObjectType;
use crate::reflection::{field_schema, type_key_to_index, FieldStorage, TypeInfo};
use crate::schema::{metadata_json, signature_text, write_json_string, Schema};
use crate::sys;
use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo, TVMFFIMethodInfo,
    TVMFFIObjectHandle, TVMFFITypeMetadata,
};
use ffihub_abi::tindex;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

type StdString = std::string::String;

/// The packed calling convention of exported functions and of function objects' cells.
pub type SafeCall = unsafe extern "C" fn(*mut c_void, *const TVMFFIAny, i32, *mut TVMFFIAny) -> i32;

/// Runs user code. Frames below this one (the caller's) are left out of error backtraces
/// (`crate::error::BOUNDARY`); it must not be inlined.
#[inline(never)]
pub fn call_boundary<T>(f: impl FnOnce() -> T) -> T {
    std::hint::black_box(f())
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> StdString {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<StdString>() {
        s.clone()
    } else {
        "a Rust panic with a non-string payload".to_owned()
    }
}

/// Runs `f`, turning a panic into an `InternalError`.
#[inline]
pub fn guard<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(|| call_boundary(f))) {
        Ok(result) => result,
        Err(payload) => Err(Error::new(
            "InternalError",
            format!("Rust panic: {}", panic_message(payload.as_ref())),
        )),
    }
}

/// The body of every generated safe-call function: borrowed arguments in, an owned result out,
/// 0 on success; on error (or panic) the error is raised and -1 returned.
///
/// # Safety
/// `args` points at `num_args` valid values (or `num_args <= 0`), `result` is NULL or valid for
/// a write and holds no owned value.
#[inline]
pub unsafe fn safe_call(
    args: *const TVMFFIAny,
    num_args: i32,
    result: *mut TVMFFIAny,
    f: impl FnOnce(&[AnyView<'_>]) -> Result<Any>,
) -> i32 {
    let args: &[AnyView<'_>] = if num_args <= 0 || args.is_null() {
        &[]
    } else {
        // SAFETY: `AnyView` is a transparent `TVMFFIAny`; the caller guarantees the values.
        unsafe { std::slice::from_raw_parts(args.cast(), num_args as usize) }
    };
    match guard(|| f(args)) {
        Ok(value) => {
            if !result.is_null() {
                // SAFETY: the caller's result slot holds no owned value.
                unsafe { result.write(value.into_raw()) };
            }
            0
        }
        Err(error) => raise(error),
    }
}

/// Raises `error` the safe-call way (out of line: the error path is cold).
#[cold]
#[inline(never)]
fn raise(error: Error) -> i32 {
    error.raise();
    -1
}

/// Converts a function's return value.
#[inline]
pub fn ret<R: IntoReturn>(value: R) -> Result<Any> {
    value.into_return()
}

/// The schema of what a function returning `R` returns.
pub fn return_schema<R: IntoReturn>() -> Schema {
    <R::Value as FfiType>::schema()
}

/// Runs registration code at library load (from `.init_array`); a panic is reported, never
/// propagated into the loader. The library is first marked as never unloaded (the runtime will
/// hold pointers into it).
pub fn run_at_load(f: fn()) {
    let run = || {
        #[cfg(any(target_os = "linux", target_vendor = "apple"))]
        crate::nodelete::keep_loaded();
        f()
    };
    if let Err(payload) = catch_unwind(run) {
        eprintln!(
            "ffihub: registration at library load panicked: {}",
            panic_message(payload.as_ref())
        );
    }
}

/// Reports a registration failure at load time (there is no caller to return it to).
pub fn report(what: &str, error: &Error) {
    eprintln!("ffihub: cannot register {what}: {error}");
}

/// Runs `$f` (a `fn()`) when the library is loaded, before `dlopen` returns.
#[doc(hidden)]
#[macro_export]
macro_rules! __run_at_load {
    ($f:path) => {
        const _: () = {
            #[used]
            #[cfg_attr(
                any(
                    target_os = "linux",
                    target_os = "android",
                    target_os = "freebsd",
                    target_os = "netbsd",
                    target_os = "openbsd",
                    target_os = "illumos"
                ),
                link_section = ".init_array"
            )]
            #[cfg_attr(target_vendor = "apple", link_section = "__DATA,__mod_init_func")]
            #[cfg_attr(windows, link_section = ".CRT$XCU")]
            static __FFIHUB_AT_LOAD: extern "C" fn() = {
                extern "C" fn __ffihub_at_load() {
                    $crate::__private::run_at_load($f)
                }
                __ffihub_at_load
            };
        };
    };
}

// ---- signatures ----

/// One parameter of a typed function.
pub struct Param {
    name: &'static str,
    schema: Schema,
    default_json: Option<StdString>,
}

impl Param {
    /// The `self` parameter of an instance method of `T`.
    pub fn receiver<T: ObjectType>() -> Param {
        Param {
            name: "self",
            schema: Schema::named(T::TYPE_KEY),
            default_json: None,
        }
    }
}

/// A parameter of type `T`.
pub fn param<T: FfiType>(name: &'static str) -> Param {
    Param {
        name,
        schema: T::schema(),
        default_json: None,
    }
}

/// A parameter of type `T` with a default value (trailing parameters only).
pub fn param_with_default<T: FfiType + IntoAny>(name: &'static str, default: fn() -> T) -> Param {
    let json = default()
        .into_any()
        .map(|v| json_of(&v))
        .unwrap_or_else(|_| "null".to_owned());
    Param {
        name,
        schema: T::schema(),
        default_json: Some(json),
    }
}

/// A scalar value as JSON (`null` for what JSON cannot say).
fn json_of(value: &Any) -> StdString {
    let view = value.view();
    match view.type_index() {
        tindex::INT => view.int_payload().to_string(),
        tindex::BOOL => (view.int_payload() != 0).to_string(),
        tindex::FLOAT => match view.cast::<f64>() {
            Ok(f) if f.is_finite() => format!("{f:?}"),
            _ => "null".to_owned(),
        },
        tindex::SMALL_STR | tindex::STR => match view.cast::<crate::String>() {
            Ok(s) => {
                let mut out = StdString::new();
                write_json_string(&mut out, &s.to_string_lossy());
                out
            }
            Err(_) => "null".to_owned(),
        },
        _ => "null".to_owned(),
    }
}

/// The signature of a function or method: for metadata, argument conversion and messages.
pub struct FnSig {
    name: StdString,
    doc: &'static str,
    params: Option<Vec<Param>>,
    ret: Schema,
    text: StdString,
}

impl FnSig {
    /// A typed function `name(params) -> ret`.
    pub fn typed(
        name: impl Into<StdString>,
        doc: &'static str,
        params: Vec<Param>,
        ret: Schema,
    ) -> FnSig {
        let name = name.into();
        let schemas: Vec<Schema> = params.iter().map(|p| p.schema.clone()).collect();
        let text = format!("{name}{}", signature_text(&ret, &schemas));
        FnSig {
            name,
            doc,
            params: Some(params),
            ret,
            text,
        }
    }

    /// A packed function (any arguments).
    pub fn packed(name: impl Into<StdString>, doc: &'static str) -> FnSig {
        let name = name.into();
        FnSig {
            text: format!("{name}(*args) -> Any"),
            name,
            doc,
            params: None,
            ret: Schema::named("Any"),
        }
    }

    /// The `type_schema` (Apache's form).
    pub fn schema(&self) -> Schema {
        match &self.params {
            None => Schema::PackedFunction,
            Some(params) => Schema::Function(
                Box::new(self.ret.clone()),
                params.iter().map(|p| p.schema.clone()).collect(),
            ),
        }
    }

    /// The metadata JSON: `type_schema`, plus `arg_names` (a JSON array, as a string) for
    /// typed functions with parameters and `arg_defaults` (a JSON object) when some have
    /// defaults. The extra keys are ffihub's; Apache's readers ignore them.
    pub fn metadata(&self) -> StdString {
        metadata_json(&self.schema(), &self.metadata_entries())
    }

    /// The metadata JSON of a global function: [`metadata`](Self::metadata) plus the doc
    /// comment under `doc`. Runtimes keep a global's `TVMFFIMethodInfo::doc` but none returns
    /// it (Apache's keeps it in a private table), while every one returns the metadata
    /// (`ffi.GetGlobalFuncMetadata`), where `ffihub dump` reads the doc.
    pub fn global_metadata(&self) -> StdString {
        let mut entries = self.metadata_entries();
        if !self.doc.is_empty() {
            entries.push(("doc", self.doc.to_owned()));
        }
        metadata_json(&self.schema(), &entries)
    }

    /// The metadata entries after `type_schema`: `arg_names` and `arg_defaults`.
    fn metadata_entries(&self) -> Vec<(&'static str, StdString)> {
        let mut extra = Vec::new();
        if let Some(params) = self.params.as_ref().filter(|p| !p.is_empty()) {
            let mut names = StdString::from("[");
            let mut defaults = StdString::from("{");
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    names.push(',');
                }
                write_json_string(&mut names, p.name);
                if let Some(json) = &p.default_json {
                    if defaults.len() > 1 {
                        defaults.push(',');
                    }
                    write_json_string(&mut defaults, p.name);
                    defaults.push(':');
                    defaults.push_str(json);
                }
            }
            names.push(']');
            defaults.push('}');
            extra.push(("arg_names", names));
            if defaults.len() > 2 {
                extra.push(("arg_defaults", defaults));
            }
        }
        extra
    }

    /// The registered name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The documentation.
    pub fn doc(&self) -> &'static str {
        self.doc
    }

    #[cold]
    #[inline(never)]
    fn count_mismatch(&self, required: usize, params: usize, got: usize) -> Error {
        let expected = if required == params {
            params.to_string()
        } else {
            format!("{required} to {params}")
        };
        count_error(&self.text, &expected, got)
    }
}

/// Checks the argument count of a typed function (`required` to `total` arguments); `sig` is
/// read only to describe a mismatch.
#[inline]
pub fn check_count(
    args: &[AnyView<'_>],
    required: usize,
    total: usize,
    sig: fn() -> &'static FnSig,
) -> Result<()> {
    if args.len() < required || args.len() > total {
        return Err(sig().count_mismatch(required, total, args.len()));
    }
    Ok(())
}

/// Converts argument `i`; `sig` is read only to name the call in an error.
#[inline]
pub fn arg<T: FromAny>(args: &[AnyView<'_>], i: usize, sig: fn() -> &'static FnSig) -> Result<T> {
    convert_arg(args, i, || &sig().text)
}

/// The receiver of a `&self` method (argument 0), borrowed: the caller's reference keeps it
/// alive for the whole call, so the method needs no reference count of its own (two atomic
/// operations fewer per call).
#[inline]
pub fn receiver<'a, T: ObjectType>(
    args: &[AnyView<'a>],
    sig: fn() -> &'static FnSig,
) -> Result<&'a T> {
    crate::object::borrow_instance(args[0]).map_err(|e| name_the_argument(e, &sig().text, 0))
}

/// Converts argument `i`, or uses the default when the caller passed fewer arguments.
#[inline]
pub fn arg_or<T: FromAny>(
    args: &[AnyView<'_>],
    i: usize,
    default: fn() -> T,
    sig: fn() -> &'static FnSig,
) -> Result<T> {
    if i < args.len() {
        arg(args, i, sig)
    } else {
        Ok(default())
    }
}

/// A function object calling `call` (a generated safe-call function).
pub fn function_from_safe_call(call: SafeCall) -> Result<Function> {
    let mut handle: TVMFFIObjectHandle = std::ptr::null_mut();
    // SAFETY: `call` is a static function and needs no state: with NULL `self` and deleter the
    // runtime stores it as the object's safe call (it ignores the `self` it then receives, the
    // function handle), so calls reach it without a trampoline. `handle` is valid for a write.
    crate::error::check(unsafe {
        sys::TVMFFIFunctionCreate(std::ptr::null_mut(), Some(call), None, &mut handle)
    })?;
    // SAFETY: the runtime handed over a new function object.
    Any::from_value(unsafe { crate::ObjectRef::<crate::Object>::from_raw(handle) })?.cast()
}

/// The address of a function object's safe call (`TVMFFIFunctionCell` after the header): code of
/// the library that made it.
fn safe_call_of(function: &Function) -> Option<*const c_void> {
    // SAFETY: a live function object: its cell follows the 24-byte header.
    let cell = unsafe {
        &*function
            .as_object()
            .as_ptr()
            .cast::<u8>()
            .add(24)
            .cast::<ffihub_abi::abi::TVMFFIFunctionCell>()
    };
    cell.safe_call.map(|f| f as *const c_void)
}

/// Registers a generated function as a global with its metadata and doc.
pub fn register_global(sig: &FnSig, call: SafeCall) {
    if crate::one_copy::refused() {
        return;
    }
    if let Ok(Some(existing)) = Function::get_global(&sig.name) {
        let item = format!("global function `{}`", sig.name);
        if crate::one_copy::refuse_if_registered_elsewhere(&item, safe_call_of(&existing)) {
            return;
        }
    }
    let result = (|| {
        let function = function_from_safe_call(call)?.into_any()?;
        let metadata = sig.global_metadata();
        let info = TVMFFIMethodInfo {
            name: sys::byte_array(sig.name.as_bytes()),
            doc: sys::byte_array(sig.doc.as_bytes()),
            metadata: sys::byte_array(metadata.as_bytes()),
            flags: Flag::kTVMFFIFieldFlagBitMaskIsStaticMethod as i64,
            method: *function.as_raw(),
        };
        // SAFETY: every pointer in `info` is live for the call; the runtime copies the strings
        // and retains the function.
        crate::error::check(unsafe { sys::TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0) })
    })();
    if let Err(error) = result {
        report(&format!("global function `{}`", sig.name), &error);
    }
}

/// The body of an exported `__tvm_ffi__metadata_<name>` / `__tvm_ffi__doc_<name>` symbol: returns
/// `text` as a string.
///
/// # Safety
/// As for [`safe_call`].
pub unsafe fn string_result(
    args: *const TVMFFIAny,
    num_args: i32,
    result: *mut TVMFFIAny,
    text: impl FnOnce() -> StdString,
) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { safe_call(args, num_args, result, |_| text().into_any()) }
}

// ---- types ----

/// One reflected field of a Rust-defined type.
pub struct FieldDef {
    name: &'static str,
    doc: &'static str,
    offset: usize,
    size: usize,
    alignment: usize,
    schema: Schema,
    static_type_index: i32,
    writable: bool,
    getter: unsafe extern "C" fn(*mut c_void, *mut TVMFFIAny) -> i32,
    setter: Option<unsafe extern "C" fn(*mut c_void, *const TVMFFIAny) -> i32>,
    default: Option<fn() -> Result<Any>>,
}

impl FieldDef {
    /// A field stored as `F` at `offset` from the object header.
    pub fn new<F: FieldStorage>(
        name: &'static str,
        doc: &'static str,
        offset: usize,
        default: Option<fn() -> Result<Any>>,
    ) -> FieldDef {
        let (schema, static_type_index) = field_schema::<F>();
        FieldDef {
            name,
            doc,
            offset,
            size: std::mem::size_of::<F>(),
            alignment: std::mem::align_of::<F>(),
            schema,
            static_type_index,
            writable: F::WRITABLE,
            getter: field_getter::<F>,
            setter: F::WRITABLE.then_some(field_setter::<F> as _),
            default,
        }
    }
}

/// Writes a result field by field. A whole-value copy would load the 16 bytes that
/// [`call_boundary`] has just stored in parts, a store-forwarding stall that costs more than
/// the rest of a field read; the writes are volatile only so that the compiler does not merge
/// them back into that copy.
///
/// # Safety
/// `out` is valid for a write.
#[inline(always)]
unsafe fn write_parts(out: *mut TVMFFIAny, raw: TVMFFIAny) {
    // SAFETY: the caller's promise.
    unsafe {
        std::ptr::addr_of_mut!((*out).type_index).write_volatile(raw.type_index);
        std::ptr::addr_of_mut!((*out).small_str_len).write_volatile(raw.small_str_len);
        std::ptr::addr_of_mut!((*out).value).write_volatile(raw.value);
    }
}

unsafe extern "C" fn field_getter<F: FieldStorage>(field: *mut c_void, out: *mut TVMFFIAny) -> i32 {
    // SAFETY: the runtime passes the address of a live field of type `F` (the offset we
    // registered) and a result slot.
    match guard(|| unsafe { &*field.cast::<F>() }.get_any()) {
        Ok(value) => {
            // SAFETY: `out` is valid for a write and holds no owned value.
            unsafe { write_parts(out, value.into_raw()) };
            0
        }
        Err(error) => {
            error.raise();
            -1
        }
    }
}

unsafe extern "C" fn field_setter<F: FieldStorage>(
    field: *mut c_void,
    value: *const TVMFFIAny,
) -> i32 {
    // SAFETY: as for the getter; `value` is a valid view for the call.
    let result = guard(|| unsafe {
        let view = AnyView::from_raw(*value);
        (*field.cast::<F>()).set_any(view)
    });
    match result {
        Ok(()) => 0,
        Err(error) => {
            error.raise();
            -1
        }
    }
}

/// A Rust-defined type to register.
pub struct TypeDef {
    /// The type key.
    pub type_key: &'static str,
    /// The parent's type index.
    pub parent_index: i32,
    /// The documentation.
    pub doc: &'static str,
    /// `size_of` the struct.
    pub total_size: usize,
    /// The type's own reflected fields.
    pub fields: Vec<FieldDef>,
}

/// The registration state of one Rust-defined type: registered on first use (at the latest
/// when the library is loaded).
pub struct TypeCell {
    index: OnceLock<i32>,
    ours: AtomicBool,
}

impl TypeCell {
    /// Not registered yet.
    pub const fn new() -> TypeCell {
        TypeCell {
            index: OnceLock::new(),
            ours: AtomicBool::new(false),
        }
    }

    /// The type index, registering the type on first call.
    pub fn index(&self, def: fn() -> TypeDef) -> i32 {
        *self.index.get_or_init(|| register_type(def(), &self.ours))
    }

    /// Whether this library registered the type (and so knows its layout).
    pub fn is_ours(&self) -> bool {
        self.ours.load(Ordering::Acquire)
    }
}

impl Default for TypeCell {
    fn default() -> Self {
        TypeCell::new()
    }
}

/// An address inside the code that registered type `index`: a field getter, or a method's
/// safe call.
fn code_of_type(index: i32) -> Option<*const c_void> {
    let info = TypeInfo::from_index(index)?;
    let getter = info
        .fields()
        .first()
        .and_then(|f| f.raw().getter)
        .map(|g| g as *const c_void);
    getter.or_else(|| {
        info.methods()
            .iter()
            .find_map(|m| m.function().ok().as_ref().and_then(safe_call_of))
    })
}

fn register_type(def: TypeDef, ours: &AtomicBool) -> i32 {
    if let Some(existing) = type_key_to_index(def.type_key) {
        let item = format!("type `{}`", def.type_key);
        if !crate::one_copy::refuse_if_registered_elsewhere(&item, code_of_type(existing)) {
            eprintln!(
                "ffihub: type `{}` is already registered (by another library); this library's objects of it cannot be downcast",
                def.type_key
            );
        }
        return existing;
    }
    let parent_depth = TypeInfo::from_index(def.parent_index).map_or(0, |p| p.depth());
    let key = sys::byte_array(def.type_key.as_bytes());
    // SAFETY: `key` points at a live string. No reserved child slots; children get indices from
    // the dynamic range.
    let index = unsafe {
        sys::TVMFFITypeGetOrAllocIndex(&key, -1, parent_depth + 1, 0, 1, def.parent_index)
    };
    let metadata = TVMFFITypeMetadata {
        doc: sys::byte_array(def.doc.as_bytes()),
        creator: None,
        total_size: i32::try_from(def.total_size).unwrap_or(0),
        structural_eq_hash_kind: 0,
    };
    // SAFETY: the record's strings are live for the call (the runtime copies them).
    if let Err(error) =
        crate::error::check(unsafe { sys::TVMFFITypeRegisterMetadata(index, &metadata) })
    {
        report(&format!("metadata of type `{}`", def.type_key), &error);
        return index;
    }
    ours.store(true, Ordering::Release);
    for field in def.fields {
        if let Err(error) = register_field(index, &field) {
            report(&format!("field `{}.{}`", def.type_key, field.name), &error);
        }
    }
    index
}

fn register_field(type_index: i32, field: &FieldDef) -> Result<()> {
    let metadata = metadata_json(&field.schema, &[]);
    let default = match field.default {
        Some(make) => Some(make()?),
        None => None,
    };
    let mut flags = 0;
    if field.writable {
        flags |= Flag::kTVMFFIFieldFlagBitMaskWritable as i64;
    }
    if default.is_some() {
        flags |= Flag::kTVMFFIFieldFlagBitMaskHasDefault as i64;
    }
    let info = TVMFFIFieldInfo {
        name: sys::byte_array(field.name.as_bytes()),
        doc: sys::byte_array(field.doc.as_bytes()),
        metadata: sys::byte_array(metadata.as_bytes()),
        flags,
        size: field.size as i64,
        alignment: field.alignment as i64,
        offset: field.offset as i64,
        getter: Some(field.getter),
        setter: field
            .setter
            .map_or(std::ptr::null_mut(), |s| s as *mut c_void),
        default_value_or_factory: default
            .as_ref()
            .map_or(crate::any::RAW_NONE, |d| *d.as_raw()),
        field_static_type_index: field.static_type_index,
    };
    // SAFETY: the record's pointers are live for the call; the runtime copies the strings and
    // retains the default value.
    crate::error::check(unsafe { sys::TVMFFITypeRegisterField(type_index, &info) })
}

/// How a method is registered.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    /// Takes the object as first argument.
    Instance,
    /// No object argument.
    Static,
    /// The constructor: a static method named `__ffi_init__` and the `__ffi_init__` type
    /// attribute.
    Init,
}

/// Registers a generated method of type `T` (unless another library registered `T`: its
/// objects are not this library's to read).
pub fn register_method<T: ObjectType>(sig: &FnSig, kind: MethodKind, call: SafeCall) {
    let result = (|| {
        let type_index = T::type_index();
        if !T::__layout_is_ours() || crate::one_copy::refused() {
            return Ok(());
        }
        let function = function_from_safe_call(call)?.into_any()?;
        let metadata = sig.metadata();
        let name = match kind {
            MethodKind::Init => "__ffi_init__",
            _ => sig
                .name
                .strip_prefix(T::TYPE_KEY)
                .and_then(|rest| rest.strip_prefix('.'))
                .unwrap_or(&sig.name),
        };
        let flags = if kind == MethodKind::Instance {
            0
        } else {
            Flag::kTVMFFIFieldFlagBitMaskIsStaticMethod as i64
        };
        let info = TVMFFIMethodInfo {
            name: sys::byte_array(name.as_bytes()),
            doc: sys::byte_array(sig.doc.as_bytes()),
            metadata: sys::byte_array(metadata.as_bytes()),
            flags,
            method: *function.as_raw(),
        };
        // SAFETY: the record's pointers are live for the call; the runtime copies and retains.
        crate::error::check(unsafe { sys::TVMFFITypeRegisterMethod(type_index, &info) })?;
        if kind == MethodKind::Init {
            let attr = sys::byte_array(b"__ffi_init__");
            // SAFETY: as above.
            crate::error::check(unsafe {
                sys::TVMFFITypeRegisterAttr(type_index, &attr, function.as_raw())
            })?;
        }
        Ok(())
    })();
    if let Err(error) = result {
        report(&format!("method `{}`", sig.name), &error);
    }
}

pub use ffihub_abi::abi::TVMFFIAny as RawAny;
pub use std::ffi::c_void as CVoid;
pub use std::sync::OnceLock;
