//! `ffi.StructuralEqual` and `ffi.GetFirstStructuralMismatch`.

use super::{
    enter_region, field_region, for_each_field, is_ignored, kind, region, AddressMap, Column,
    HookCallback, HookCallbackSpec,
};
use crate::abi::{TVMFFIAny, TVMFFIObject, TVMFFITypeInfo};
use crate::containers::map::MapView;
use crate::dlpack::DLTensor;
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use crate::value::stack::StackGuard;
use crate::walks::access_path::kind as step;
use std::cell::{Cell, RefCell};

/// Options of a structural comparison.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Free variables met outside any definition region may be mapped to each other.
    pub map_free_vars: bool,
    /// Tensors compare by shape and dtype only.
    pub skip_tensor_content: bool,
}

/// Are `lhs` and `rhs` structurally equal?
pub fn structural_equal(lhs: &Any, rhs: &Any, options: Options) -> Result<bool, Error> {
    Comparer::new(options, false)
        .run(lhs, rhs)
        .map(|c| c.is_none())
}

/// The access paths (lhs, rhs) of the first mismatch, or None when the values are equal.
pub fn first_mismatch(lhs: &Any, rhs: &Any, options: Options) -> Result<Option<(Any, Any)>, Error> {
    match Comparer::new(options, true).run(lhs, rhs)? {
        None => Ok(None),
        Some((lhs_steps, rhs_steps)) => Ok(Some((to_path(lhs_steps)?, to_path(rhs_steps)?))),
    }
}

/// One access step, kept as data until a mismatch is reported.
type Step = (i64, Any);
/// Steps recorded innermost first.
type ReversePath = Vec<Step>;

fn to_path(reverse: ReversePath) -> Result<Any, Error> {
    let steps = reverse
        .iter()
        .rev()
        .map(|(kind, key)| crate::walks::access_path::new_step(*kind, key))
        .collect::<Result<Vec<ObjectRef>, Error>>()?;
    crate::walks::access_path::path_from_steps(steps)
}

/// One comparison. All state sits in cells so that `__s_equal__` hooks can re-enter it through
/// their callback while the comparison that called them is still on the stack.
struct Comparer {
    region: Cell<i32>,
    skip_tensor_content: bool,
    paths: Option<RefCell<(ReversePath, ReversePath)>>,
    /// Objects mapped to each other (DAG nodes and free variables), keyed by address; the
    /// references keep the addresses from being reused during the comparison.
    lhs_to_rhs: RefCell<AddressMap<(ObjectRef, ObjectRef)>>,
    rhs_to_lhs: RefCell<AddressMap<(ObjectRef, ObjectRef)>>,
    hook_column: Column,
    /// The callback handed to `__s_equal__` hooks.
    callback: HookCallback<Comparer>,
    guard: StackGuard,
}

impl Comparer {
    fn new(options: Options, trace: bool) -> Comparer {
        Comparer {
            region: Cell::new(if options.map_free_vars {
                region::PATTERN
            } else {
                region::NONE
            }),
            skip_tensor_content: options.skip_tensor_content,
            paths: trace.then(|| RefCell::new((Vec::new(), Vec::new()))),
            lhs_to_rhs: RefCell::new(AddressMap::default()),
            rhs_to_lhs: RefCell::new(AddressMap::default()),
            hook_column: Column::new(b"__s_equal__"),
            callback: HookCallback::new(),
            guard: StackGuard::new(),
        }
    }

    fn run(self, lhs: &Any, rhs: &Any) -> Result<Option<(ReversePath, ReversePath)>, Error> {
        if self.compare_any(lhs.as_raw(), rhs.as_raw())? {
            return Ok(None);
        }
        let paths = self
            .paths
            .as_ref()
            .map(|p| std::mem::take(&mut *p.borrow_mut()));
        Ok(Some(paths.unwrap_or_default()))
    }

    fn record(&self, lhs: Step, rhs: Step) {
        if let Some(paths) = &self.paths {
            let mut paths = paths.borrow_mut();
            paths.0.push(lhs);
            paths.1.push(rhs);
        }
    }

    fn with_region<T>(&self, entered: i32, f: impl FnOnce() -> T) -> T {
        let saved = self
            .region
            .replace(enter_region(self.region.get(), entered));
        let out = f();
        self.region.set(saved);
        out
    }

    fn compare_any(&self, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<bool, Error> {
        let (lt, rt) = (lhs.type_index, rhs.type_index);
        if lt != rt {
            // Only the heap and inline forms of strings and bytes can be equal across indices.
            // SAFETY: the tags say which payloads are set.
            return Ok(match (lt, rt) {
                (tindex::STR, tindex::SMALL_STR) | (tindex::BYTES, tindex::SMALL_BYTES) => unsafe {
                    object_bytes(lhs) == small_bytes(rhs)
                },
                (tindex::SMALL_STR, tindex::STR) | (tindex::SMALL_BYTES, tindex::BYTES) => unsafe {
                    small_bytes(lhs) == object_bytes(rhs)
                },
                _ => false,
            });
        }
        // SAFETY: the tags say which payloads are set; object payloads are live for the call.
        unsafe {
            if lt < tindex::OBJECT {
                if lt == tindex::FLOAT && lhs.value.v_float64.is_nan() {
                    return Ok(rhs.value.v_float64.is_nan());
                }
                return Ok(lhs.small_str_len == rhs.small_str_len
                    && lhs.value.v_int64 == rhs.value.v_int64);
            }
            match lt {
                tindex::BIG_INT => Ok(crate::value::any::byte_array_slice(
                    &crate::value::string::bigint_words(lhs),
                ) == crate::value::any::byte_array_slice(
                    &crate::value::string::bigint_words(rhs),
                )),
                tindex::STR | tindex::BYTES => Ok(object_bytes(lhs) == object_bytes(rhs)),
                tindex::ARRAY | tindex::LIST => self.compare_seq(lhs, rhs),
                tindex::MAP | tindex::DICT => self.compare_map(lhs, rhs),
                tindex::SHAPE => Ok(crate::containers::shape::shape_dims(lhs.value.v_obj)
                    == crate::containers::shape::shape_dims(rhs.value.v_obj)),
                tindex::TENSOR => self.compare_tensor(lhs, rhs),
                _ => self.compare_object(lhs.value.v_obj, rhs.value.v_obj),
            }
        }
    }

    /// Compares two objects of the same type (borrowed: the caller keeps them alive).
    fn compare_object(
        &self,
        lhs: *mut TVMFFIObject,
        rhs: *mut TVMFFIObject,
    ) -> Result<bool, Error> {
        self.guard.check("StructuralEqual")?;
        // SAFETY: the caller holds both objects.
        let info = type_info_of(unsafe { (*lhs).type_index })?;
        let seq_kind = super::seq_hash_kind(info)?;
        let same = lhs == rhs;
        match seq_kind {
            kind::UNIQUE_INSTANCE => return Ok(same),
            kind::CONST_TREE_NODE if same => return Ok(true),
            kind::DAG_NODE | kind::FREE_VAR => {
                if let Some((_, mapped)) = self.lhs_to_rhs.borrow().get(&(lhs as usize)) {
                    return Ok(mapped.as_ptr() == rhs);
                }
                if self.rhs_to_lhs.borrow().contains_key(&(rhs as usize)) {
                    return Ok(false);
                }
            }
            _ => {}
        }
        if seq_kind != kind::FREE_VAR {
            let equal = self.compare_fields(lhs, rhs, info)?;
            if equal && seq_kind == kind::DAG_NODE {
                self.bind(lhs, rhs);
            }
            return Ok(equal);
        }
        // A free variable's own fields are uses, not definitions, in a simple region.
        let inner = match self.region.get() {
            region::SIMPLE => region::NONE,
            other => other,
        };
        let saved = self.region.replace(inner);
        let equal = self.compare_fields(lhs, rhs, info);
        self.region.set(saved);
        if !equal? {
            return Ok(false);
        }
        if same || self.region.get() != region::NONE {
            self.bind(lhs, rhs);
            return Ok(true);
        }
        Ok(false)
    }

    fn bind(&self, lhs: *mut TVMFFIObject, rhs: *mut TVMFFIObject) {
        // SAFETY: the caller holds both objects; the maps keep them alive from now on.
        let (l, r) = unsafe { (ObjectRef::from_borrowed(lhs), ObjectRef::from_borrowed(rhs)) };
        self.lhs_to_rhs
            .borrow_mut()
            .insert(lhs as usize, (l.clone(), r.clone()));
        self.rhs_to_lhs.borrow_mut().insert(rhs as usize, (r, l));
    }

    fn compare_fields(
        &self,
        lhs: *mut TVMFFIObject,
        rhs: *mut TVMFFIObject,
        info: &TVMFFITypeInfo,
    ) -> Result<bool, Error> {
        if let Some(hook) = self.hook_column.get(info.type_index) {
            return self.call_hook(hook, lhs, rhs);
        }
        // SAFETY: `info` is the registered type info of both objects.
        let stopped = unsafe {
            for_each_field(info, |field| {
                if is_ignored(field) {
                    return Ok(false);
                }
                let l = crate::registry::reflection::get_field(field, lhs)?;
                let r = crate::registry::reflection::get_field(field, rhs)?;
                let equal = match field_region(field) {
                    Some(entered) => {
                        self.with_region(entered, || self.compare_any(l.as_raw(), r.as_raw()))?
                    }
                    None => self.compare_any(l.as_raw(), r.as_raw())?,
                };
                if !equal && self.paths.is_some() {
                    let name = Any::string(crate::value::any::byte_array_slice(&field.name));
                    self.record((step::ATTR, name.clone()), (step::ATTR, name));
                }
                Ok(!equal)
            })?
        };
        Ok(!stopped)
    }

    /// Runs a type's `__s_equal__(lhs, rhs, callback)` hook.
    fn call_hook(
        &self,
        hook: &TVMFFIAny,
        lhs: *mut TVMFFIObject,
        rhs: *mut TVMFFIObject,
    ) -> Result<bool, Error> {
        if hook.type_index != tindex::FUNCTION {
            return Err(Error::new(
                "TypeError",
                "__s_equal__ must be an ffi.Function",
            ));
        }
        // SAFETY: the caller holds both objects.
        let (l, r) = unsafe {
            (
                Any::object(ObjectRef::from_borrowed(lhs)),
                Any::object(ObjectRef::from_borrowed(rhs)),
            )
        };
        let callback = Any::object(self.callback_function());
        // SAFETY: the hook is a live Function and the arguments are valid views.
        let result = unsafe {
            crate::value::function::call(
                hook.value.v_obj,
                &[*l.as_raw(), *r.as_raw(), *callback.as_raw()],
            )
        };
        let result = result?;
        match result.type_index() {
            // SAFETY: the tag says the payload is an integer.
            tindex::BOOL | tindex::INT => Ok(unsafe { result.as_raw().value.v_int64 } != 0),
            other => Err(Error::new(
                "TypeError",
                format!(
                    "__s_equal__ must return bool, got `{}`",
                    crate::registry::types::type_key_of(other)
                ),
            )),
        }
    }

    /// The `(lhs, rhs, def_region_kind, field_name) -> bool` callback of `__s_equal__` hooks.
    fn callback_function(&self) -> ObjectRef {
        let spec = HookCallbackSpec {
            hook: "__s_equal__",
            traversal: "comparison",
            arity: 4,
        };
        self.callback.get(self, spec, |this, args| {
            // SAFETY: arguments are valid views for the call.
            let (l, r) = unsafe {
                (
                    crate::value::any::view_to_owned(&args[0])?,
                    crate::value::any::view_to_owned(&args[1])?,
                )
            };
            let requested = match args[2].type_index {
                // SAFETY: the tag says the payload is an integer.
                tindex::INT | tindex::BOOL => (unsafe { args[2].value.v_int64 }) as i32,
                _ => return Err(Error::new("TypeError", "def_region_kind must be an int")),
            };
            let entered = if requested == region::NONE {
                this.region.get()
            } else {
                requested
            };
            let equal = this.with_region(entered, || this.compare_any(l.as_raw(), r.as_raw()))?;
            if !equal && this.paths.is_some() {
                // SAFETY: as above.
                let name = unsafe { crate::value::string::str_bytes(&args[3]) }
                    .map(Any::string)
                    .ok_or_else(|| Error::new("TypeError", "field_name must be a str"))?;
                this.record((step::ATTR, name.clone()), (step::ATTR, name));
            }
            Ok(Any::bool(equal))
        })
    }

    fn compare_seq(&self, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<bool, Error> {
        self.guard.check("StructuralEqual")?;
        // Elements are read one at a time: a List can change under a hook.
        let element = |seq: &TVMFFIAny, i: usize| -> Option<Any> {
            // SAFETY: `seq` is a live Array or List.
            let items = unsafe { crate::containers::seq::seq_elements(seq.value.v_obj) };
            // SAFETY: the element is a valid owned value of the sequence.
            items
                .get(i)
                .map(|v| unsafe { crate::value::any::view_to_owned(v) }.unwrap_or_default())
        };
        // SAFETY: both are live sequences.
        let len = |seq: &TVMFFIAny| {
            unsafe { crate::containers::seq::seq_elements(seq.value.v_obj) }.len()
        };
        let (ln, rn) = (len(lhs), len(rhs));
        if ln != rn && self.paths.is_none() {
            return Ok(false);
        }
        for i in 0..ln.min(rn) {
            let (Some(l), Some(r)) = (element(lhs, i), element(rhs, i)) else {
                break;
            };
            if !self.compare_any(l.as_raw(), r.as_raw())? {
                let index = Any::int(i as i64);
                self.record((step::ARRAY_ITEM, index.clone()), (step::ARRAY_ITEM, index));
                return Ok(false);
            }
        }
        if ln == rn {
            return Ok(true);
        }
        let index = Any::int(ln.min(rn) as i64);
        if ln > rn {
            self.record(
                (step::ARRAY_ITEM, index.clone()),
                (step::ARRAY_ITEM_MISSING, index),
            );
        } else {
            self.record(
                (step::ARRAY_ITEM_MISSING, index.clone()),
                (step::ARRAY_ITEM, index),
            );
        }
        Ok(false)
    }

    fn compare_map(&self, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<bool, Error> {
        self.guard.check("StructuralEqual")?;
        // SAFETY: both are live maps or dicts (the tags say so).
        let (lmap, rmap) = unsafe {
            (
                MapView::from_raw(lhs.value.v_obj).expect("a map"),
                MapView::from_raw(rhs.value.v_obj).expect("a map"),
            )
        };
        if lmap.len() != rmap.len() && self.paths.is_none() {
            return Ok(false);
        }
        for (key, value) in lmap.iter() {
            let rhs_key = self.mapped(&key, &self.lhs_to_rhs);
            match rmap.get(&rhs_key)? {
                None => {
                    self.record((step::MAP_ITEM, key), (step::MAP_ITEM_MISSING, rhs_key));
                    return Ok(false);
                }
                Some(other) => {
                    if !self.compare_any(value.as_raw(), other.as_raw())? {
                        self.record((step::MAP_ITEM, key), (step::MAP_ITEM, rhs_key));
                        return Ok(false);
                    }
                }
            }
        }
        if lmap.len() == rmap.len() {
            return Ok(true);
        }
        for (key, _) in rmap.iter() {
            let lhs_key = self.mapped(&key, &self.rhs_to_lhs);
            if !lmap.contains(&lhs_key)? {
                self.record((step::MAP_ITEM_MISSING, lhs_key), (step::MAP_ITEM, key));
                return Ok(false);
            }
        }
        Ok(false)
    }

    /// A map key translated through the objects mapped so far.
    fn mapped(&self, key: &Any, map: &RefCell<AddressMap<(ObjectRef, ObjectRef)>>) -> Any {
        match key.as_object() {
            Some(obj) => map
                .borrow()
                .get(&(obj.as_ptr() as usize))
                .map_or_else(|| key.clone(), |(_, other)| Any::object(other.clone())),
            None => key.clone(),
        }
    }

    fn compare_tensor(&self, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<bool, Error> {
        // SAFETY: both are live tensors.
        let (l, r) = unsafe {
            if lhs.value.v_obj == rhs.value.v_obj {
                return Ok(true);
            }
            (dl_tensor(lhs), dl_tensor(rhs))
        };
        // SAFETY: the DLTensors of live tensors are valid.
        unsafe {
            if l.ndim != r.ndim || dims(l) != dims(r) {
                return Ok(false);
            }
        }
        if (l.dtype.code, l.dtype.bits, l.dtype.lanes)
            != (r.dtype.code, r.dtype.bits, r.dtype.lanes)
        {
            return Ok(false);
        }
        if self.skip_tensor_content {
            return Ok(true);
        }
        // SAFETY: as above; the data of a contiguous CPU tensor spans `data_size` bytes.
        unsafe {
            let (a, b) = (tensor_bytes(l, "compare")?, tensor_bytes(r, "compare")?);
            Ok(a == b)
        }
    }
}

pub(crate) fn type_info_of(type_index: i32) -> Result<&'static TVMFFITypeInfo, Error> {
    crate::registry::types::type_info(type_index)
        .ok_or_else(|| Error::new("TypeError", format!("unknown type index {type_index}")))
}

/// The DLTensor of a tensor value.
///
/// # Safety
/// `value` holds a live Tensor object.
pub(crate) unsafe fn dl_tensor<'a>(value: &TVMFFIAny) -> &'a DLTensor {
    &*value.value.v_obj.cast::<u8>().add(24).cast::<DLTensor>()
}

/// The shape of a DLTensor.
///
/// # Safety
/// `t` is a valid DLTensor.
pub(crate) unsafe fn dims(t: &DLTensor) -> &[i64] {
    if t.ndim <= 0 || t.shape.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(t.shape, t.ndim as usize)
    }
}

/// The data bytes of a contiguous CPU tensor (Apache's checks, as InternalErrors).
///
/// # Safety
/// `t` is a valid DLTensor.
pub(crate) unsafe fn tensor_bytes<'a>(t: &DLTensor, verb: &str) -> Result<&'a [u8], Error> {
    if t.device.device_type != crate::dlpack::DLDeviceType::kDLCPU as i32 {
        return Err(Error::new(
            "InternalError",
            format!("Check failed: device_type == kDLCPU: can only {verb} CPU tensor"),
        ));
    }
    if !crate::containers::tensor::is_contiguous(t) {
        return Err(Error::new(
            "InternalError",
            format!("Check failed: IsContiguous(): Can only {verb} contiguous tensor"),
        ));
    }
    let numel = crate::containers::tensor::checked_numel(dims(t))?;
    let size = usize::try_from(crate::containers::tensor::data_size(
        numel.max(0) as u64,
        t.dtype,
    )?)
    .map_err(|_| Error::new("ValueError", "the tensor's data does not fit in memory"))?;
    if size == 0 || t.data.is_null() {
        return Ok(&[]);
    }
    // Like Apache's `Tensor::data_ptr()`, the data pointer is taken without `byte_offset`.
    Ok(std::slice::from_raw_parts(t.data.cast::<u8>(), size))
}

/// The bytes of a String or Bytes object.
///
/// # Safety
/// `value` holds a live String or Bytes object.
pub(crate) unsafe fn object_bytes<'a>(value: &TVMFFIAny) -> &'a [u8] {
    let cell = value
        .value
        .v_obj
        .cast::<u8>()
        .add(24)
        .cast::<crate::abi::TVMFFIByteArray>();
    crate::value::any::byte_array_slice(&*cell)
}

/// The bytes of an inline (small) string or bytes value.
///
/// # Safety
/// `value` is a small string or small bytes value.
pub(crate) unsafe fn small_bytes(value: &TVMFFIAny) -> &[u8] {
    let bytes = &value.value.v_bytes;
    &bytes[..(value.small_str_len as usize).min(bytes.len())]
}
