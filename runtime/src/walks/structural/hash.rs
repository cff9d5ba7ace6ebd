//! `ffi.StructuralHash`: values hash exactly as in Apache's runtime (the same combine function,
//! seeds and traversal order), so hashes computed by either runtime can be compared.

use super::equal::{dims, dl_tensor, object_bytes, tensor_bytes, type_info_of};
use super::{
    enter_region, field_region, for_each_field, is_ignored, kind, region, AddressMap, Column,
    HookCallback, HookCallbackSpec, SpareMap,
};
use crate::abi::{TVMFFIAny, TVMFFIObject, TVMFFITypeInfo};
use crate::containers::map::MapView;
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::hash::{stable_hash_bytes, stable_hash_combine as combine};
use crate::value::object::ObjectRef;
use crate::value::stack::StackGuard;
use std::cell::{Cell, RefCell};

pub use super::equal::Options;

/// The structural hash of `value` (Apache's `StructuralHash::Hash`).
pub fn structural_hash(value: &Any, options: Options) -> Result<u64, Error> {
    let hasher = Hasher::new(options);
    hasher.hash_any(value.as_raw())
}

/// One hash computation; state sits in cells so that `__s_hash__` hooks can re-enter it.
struct Hasher {
    region: Cell<i32>,
    skip_tensor_content: bool,
    free_var_counter: Cell<u32>,
    graph_node_counter: Cell<u32>,
    /// Hashes of the objects seen so far, keyed by address (the reference keeps it unique).
    memo: RefCell<AddressMap<(ObjectRef, u64)>>,
    hook_column: Column,
    /// The callback handed to `__s_hash__` hooks.
    callback: HookCallback<Hasher>,
    guard: StackGuard,
}

thread_local! {
    static SPARE: RefCell<Option<AddressMap<(ObjectRef, u64)>>> = const { RefCell::new(None) };
}
static SPARE_MEMO: SpareMap<(ObjectRef, u64)> = SpareMap::new(&SPARE);

impl Drop for Hasher {
    fn drop(&mut self) {
        SPARE_MEMO.give_back(std::mem::take(self.memo.get_mut()));
    }
}

/// The type-key hash of a type (what Apache's `GetTypeKeyHash` returns).
fn type_key_hash(type_index: i32) -> u64 {
    crate::registry::types::type_info(type_index).map_or(0, |info| info.type_key_hash)
}

/// The hash of a BigInt's words, tagged with its type index.
///
/// # Safety
/// `value` holds a live BigInt.
unsafe fn bigint_hash(value: &TVMFFIAny) -> u64 {
    let words = crate::value::string::bigint_words(value);
    combine(
        tindex::BIG_INT as u64,
        stable_hash_bytes(crate::value::any::byte_array_slice(&words)),
    )
}

impl Hasher {
    fn new(options: Options) -> Hasher {
        Hasher {
            region: Cell::new(if options.map_free_vars {
                region::PATTERN
            } else {
                region::NONE
            }),
            skip_tensor_content: options.skip_tensor_content,
            free_var_counter: Cell::new(0),
            graph_node_counter: Cell::new(0),
            memo: RefCell::new(SPARE_MEMO.take()),
            hook_column: Column::new(b"__s_hash__"),
            callback: HookCallback::new(),
            guard: StackGuard::new(),
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

    fn hash_any(&self, value: &TVMFFIAny) -> Result<u64, Error> {
        let type_index = value.type_index;
        // SAFETY: the tag says which payload is set; object payloads are live for the call.
        unsafe {
            if type_index < tindex::OBJECT {
                if type_index == tindex::FLOAT && value.value.v_float64.is_nan() {
                    return Ok(combine(type_index as u64, f64::NAN.to_bits()));
                }
                if type_index == tindex::SMALL_STR {
                    return Ok(combine(
                        tindex::STR as u64,
                        crate::containers::any_hash::small_payload_hash(value),
                    ));
                }
                return Ok(combine(type_index as u64, value.value.v_uint64));
            }
            match type_index {
                tindex::BIG_INT => Ok(bigint_hash(value)),
                tindex::STR | tindex::BYTES => Ok(combine(
                    type_index as u64,
                    stable_hash_bytes(object_bytes(value)),
                )),
                tindex::ARRAY | tindex::LIST => self.hash_seq(value),
                tindex::MAP | tindex::DICT => self.hash_map(value),
                tindex::SHAPE => {
                    let dims = crate::containers::shape::shape_dims(value.value.v_obj);
                    let seed = combine(type_key_hash(type_index), dims.len() as u64);
                    Ok(dims.iter().fold(seed, |h, &d| combine(h, d as u64)))
                }
                tindex::TENSOR => self.hash_tensor(value),
                _ => self.hash_object(value.value.v_obj),
            }
        }
    }

    /// Hashes an object (borrowed: the caller keeps it alive).
    fn hash_object(&self, obj: *mut TVMFFIObject) -> Result<u64, Error> {
        self.guard.check("StructuralHash")?;
        // SAFETY: the caller holds the object.
        let info = type_info_of(unsafe { (*obj).type_index })?;
        let seq_kind = super::seq_hash_kind(info)?;
        if let Some((_, hash)) = self.memo.borrow().get(&(obj as usize)) {
            return Ok(*hash);
        }
        let mut hash = if seq_kind != kind::FREE_VAR {
            self.hash_fields(obj, info, info.type_key_hash)?
        } else {
            // The fields are always walked, even when the pointer hash below wins: nested
            // definitions advance the free-variable counter, which later hashes observe.
            let inner = match self.region.get() {
                region::SIMPLE => region::NONE,
                other => other,
            };
            let saved = self.region.replace(inner);
            let fields = self.hash_fields(obj, info, info.type_key_hash);
            self.region.set(saved);
            let fields = fields?;
            if self.region.get() != region::NONE {
                let counter = self.free_var_counter.get();
                self.free_var_counter.set(counter.wrapping_add(1));
                combine(fields, counter as u64)
            } else {
                // Outside a definition region a free variable is its identity.
                obj as u64
            }
        };
        if seq_kind == kind::DAG_NODE {
            let counter = self.graph_node_counter.get();
            self.graph_node_counter.set(counter.wrapping_add(1));
            hash = combine(hash, counter as u64);
        }
        // SAFETY: the caller holds the object; the memo keeps it alive from now on.
        let owned = unsafe { ObjectRef::from_borrowed(obj) };
        self.memo.borrow_mut().insert(obj as usize, (owned, hash));
        Ok(hash)
    }

    fn hash_fields(
        &self,
        obj: *mut TVMFFIObject,
        info: &TVMFFITypeInfo,
        init: u64,
    ) -> Result<u64, Error> {
        if let Some(hook) = self.hook_column.get(info.type_index) {
            return self.call_hook(hook, obj, init);
        }
        let mut hash = init;
        // SAFETY: `info` is the registered type info of `obj`.
        unsafe {
            for_each_field(info, |field| {
                if !is_ignored(field) {
                    let value = crate::registry::reflection::get_field(field, obj)?;
                    let field_hash = match field_region(field) {
                        Some(entered) => {
                            self.with_region(entered, || self.hash_any(value.as_raw()))?
                        }
                        None => self.hash_any(value.as_raw())?,
                    };
                    hash = combine(hash, field_hash);
                }
                Ok(false)
            })?;
        }
        Ok(hash)
    }

    /// Runs a type's `__s_hash__(obj, init_hash, callback)` hook.
    fn call_hook(&self, hook: &TVMFFIAny, obj: *mut TVMFFIObject, init: u64) -> Result<u64, Error> {
        if hook.type_index != tindex::FUNCTION {
            return Err(Error::new(
                "TypeError",
                "__s_hash__ must be an ffi.Function",
            ));
        }
        // SAFETY: the caller holds the object.
        let this = Any::object(unsafe { ObjectRef::from_borrowed(obj) });
        let init = Any::int(init as i64);
        let callback = Any::object(self.callback_function());
        // SAFETY: the hook is a live Function and the arguments are valid views.
        let result = unsafe {
            crate::value::function::call(
                hook.value.v_obj,
                &[*this.as_raw(), *init.as_raw(), *callback.as_raw()],
            )?
        };
        match result.type_index() {
            // SAFETY: the tag says the payload is an integer.
            tindex::INT => Ok(unsafe { result.as_raw().value.v_uint64 }),
            other => Err(Error::new(
                "TypeError",
                format!(
                    "__s_hash__ must return int, got `{}`",
                    crate::registry::types::type_key_of(other)
                ),
            )),
        }
    }

    /// The `(value, init_hash, def_region_kind) -> int` callback of `__s_hash__` hooks.
    fn callback_function(&self) -> ObjectRef {
        let spec = HookCallbackSpec {
            hook: "__s_hash__",
            traversal: "hash computation",
            arity: 3,
        };
        self.callback.get(self, spec, |this, args| {
            // SAFETY: arguments are valid views for the call.
            let value = unsafe { crate::value::any::view_to_owned(&args[0])? };
            let int_arg = |i: usize, what: &str| match args[i].type_index {
                // SAFETY: the tag says the payload is an integer.
                tindex::INT | tindex::BOOL => Ok(unsafe { args[i].value.v_int64 }),
                _ => Err(Error::new("TypeError", format!("{what} must be an int"))),
            };
            let init = int_arg(1, "init_hash")? as u64;
            let requested = int_arg(2, "def_region_kind")? as i32;
            let entered = if requested == region::NONE {
                this.region.get()
            } else {
                requested
            };
            let hash = this.with_region(entered, || this.hash_any(value.as_raw()))?;
            Ok(Any::int(combine(init, hash) as i64))
        })
    }

    fn hash_seq(&self, value: &TVMFFIAny) -> Result<u64, Error> {
        self.guard.check("StructuralHash")?;
        // SAFETY: `value` is a live Array or List.
        let len = unsafe { crate::containers::seq::seq_elements(value.value.v_obj) }.len();
        let mut hash = combine(type_key_hash(value.type_index), len as u64);
        for i in 0..len {
            // Elements are read one at a time: a List can change under a hook.
            // SAFETY: as above; elements are valid owned values.
            let item =
                match unsafe { crate::containers::seq::seq_elements(value.value.v_obj) }.get(i) {
                    Some(item) => unsafe { crate::value::any::view_to_owned(item)? },
                    None => break,
                };
            hash = combine(hash, self.hash_any(item.as_raw())?);
        }
        Ok(hash)
    }

    /// A hash of a map key that does not depend on where the key is met: values, strings and
    /// BigInts hash by content, objects by the hash they already got (others are left out).
    fn order_independent_hash(&self, key: &Any) -> Option<u64> {
        let raw = key.as_raw();
        let type_index = raw.type_index;
        // SAFETY: the tags say which payloads are set.
        unsafe {
            if type_index < tindex::OBJECT {
                if type_index == tindex::SMALL_STR {
                    return Some(combine(
                        tindex::STR as u64,
                        crate::containers::any_hash::small_payload_hash(raw),
                    ));
                }
                return Some(combine(type_index as u64, raw.value.v_uint64));
            }
            match type_index {
                tindex::STR | tindex::BYTES => Some(combine(
                    type_index as u64,
                    stable_hash_bytes(object_bytes(raw)),
                )),
                tindex::BIG_INT => Some(bigint_hash(raw)),
                _ => self
                    .memo
                    .borrow()
                    .get(&(raw.value.v_obj as usize))
                    .map(|(_, hash)| *hash),
            }
        }
    }

    fn hash_map(&self, value: &TVMFFIAny) -> Result<u64, Error> {
        self.guard.check("StructuralHash")?;
        // SAFETY: the tag says `value` is a live Map or Dict.
        let map = unsafe { MapView::from_raw(value.value.v_obj) }.expect("a map");
        let mut hash = combine(type_key_hash(value.type_index), map.len() as u64);
        let mut items: Vec<(u64, Any)> = map
            .iter()
            .filter_map(|(key, value)| self.order_independent_hash(&key).map(|h| (h, value)))
            .collect();
        // Sorted by key hash, the result does not depend on insertion order.
        items.sort_by_key(|(h, _)| *h);
        let mut i = 0;
        while i < items.len() {
            let mut k = i + 1;
            while k < items.len() && items[k].0 == items[i].0 {
                k += 1;
            }
            hash = combine(hash, items[i].0);
            // Tied key hashes have no deterministic order: their values are left out.
            if k == i + 1 {
                hash = combine(hash, self.hash_any(items[i].1.as_raw())?);
            }
            i = k;
        }
        Ok(hash)
    }

    fn hash_tensor(&self, value: &TVMFFIAny) -> Result<u64, Error> {
        // SAFETY: the tag says `value` is a live Tensor.
        let t = unsafe { dl_tensor(value) };
        // SAFETY: a live tensor's DLTensor is valid.
        let shape = unsafe { dims(t) };
        let mut hash = combine(type_key_hash(tindex::TENSOR), t.ndim as i64 as u64);
        for &d in shape {
            hash = combine(hash, d as u64);
        }
        let dtype_bits =
            t.dtype.code as u64 | (t.dtype.bits as u64) << 8 | (t.dtype.lanes as u64) << 16;
        hash = combine(hash, dtype_bits);
        if !self.skip_tensor_content {
            // SAFETY: as above.
            let data = unsafe { tensor_bytes(t, "hash")? };
            hash = combine(hash, stable_hash_bytes(data));
        }
        Ok(hash)
    }
}
