//! The structural mutator (`ffi.StructuralMutator`, `ffi.StructuralMap`, `ffi.StructuralMutate`,
//! the `ffi.StructuralMutator*` methods) and the `__s_mutate__` / `__s_maybe_inplace_mutate__`
//! hooks of the builtin types.
//!
//! A mutator object has Apache's layout, `{header, vtable*, def_region_kind}`; its vtable is
//! `{mutate, maybe_inplace_mutate, var_remap_get, var_remap_set}`, each a C function taking the
//! mutator and `AnyView`s by value and returning a `TVMFFIAny`: an Error, the `Unchanged` marker
//! (type index `kTVMFFIUnchanged`), or the new value. Native hooks compiled against Apache's
//! headers drive our mutators through it, and ours drive theirs. Objects are rebuilt through
//! their `__ffi_shallow_copy__` and field setters, only when a field really changed; a value is
//! mutated in place only when its holder is the only one (`maybe_inplace`).

use super::error_context::attach;
use super::visit::{read_entries, region_of, type_index_match, with_region};
use super::{for_each_field, is_ignored, kind, region, same_as, AddressMap, Column};
use crate::abi::{TVMFFIAny, TVMFFIObject, TVMFFITypeInfo};
use crate::containers::map::{Cursor, MapView};
use crate::containers::seq::{seq_elements, Array, List};
use crate::registry::define::{def_typed, Globals};
use crate::registry::type_schema::{Ty, ANY, INT, NONE, PACKED_FUNCTION};
use crate::tindex;
use crate::value::any::{raw_pod, view_to_owned, Any};
use crate::value::error::Error;
use crate::value::object::{alloc_object, is_object_index, strong_count, ObjectRef};
use crate::value::stack::StackGuard;
use std::cell::{Cell, RefCell};
use std::ffi::c_void;

use crate::registry::types::runtime_index::STRUCTURAL_MUTATOR;

/// `TVMFFIAny (*)(StructuralMutatorObj*, AnyView) noexcept`: mutate, maybe-inplace mutate,
/// variable-remap lookup, and the `__s_mutate__` hooks.
pub type MutateAbi = unsafe extern "C" fn(*mut TVMFFIObject, TVMFFIAny) -> TVMFFIAny;
/// `TVMFFIAny (*)(StructuralMutatorObj*, AnyView var, AnyView mapped) noexcept`.
pub type RemapSetAbi = unsafe extern "C" fn(*mut TVMFFIObject, TVMFFIAny, TVMFFIAny) -> TVMFFIAny;

/// Apache's `StructuralMutatorVTable`.
#[repr(C)]
pub struct MutatorVTable {
    pub mutate: MutateAbi,
    pub maybe_inplace_mutate: MutateAbi,
    pub var_remap_get: MutateAbi,
    pub var_remap_set: RemapSetAbi,
}

const VTABLE_OFFSET: usize = 24;

/// Our mutator objects: Apache's two fields, then the engine and its variable remap.
#[repr(C)]
struct MutatorPayload {
    vtable: *const MutatorVTable,
    region: Cell<i32>,
    engine: Engine,
    remap: RefCell<AddressMap<(ObjectRef, Any)>>,
    guard: StackGuard,
}

/// `(type index, callback, flag)`: for StructuralMap the flag says the callback takes the
/// definition-region kind; for StructuralMutate, that it takes the in-place mode.
type Entries = Vec<(i32, ObjectRef, bool)>;

enum Engine {
    /// `ffi.StructuralMap`: callbacks return replacements, before or after the descent.
    Map { entries: Entries, post_order: bool },
    /// `ffi.StructuralMutate`: a matching callback takes the node over (descending itself
    /// through the mutator); other nodes get the default descent.
    Mutate { entries: Entries },
}

static VTABLE: MutatorVTable = MutatorVTable {
    mutate: engine_mutate,
    maybe_inplace_mutate: engine_maybe_inplace_mutate,
    var_remap_get: engine_remap_get,
    var_remap_set: engine_remap_set,
};

/// The `Unchanged` marker.
pub fn unchanged() -> Any {
    // SAFETY: a POD value.
    unsafe {
        Any::from_raw(raw_pod(
            tindex::UNCHANGED,
            crate::abi::TVMFFIAnyValue { v_int64: 0 },
        ))
    }
}

fn is_unchanged(value: &Any) -> bool {
    value.type_index() == tindex::UNCHANGED
}

/// The result, or a copy of `original` when unchanged.
fn value_or_original(result: Any, original: &TVMFFIAny) -> Result<Any, Error> {
    if is_unchanged(&result) {
        // SAFETY: `original` is a valid view.
        unsafe { view_to_owned(original) }
    } else {
        Ok(result)
    }
}

fn from_raw(raw: TVMFFIAny) -> Result<Any, Error> {
    // SAFETY: ABI results are owned values.
    let value = unsafe { Any::from_raw(raw) };
    if value.type_index() == tindex::ERROR {
        return Err(Error::from_object(
            value.as_object().cloned().expect("an Error is an object"),
        ));
    }
    Ok(value)
}

fn to_raw(result: Result<Any, Error>) -> TVMFFIAny {
    match result {
        Ok(value) => value.into_raw(),
        Err(error) => Any::object(error.into_object()).into_raw(),
    }
}

/// Runs a native entry point body, turning panics into errors.
fn guarded(body: impl FnOnce() -> Result<Any, Error>) -> TVMFFIAny {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    to_raw(outcome.unwrap_or_else(|p| Err(crate::value::function::panic_error(p))))
}

/// The vtable of a mutator (an error for one made by `__ffi_shallow_copy__`, which has none).
unsafe fn vtable<'a>(mutator: *mut TVMFFIObject) -> Result<&'a MutatorVTable, Error> {
    (*mutator
        .cast::<u8>()
        .add(VTABLE_OFFSET)
        .cast::<*const MutatorVTable>())
    .as_ref()
    .ok_or_else(|| {
        Error::new(
            "TypeError",
            "this ffi.StructuralMutator has no traversal engine",
        )
    })
}

/// Is `value` an object whose only strong reference is the caller's?
unsafe fn is_unique(value: &TVMFFIAny) -> bool {
    is_object_index(value.type_index) && strong_count(value.value.v_obj) == 1
}

/// Apache's `MutateExpected`: through the mutator's vtable (any mutator, ours or foreign), in
/// place when allowed and the value is uniquely held.
///
/// # Safety
/// `mutator` is a live StructuralMutatorObj; `value` is a valid view.
pub unsafe fn mutate(
    mutator: *mut TVMFFIObject,
    value: &TVMFFIAny,
    inplace: bool,
) -> Result<Any, Error> {
    let table = vtable(mutator)?;
    if inplace && is_unique(value) {
        from_raw((table.maybe_inplace_mutate)(mutator, *value))
    } else {
        from_raw((table.mutate)(mutator, *value))
    }
}

/// Apache's `DefaultMutateExpected`.
///
/// # Safety
/// As for [`mutate`].
pub unsafe fn default_mutate(
    mutator: *mut TVMFFIObject,
    value: &TVMFFIAny,
    inplace: bool,
) -> Result<Any, Error> {
    if inplace {
        default_maybe_inplace(mutator, value)
    } else {
        default_mutate_copy(mutator, value)
    }
}

thread_local! {
    static MUTATE_COLUMN: Column = Column::new(b"__s_mutate__");
    static INPLACE_COLUMN: Column = Column::new(b"__s_maybe_inplace_mutate__");
    static SHALLOW_COPY_COLUMN: Column = Column::new(b"__ffi_shallow_copy__");
}

/// Calls a mutate hook entry (native pointer or Function), or None when there is none.
unsafe fn call_hook(
    hook: Option<&TVMFFIAny>,
    mutator: *mut TVMFFIObject,
    value: &TVMFFIAny,
) -> Option<Result<Any, Error>> {
    let hook = hook?;
    Some(match hook.type_index {
        tindex::OPAQUE_PTR => {
            let native = std::mem::transmute::<*mut c_void, MutateAbi>(hook.value.v_ptr);
            from_raw(native(mutator, *value))
        }
        tindex::FUNCTION => {
            let this = Any::object(ObjectRef::from_borrowed(mutator));
            crate::value::function::call(hook.value.v_obj, &[*this.as_raw(), *value])
        }
        _ => Err(Error::new(
            "TypeError",
            "__s_mutate__ must be a direct hook pointer or ffi.Function",
        )),
    })
}

/// The copy-on-write default descent (Apache's `DefaultMutateRaw`).
unsafe fn default_mutate_copy(mutator: *mut TVMFFIObject, value: &TVMFFIAny) -> Result<Any, Error> {
    let hook = MUTATE_COLUMN.with(|c| c.get(value.type_index));
    if let Some(result) = call_hook(hook, mutator, value) {
        return attach(result, value);
    }
    if !is_object_index(value.type_index) {
        return view_to_owned(value);
    }
    attach(mutate_object(mutator, value), value)
}

/// The in-place default descent (Apache's `DefaultMaybeInplaceMutateRaw`).
unsafe fn default_maybe_inplace(
    mutator: *mut TVMFFIObject,
    value: &TVMFFIAny,
) -> Result<Any, Error> {
    let hook = INPLACE_COLUMN.with(|c| c.get(value.type_index));
    match hook {
        Some(h) if matches!(h.type_index, tindex::OPAQUE_PTR | tindex::FUNCTION) => {
            attach(call_hook(Some(h), mutator, value).expect("a hook"), value)
        }
        _ => default_mutate_copy(mutator, value),
    }
}

fn seq_kind_of(info: &TVMFFITypeInfo) -> i32 {
    // SAFETY: metadata is NULL or registry-owned.
    unsafe { info.metadata.as_ref() }.map_or(kind::UNSUPPORTED, |m| m.structural_eq_hash_kind)
}

/// An object without a hook: variable remapping for free variables and DAG nodes, then the
/// reflected fields.
unsafe fn mutate_object(mutator: *mut TVMFFIObject, value: &TVMFFIAny) -> Result<Any, Error> {
    let info = super::equal::type_info_of(value.type_index)?;
    let seq_kind = seq_kind_of(info);
    let (free_var, dag) = (seq_kind == kind::FREE_VAR, seq_kind == kind::DAG_NODE);
    let table = vtable(mutator)?;
    if free_var || dag {
        let mapped = from_raw((table.var_remap_get)(mutator, *value))?;
        if mapped.type_index() != tindex::NONE {
            return Ok(mapped);
        }
    }
    if free_var && region_of(mutator) == region::NONE {
        return Ok(unchanged());
    }
    let result = mutate_fields(mutator, value, info)?;
    if (free_var || dag) && (dag || region_of(mutator) == region::PATTERN || !is_unchanged(&result))
    {
        from_raw((table.var_remap_set)(mutator, *value, *result.as_raw()))?;
    }
    Ok(result)
}

/// Rebuilds an object whose structural fields changed: a shallow copy with the new fields set.
unsafe fn mutate_fields(
    mutator: *mut TVMFFIObject,
    value: &TVMFFIAny,
    info: &TVMFFITypeInfo,
) -> Result<Any, Error> {
    let copy_fn = SHALLOW_COPY_COLUMN.with(|c| c.get(value.type_index));
    let Some(copy_fn) = copy_fn.filter(|f| f.type_index == tindex::FUNCTION) else {
        return Err(Error::new(
            "TypeError",
            "__ffi_shallow_copy__ must be an ffi.Function",
        ));
    };
    let copy = crate::value::function::call(copy_fn.value.v_obj, &[*value])?;
    if copy.type_index() != value.type_index || same_as(copy.as_raw(), value) {
        return Err(Error::new(
            "TypeError",
            "Shallow copy callback must return a distinct object with the same type as its input",
        ));
    }
    let new_obj = copy.as_raw().value.v_obj;
    let mut changed = false;
    let mut walk = || {
        for_each_field(info, |field| {
            if is_ignored(field) {
                return Ok(false);
            }
            let old = crate::registry::reflection::get_field(field, new_obj)?;
            let new = match super::field_region(field) {
                Some(kind) => with_region(mutator, kind, || mutate(mutator, old.as_raw(), false))?,
                None => mutate(mutator, old.as_raw(), false)?,
            };
            if is_unchanged(&new) || same_as(new.as_raw(), old.as_raw()) {
                return Ok(false);
            }
            if field.setter.is_null() {
                return Err(Error::new(
                    "TypeError",
                    format!(
                        "Cannot structurally mutate field `{}` of type `{}` because it does not define a setter",
                        String::from_utf8_lossy(crate::value::any::byte_array_slice(&field.name)),
                        String::from_utf8_lossy(crate::value::any::byte_array_slice(&info.type_key)),
                    ),
                ));
            }
            crate::registry::reflection::set_field(field, new_obj, new.as_raw())?;
            changed = true;
            Ok(false)
        })
    };
    if region_of(mutator) == region::SIMPLE && seq_kind_of(info) == kind::FREE_VAR {
        with_region(mutator, region::NONE, walk)?;
    } else {
        walk()?;
    }
    Ok(if changed { copy } else { unchanged() })
}

impl MutatorPayload {
    fn find(&self, type_index: i32) -> Option<(&ObjectRef, bool)> {
        let entries = match &self.engine {
            Engine::Map { entries, .. } | Engine::Mutate { entries } => entries,
        };
        entries
            .iter()
            .find(|(target, _, _)| type_index_match(type_index, *target))
            .map(|(_, f, flag)| (f, *flag))
    }

    /// Calls a StructuralMap callback on `target`.
    unsafe fn call_map_link(
        &self,
        f: &ObjectRef,
        with_kind: bool,
        target: &TVMFFIAny,
    ) -> Result<Any, Error> {
        let result = if with_kind {
            let kind = Any::int(self.region.get() as i64);
            crate::value::function::call(f.as_ptr(), &[*target, *kind.as_raw()])
        } else {
            crate::value::function::call(f.as_ptr(), &[*target])
        };
        attach(result, target)
    }

    unsafe fn mutate_impl(
        &self,
        this: *mut TVMFFIObject,
        value: &TVMFFIAny,
        inplace: bool,
    ) -> Result<Any, Error> {
        self.guard.check("StructuralMutate")?;
        match &self.engine {
            Engine::Map {
                post_order: true, ..
            } => {
                let out = default_mutate(this, value, inplace)?;
                let view = if is_unchanged(&out) {
                    *value
                } else {
                    *out.as_raw()
                };
                match self.find(view.type_index) {
                    None => Ok(out),
                    Some((f, with_kind)) => {
                        let result = self.call_map_link(f, with_kind, &view)?;
                        Ok(if is_unchanged(&result) { out } else { result })
                    }
                }
            }
            Engine::Map {
                post_order: false, ..
            } => {
                let Some((f, with_kind)) = self.find(value.type_index) else {
                    return default_mutate(this, value, inplace);
                };
                let mapped = self.call_map_link(f, with_kind, value)?;
                // The descent runs over what the callback produced.
                let descent = if is_unchanged(&mapped) {
                    *value
                } else {
                    *mapped.as_raw()
                };
                let out = if !inplace {
                    default_mutate(this, &descent, false)?
                } else if same_as(&descent, value) {
                    default_mutate(this, value, true)?
                } else {
                    default_mutate(this, &descent, is_unique(&descent))?
                };
                Ok(if is_unchanged(&out) { mapped } else { out })
            }
            Engine::Mutate { .. } => match self.find(value.type_index) {
                Some((f, accepts_mode)) => {
                    let me = Any::object(ObjectRef::from_borrowed(this));
                    let result = if accepts_mode {
                        let mode = Any::int(i64::from(inplace));
                        crate::value::function::call(
                            f.as_ptr(),
                            &[*value, *me.as_raw(), *mode.as_raw()],
                        )
                    } else {
                        crate::value::function::call(f.as_ptr(), &[*value, *me.as_raw()])
                    };
                    attach(result, value)
                }
                None if inplace => default_maybe_inplace(this, value),
                None => default_mutate_copy(this, value),
            },
        }
    }

    fn remap_key(var: &TVMFFIAny) -> Result<usize, Error> {
        if !is_object_index(var.type_index) {
            return Err(Error::new(
                "TypeError",
                "Variable-remap key must be an object-backed value",
            ));
        }
        // SAFETY: the tag says the payload is an object.
        Ok(unsafe { var.value.v_obj } as usize)
    }
}

unsafe extern "C" fn engine_mutate(mutator: *mut TVMFFIObject, value: TVMFFIAny) -> TVMFFIAny {
    guarded(|| {
        crate::value::object::payload::<MutatorPayload>(mutator).mutate_impl(mutator, &value, false)
    })
}

unsafe extern "C" fn engine_maybe_inplace_mutate(
    mutator: *mut TVMFFIObject,
    value: TVMFFIAny,
) -> TVMFFIAny {
    guarded(|| {
        crate::value::object::payload::<MutatorPayload>(mutator).mutate_impl(mutator, &value, true)
    })
}

unsafe extern "C" fn engine_remap_get(mutator: *mut TVMFFIObject, var: TVMFFIAny) -> TVMFFIAny {
    guarded(|| {
        let payload = crate::value::object::payload::<MutatorPayload>(mutator);
        let key = MutatorPayload::remap_key(&var)?;
        Ok(payload
            .remap
            .borrow()
            .get(&key)
            .map_or_else(Any::none, |(_, v)| v.clone()))
    })
}

unsafe extern "C" fn engine_remap_set(
    mutator: *mut TVMFFIObject,
    var: TVMFFIAny,
    mapped: TVMFFIAny,
) -> TVMFFIAny {
    guarded(|| {
        let payload = crate::value::object::payload::<MutatorPayload>(mutator);
        let key = MutatorPayload::remap_key(&var)?;
        let owned_var = ObjectRef::from_borrowed(var.value.v_obj);
        let value = view_to_owned(&mapped)?;
        payload.remap.borrow_mut().insert(key, (owned_var, value));
        Ok(Any::none())
    })
}

fn new_mutator(engine: Engine) -> ObjectRef {
    alloc_object(
        STRUCTURAL_MUTATOR,
        MutatorPayload {
            vtable: &VTABLE,
            region: Cell::new(region::NONE),
            engine,
            remap: RefCell::new(AddressMap::default()),
            guard: StackGuard::new(),
        },
        0,
    )
}

// ---- hooks of the builtin types ----

/// `__s_mutate__` of String, Bytes and BigInt: immutable leaves.
unsafe extern "C" fn mutate_leaf(_mutator: *mut TVMFFIObject, _value: TVMFFIAny) -> TVMFFIAny {
    unchanged().into_raw()
}

/// An owned copy of element `i` of a sequence (None past its end).
unsafe fn element(seq: *mut TVMFFIObject, i: usize) -> Result<Option<Any>, Error> {
    seq_elements(seq)
        .get(i)
        .map(|v| view_to_owned(v))
        .transpose()
}

/// `__s_mutate__` of Array and List: a new sequence from the first changed element on.
unsafe extern "C" fn mutate_seq(mutator: *mut TVMFFIObject, value: TVMFFIAny) -> TVMFFIAny {
    guarded(|| {
        let seq = value.value.v_obj;
        let mut out: Option<Vec<Any>> = None;
        let mut i = 0;
        while let Some(item) = element(seq, i)? {
            let new = mutate(mutator, item.as_raw(), false)?;
            match &mut out {
                Some(items) => items.push(value_or_original(new, item.as_raw())?),
                None if !is_unchanged(&new) && !same_as(new.as_raw(), item.as_raw()) => {
                    let mut items = (0..i)
                        .map(|j| element(seq, j).map(Option::unwrap_or_default))
                        .collect::<Result<Vec<Any>, Error>>()?;
                    items.push(new);
                    out = Some(items);
                }
                None => {}
            }
            i += 1;
        }
        Ok(match out {
            None => unchanged(),
            Some(items) if value.type_index == tindex::LIST => List::from_vec(items).into_any(),
            Some(items) => Array::from_vec(items).into_any(),
        })
    })
}

/// `__s_maybe_inplace_mutate__` of Array and List (called only on uniquely held ones): the
/// elements are replaced in place.
unsafe extern "C" fn maybe_inplace_mutate_seq(
    mutator: *mut TVMFFIObject,
    value: TVMFFIAny,
) -> TVMFFIAny {
    guarded(|| {
        let seq = value.value.v_obj;
        let mut i = 0;
        while let Some(item) = element(seq, i)? {
            let new = mutate(mutator, item.as_raw(), true)?;
            if !is_unchanged(&new) && !same_as(new.as_raw(), item.as_raw()) {
                // The callee may have changed the sequence: re-read the slot.
                if let Some(slot) = seq_elements(seq).get(i) {
                    let slot = slot as *const TVMFFIAny as *mut TVMFFIAny;
                    drop(Any::from_raw(slot.read()));
                    slot.write(new.into_raw());
                }
            }
            i += 1;
        }
        Ok(unchanged())
    })
}

/// The identity of a map key, for matching entries of a copy with those of its source.
fn key_bits(key: &Any) -> (i32, u32, u64) {
    let raw = key.as_raw();
    // SAFETY: reading the payload as raw bits is valid for every kind.
    (raw.type_index, raw.small_str_len, unsafe {
        raw.value.v_uint64
    })
}

/// Mutates the values of a Map or Dict (keys are anchors, not children). In place when allowed
/// (the caller holds the only reference); otherwise, when a value changed, a copy of the
/// container with the new values, in the same layout.
unsafe fn mutate_map_values(
    mutator: *mut TVMFFIObject,
    value: &TVMFFIAny,
    inplace: bool,
) -> Result<Any, Error> {
    let obj = ObjectRef::from_borrowed(value.value.v_obj);
    let view = MapView::new(&obj).expect("a map");
    if view.is_empty() {
        return Ok(unchanged());
    }
    if inplace {
        let mut cursor = Cursor::new(obj.clone()).expect("a map");
        loop {
            let old = cursor.value()?;
            let new = mutate(mutator, old.as_raw(), true)?;
            if !is_unchanged(&new) && !same_as(new.as_raw(), old.as_raw()) {
                cursor.replace_value(new)?;
            }
            if !cursor.advance() {
                return Ok(unchanged());
            }
        }
    }
    let mut changed = std::collections::HashMap::new();
    for (key, old) in view.to_vec() {
        let new = mutate(mutator, old.as_raw(), false)?;
        if !is_unchanged(&new) && !same_as(new.as_raw(), old.as_raw()) {
            changed.insert(key_bits(&key), new);
        }
    }
    if changed.is_empty() {
        return Ok(unchanged());
    }
    let copy = if value.type_index == tindex::DICT {
        view.copy_to_dict()?.into_object()
    } else {
        view.copy_to_map()?.into_object()
    };
    let mut cursor = Cursor::new(copy.clone()).expect("a map");
    loop {
        if let Some(new) = changed.remove(&key_bits(&cursor.key()?)) {
            cursor.replace_value(new)?;
        }
        if !cursor.advance() {
            return Ok(Any::object(copy));
        }
    }
}

unsafe extern "C" fn mutate_map(mutator: *mut TVMFFIObject, value: TVMFFIAny) -> TVMFFIAny {
    guarded(|| mutate_map_values(mutator, &value, false))
}

unsafe extern "C" fn maybe_inplace_mutate_map(
    mutator: *mut TVMFFIObject,
    value: TVMFFIAny,
) -> TVMFFIAny {
    guarded(|| mutate_map_values(mutator, &value, true))
}

/// The `(type index, column, value)` type attributes of the mutator, as Apache registers them.
pub fn type_attrs() -> Vec<(i32, &'static [u8], Any)> {
    let hook = |f: MutateAbi| Any::opaque_ptr(f as *mut c_void);
    let mut attrs = Vec::new();
    for index in [tindex::BIG_INT, tindex::STR, tindex::BYTES] {
        attrs.push((index, &b"__s_mutate__"[..], hook(mutate_leaf)));
        attrs.push((index, &b"__s_maybe_inplace_mutate__"[..], hook(mutate_leaf)));
    }
    for index in [tindex::ARRAY, tindex::LIST] {
        attrs.push((index, &b"__s_mutate__"[..], hook(mutate_seq)));
        attrs.push((
            index,
            &b"__s_maybe_inplace_mutate__"[..],
            hook(maybe_inplace_mutate_seq),
        ));
    }
    for index in [tindex::MAP, tindex::DICT] {
        attrs.push((index, &b"__s_mutate__"[..], hook(mutate_map)));
        attrs.push((
            index,
            &b"__s_maybe_inplace_mutate__"[..],
            hook(maybe_inplace_mutate_map),
        ));
    }
    attrs
}

/// Runs a fresh mutator over `root` (in place where the caller handed over the only reference).
fn run(engine: Engine, root: &TVMFFIAny) -> Result<Any, Error> {
    // SAFETY: `root` is a valid argument view; an rvalue reference is moved into `owned`, which
    // then holds the only reference the uniqueness check can see.
    let owned = unsafe { view_to_owned(root)? };
    let mutator = new_mutator(engine);
    // SAFETY: a live mutator and a valid view.
    let result = unsafe { mutate(mutator.as_ptr(), owned.as_raw(), true)? };
    Ok(if is_unchanged(&result) { owned } else { result })
}

/// Registers the mutator globals.
pub(crate) fn register(globals: &mut Globals, callbacks: &Ty, flagged_callbacks: &Ty) {
    let mutator_ty = || Ty::Named("ffi.StructuralMutator");
    def_typed(
        globals,
        "ffi.StructuralMutatorMutate",
        ANY,
        vec![mutator_ty(), ANY],
        |call| {
            let mutator = call.object(0, STRUCTURAL_MUTATOR)?;
            // SAFETY: a live mutator and a valid view.
            let result = unsafe { mutate(mutator.as_ptr(), call.any(1), false)? };
            value_or_original(result, call.any(1))
        },
    );
    def_typed(
        globals,
        "ffi.StructuralMutatorDefaultMutate",
        ANY,
        vec![mutator_ty(), ANY],
        |call| {
            let mutator = call.object(0, STRUCTURAL_MUTATOR)?;
            // SAFETY: a live mutator and a valid view.
            let result = unsafe { default_mutate(mutator.as_ptr(), call.any(1), false)? };
            value_or_original(result, call.any(1))
        },
    );
    def_typed(
        globals,
        "ffi.StructuralMutatorVarRemapGet",
        ANY,
        vec![mutator_ty(), ANY],
        |call| {
            let mutator = call.object(0, STRUCTURAL_MUTATOR)?;
            // SAFETY: a live mutator and a valid view.
            unsafe {
                from_raw((vtable(mutator.as_ptr())?.var_remap_get)(
                    mutator.as_ptr(),
                    *call.any(1),
                ))
            }
        },
    );
    def_typed(
        globals,
        "ffi.StructuralMutatorVarRemapSet",
        NONE,
        vec![mutator_ty(), ANY, ANY],
        |call| {
            let mutator = call.object(0, STRUCTURAL_MUTATOR)?;
            // SAFETY: a live mutator and valid views.
            unsafe {
                from_raw((vtable(mutator.as_ptr())?.var_remap_set)(
                    mutator.as_ptr(),
                    *call.any(1),
                    *call.any(2),
                ))?;
            }
            Ok(Any::none())
        },
    );
    def_typed(
        globals,
        "ffi.StructuralMutatorDefRegionKind",
        INT,
        vec![mutator_ty()],
        |call| {
            let mutator = call.object(0, STRUCTURAL_MUTATOR)?;
            // SAFETY: a live mutator.
            Ok(Any::int(unsafe { region_of(mutator.as_ptr()) } as i64))
        },
    );
    def_typed(
        globals,
        "ffi.StructuralMutatorWithDefRegionKind",
        ANY,
        vec![mutator_ty(), INT, PACKED_FUNCTION],
        |call| {
            let mutator = call.object(0, STRUCTURAL_MUTATOR)?;
            let kind = super::visit::checked_region(call.int(1)?)?;
            let callback = call.object(2, tindex::FUNCTION)?;
            // SAFETY: a live mutator and a live Function.
            unsafe {
                with_region(mutator.as_ptr(), kind, || {
                    crate::value::function::call(callback.as_ptr(), &[])
                })
            }
        },
    );
    def_typed(
        globals,
        "ffi.StructuralMap",
        ANY,
        vec![ANY, callbacks.clone(), callbacks.clone(), INT],
        |call| {
            let mut entries: Entries = read_entries(call.any(1), "callbacks")?
                .into_iter()
                .map(|(i, f, _)| (i, f, false))
                .collect();
            entries.extend(
                read_entries(call.any(2), "callbacks_with_def_region_kind")?
                    .into_iter()
                    .map(|(i, f, _)| (i, f, true)),
            );
            let post_order = super::visit::is_post_order(call.int(3)?)?;
            run(
                Engine::Map {
                    entries,
                    post_order,
                },
                call.any(0),
            )
        },
    );
    def_typed(
        globals,
        "ffi.StructuralMutate",
        ANY,
        vec![ANY, flagged_callbacks.clone()],
        |call| {
            let entries = read_entries(call.any(1), "callbacks")?;
            run(Engine::Mutate { entries }, call.any(0))
        },
    );
}
