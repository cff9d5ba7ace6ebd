//! The type registry: type indices and keys, reflection records (fields, methods, metadata) and
//! type-attribute columns.
//!
//! `TVMFFITypeInfo` records and attribute columns live at fixed addresses for the whole process
//! (header code caches them in statics). Readers of type infos go through a lock-free two-level
//! table; every mutation happens under one mutex.

use crate::abi::{
    TVMFFIAny, TVMFFIByteArray, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo, TVMFFIMethodInfo,
    TVMFFITypeAttrColumn, TVMFFITypeInfo, TVMFFITypeMetadata,
};
use crate::tindex;
use crate::value::any::{byte_array_slice, view_to_owned, Any, RAW_NONE};
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

const CHUNK: usize = 1024;
const CHUNKS: usize = 1024;
/// The largest type index plus one.
pub const MAX_TYPES: usize = CHUNK * CHUNKS;

/// The indices of the object types the runtime registers after the fixed ones, in Apache's
/// order (`builtins::dyn_types` registers them in this order and checks each index), so that
/// every layer can name them without looking them up.
pub mod runtime_index {
    pub const ENUM_STATE: i32 = 128;
    pub const ENUM: i32 = 129;
    pub const INT_ENUM: i32 = 130;
    pub const STR_ENUM: i32 = 131;
    pub const ACCESS_STEP: i32 = 132;
    pub const ACCESS_PATH: i32 = 133;
    pub const STRUCTURAL_VISITOR: i32 = 134;
    pub const VISIT_ERROR_CONTEXT: i32 = 135;
    pub const STRUCTURAL_MUTATOR: i32 = 136;
    pub const STRUCTURAL_KEY: i32 = 137;
}

type Chunk = [AtomicPtr<TVMFFITypeInfo>; CHUNK];

/// Published type infos, indexed by type index; a chunk is allocated on first use and never freed.
static PUBLISHED: [AtomicPtr<Chunk>; CHUNKS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; CHUNKS];

/// Mutable bookkeeping of one type (guarded by the registry mutex).
struct Entry {
    info: &'static UnsafeCell<TVMFFITypeInfo>,
    num_slots: i32,
    allocated_slots: i32,
    child_slots_can_overflow: bool,
    /// The current records; every array ever published stays allocated (see [`grow`]).
    fields: &'static [TVMFFIFieldInfo],
    methods: &'static [TVMFFIMethodInfo],
    metadata: Option<&'static TVMFFITypeMetadata>,
}

/// One attribute column: the ABI view and the values it points into.
struct Column {
    view: &'static UnsafeCell<TVMFFITypeAttrColumn>,
    values: Vec<Any>,
}

struct Registry {
    entries: HashMap<i32, Entry>,
    key_to_index: HashMap<Box<[u8]>, i32>,
    next_dynamic: i32,
    columns: HashMap<Box<[u8]>, Column>,
    /// Strings and values that reflection records point into; kept for the process lifetime.
    pool: Vec<Any>,
    strings: Vec<Box<[u8]>>,
    /// Earlier versions of field and method arrays (see [`grow`]).
    retired: Vec<*const u8>,
}

// SAFETY: the raw pointers inside point at leaked, process-lifetime data; access is serialized by
// the mutex around the registry.
unsafe impl Send for Registry {}

fn registry_cell() -> &'static Mutex<Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut registry = Registry {
            entries: HashMap::new(),
            key_to_index: HashMap::new(),
            next_dynamic: tindex::DYN_OBJECT_BEGIN,
            columns: HashMap::new(),
            pool: Vec::new(),
            strings: Vec::new(),
            retired: Vec::new(),
        };
        crate::register_builtin_types(&mut TypeRegistrar(&mut registry));
        Mutex::new(registry)
    })
}

fn registry() -> MutexGuard<'static, Registry> {
    registry_cell().lock().unwrap_or_else(|e| e.into_inner())
}

/// Registration access handed to the builtin-type setup while the registry is being created.
pub struct TypeRegistrar<'a>(&'a mut Registry);

impl TypeRegistrar<'_> {
    /// See [`get_or_alloc_index`].
    pub fn get_or_alloc_index(&mut self, key: &[u8], spec: TypeSpec) -> Result<i32, Error> {
        self.0.get_or_alloc_index(key, spec)
    }

    /// See [`register_field`].
    pub fn register_field(&mut self, index: i32, field: &TVMFFIFieldInfo) -> Result<(), Error> {
        self.0.register_field(index, field)
    }

    /// See [`register_method`].
    pub fn register_method(&mut self, index: i32, method: &TVMFFIMethodInfo) -> Result<(), Error> {
        self.0.register_method(index, method)
    }

    /// See [`register_metadata`].
    pub fn register_metadata(
        &mut self,
        index: i32,
        metadata: &TVMFFITypeMetadata,
    ) -> Result<(), Error> {
        self.0.register_metadata(index, metadata)
    }

    /// See [`register_attr`].
    pub fn register_attr(
        &mut self,
        index: i32,
        name: &[u8],
        value: &TVMFFIAny,
    ) -> Result<(), Error> {
        self.0.register_attr(index, name, value)
    }
}

/// How a new type is placed in the index space.
#[derive(Clone, Copy, Debug)]
pub struct TypeSpec {
    /// A fixed index, or -1 to allocate one.
    pub static_index: i32,
    /// Depth in the hierarchy (0 for roots).
    pub depth: i32,
    /// Indices reserved right after this type for its descendants.
    pub num_child_slots: i32,
    /// May descendants take indices from the global counter once the reserved ones are used up?
    pub child_slots_can_overflow: bool,
    /// The parent's index, -1 for roots, or -2 to only look the key up.
    pub parent_index: i32,
}

/// A new array with `item` appended. The old array is never freed, since readers may still hold
/// pointers into it (Apache's runtime reallocates here; types have few fields, so keeping every
/// version costs little); `retired` keeps it reachable.
fn grow<T: Copy>(old: &'static [T], item: T, retired: &mut Vec<*const u8>) -> &'static [T] {
    let mut items = old.to_vec();
    items.push(item);
    if !old.is_empty() {
        retired.push(old.as_ptr().cast());
    }
    Box::leak(items.into_boxed_slice())
}

/// Returned by [`get_or_alloc_index`] in query-only mode for an unknown key.
pub const NOT_FOUND_QUERY: i32 = -2;

fn publish(index: i32, info: *mut TVMFFITypeInfo) {
    let (chunk, slot) = (index as usize / CHUNK, index as usize % CHUNK);
    let mut table = PUBLISHED[chunk].load(Ordering::Acquire);
    if table.is_null() {
        let fresh: Box<Chunk> = Box::new([const { AtomicPtr::new(std::ptr::null_mut()) }; CHUNK]);
        table = Box::into_raw(fresh);
        // Writers are serialized by the registry mutex, so nobody raced us here.
        PUBLISHED[chunk].store(table, Ordering::Release);
    }
    // SAFETY: chunks are never freed.
    unsafe { (*table)[slot].store(info, Ordering::Release) };
}

/// The type key of a value's type index, for messages.
pub fn type_key_of(type_index: i32) -> String {
    type_info(type_index)
        // SAFETY: type keys point at registry-owned storage.
        .map(|info| {
            String::from_utf8_lossy(unsafe { crate::value::any::byte_array_slice(&info.type_key) })
                .into_owned()
        })
        .unwrap_or_else(|| format!("<unknown type {type_index}>"))
}

/// The type info of `index`, if registered. Lock-free after the registry exists.
pub fn type_info(index: i32) -> Option<&'static TVMFFITypeInfo> {
    if index < 0 || index as usize >= MAX_TYPES {
        return None;
    }
    // Make sure the builtin types are published (a single atomic load once they are).
    registry_cell();
    let table = PUBLISHED[index as usize / CHUNK].load(Ordering::Acquire);
    if table.is_null() {
        return None;
    }
    // SAFETY: chunks and infos are never freed; infos are fully built before publication.
    unsafe {
        let info = (*table)[index as usize % CHUNK].load(Ordering::Acquire);
        info.as_ref()
    }
}

impl Registry {
    fn copy_string(&mut self, s: &TVMFFIByteArray) -> TVMFFIByteArray {
        // SAFETY: callers pass arrays valid for their size.
        let bytes = unsafe { byte_array_slice(s) };
        if bytes.is_empty() {
            return TVMFFIByteArray {
                data: std::ptr::null(),
                size: 0,
            };
        }
        let owned: Box<[u8]> = bytes.into();
        let array = TVMFFIByteArray {
            data: owned.as_ptr().cast(),
            size: owned.len(),
        };
        self.strings.push(owned);
        array
    }

    /// Keeps an owned copy of `view` alive for the process and returns its raw form.
    fn keep(&mut self, view: &TVMFFIAny) -> Result<TVMFFIAny, Error> {
        // SAFETY: callers pass valid views.
        let owned = unsafe { view_to_owned(view)? };
        let raw = *owned.as_raw();
        self.pool.push(owned);
        Ok(raw)
    }

    fn entry(&mut self, index: i32) -> Result<&mut Entry, Error> {
        self.entries.get_mut(&index).ok_or_else(|| {
            Error::new(
                "RuntimeError",
                format!("Cannot find type info for type_index={index}"),
            )
        })
    }

    fn key_of(&self, index: i32) -> String {
        match self.entries.get(&index) {
            // SAFETY: the key array points at the entry's own storage.
            Some(e) => {
                String::from_utf8_lossy(unsafe { byte_array_slice(&(*e.info.get()).type_key) })
                    .into_owned()
            }
            None => format!("<type {index}>"),
        }
    }

    fn get_or_alloc_index(&mut self, key: &[u8], spec: TypeSpec) -> Result<i32, Error> {
        if let Some(&index) = self.key_to_index.get(key) {
            return Ok(index);
        }
        if spec.parent_index == NOT_FOUND_QUERY {
            return Ok(NOT_FOUND_QUERY);
        }
        let key_text = String::from_utf8_lossy(key).into_owned();
        let parent = if spec.parent_index >= 0 {
            Some(self.entries.get(&spec.parent_index).ok_or_else(|| {
                Error::new(
                    "InternalError",
                    format!(
                        "type `{key_text}`: unknown parent type index {}",
                        spec.parent_index
                    ),
                )
            })?)
        } else {
            None
        };
        let parent_info = parent.map(|p| p.info.get() as *const TVMFFITypeInfo);
        let parent_can_overflow = parent.is_none_or(|p| p.child_slots_can_overflow);
        let index = if spec.static_index >= 0 {
            if let Some(existing) = self.entries.get(&spec.static_index) {
                let _ = existing;
                return Err(Error::new(
                    "InternalError",
                    format!(
                        "Conflicting static index {} between {} and {key_text}",
                        spec.static_index,
                        self.key_of(spec.static_index)
                    ),
                ));
            }
            spec.static_index
        } else {
            let parent_index = spec.parent_index;
            let parent = self.entries.get_mut(&parent_index).ok_or_else(|| {
                Error::new(
                    "InternalError",
                    format!("type `{key_text}` needs a parent to allocate its index"),
                )
            })?;
            let wanted = spec.num_child_slots + 1;
            if parent.allocated_slots + wanted <= parent.num_slots {
                let index = parent_index + parent.allocated_slots;
                parent.allocated_slots += wanted;
                index
            } else if parent.child_slots_can_overflow {
                let index = self.next_dynamic;
                self.next_dynamic += wanted;
                index
            } else {
                return Err(Error::new(
                    "InternalError",
                    format!(
                        "Reach maximum number of sub-classes for {}",
                        self.key_of(parent_index)
                    ),
                ));
            }
        };
        if index as usize >= MAX_TYPES {
            return Err(Error::new(
                "InternalError",
                format!("type index {index} exceeds the registry's capacity"),
            ));
        }
        // Ancestors: the parent's ancestors, then the parent.
        let mut ancestors: Vec<*const TVMFFITypeInfo> = Vec::new();
        if let Some(parent_info) = parent_info {
            // SAFETY: published infos are immutable in these fields.
            unsafe {
                let p = &*parent_info;
                if spec.depth != p.type_depth + 1 {
                    return Err(Error::new(
                        "InternalError",
                        format!(
                            "type `{key_text}`: depth {} does not follow its parent's depth {}",
                            spec.depth, p.type_depth
                        ),
                    ));
                }
                ancestors.extend((0..p.type_depth as usize).map(|i| *p.type_ancestors.add(i)));
            }
            ancestors.push(parent_info);
        }
        let ancestors: &'static [*const TVMFFITypeInfo] = Box::leak(ancestors.into_boxed_slice());
        let key_storage: &'static [u8] = Box::leak(Box::<[u8]>::from(key));
        let info: &'static UnsafeCell<TVMFFITypeInfo> =
            Box::leak(Box::new(UnsafeCell::new(TVMFFITypeInfo {
                type_index: index,
                type_depth: spec.depth,
                type_key: TVMFFIByteArray {
                    data: key_storage.as_ptr().cast(),
                    size: key_storage.len(),
                },
                type_ancestors: if ancestors.is_empty() {
                    std::ptr::null()
                } else {
                    ancestors.as_ptr()
                },
                type_key_hash: crate::value::hash::type_key_hash(key),
                num_fields: 0,
                num_methods: 0,
                fields: std::ptr::null(),
                methods: std::ptr::null(),
                metadata: std::ptr::null(),
            })));
        self.entries.insert(
            index,
            Entry {
                info,
                num_slots: spec.num_child_slots + 1,
                allocated_slots: 1,
                child_slots_can_overflow: spec.child_slots_can_overflow && parent_can_overflow,
                fields: &[],
                methods: &[],
                metadata: None,
            },
        );
        self.key_to_index.insert(key.into(), index);
        publish(index, info.get());
        Ok(index)
    }

    fn register_field(&mut self, index: i32, field: &TVMFFIFieldInfo) -> Result<(), Error> {
        // SAFETY: the caller passes a valid record.
        let name = unsafe { byte_array_slice(&field.name) }.to_vec();
        let entry = self.entry(index)?;
        // SAFETY: field names point at registry-owned strings.
        if entry
            .fields
            .iter()
            .any(|f| unsafe { byte_array_slice(&f.name) } == name.as_slice())
        {
            // Apache's wording, down to the check it reports.
            let (key, name) = (self.key_of(index), String::from_utf8_lossy(&name));
            return Err(Error::new(
                "InternalError",
                format!(
                    "Check failed: (std::string_view(existing.name.data, existing.name.size) != new_name) is false: Duplicate field name \"{name}\" in type \"{key}\""
                ),
            ));
        }
        let mut copy = *field;
        if field.flags & Flag::kTVMFFIFieldFlagBitSetterIsFunctionObj as i64 != 0
            && !field.setter.is_null()
        {
            // SAFETY: the flag says `setter` is a Function object; the registry keeps a reference.
            let setter = unsafe { ObjectRef::from_borrowed(field.setter.cast()) };
            self.pool.push(Any::object(setter));
        }
        copy.name = self.copy_string(&field.name);
        copy.doc = self.copy_string(&field.doc);
        copy.metadata = self.copy_string(&field.metadata);
        copy.default_value_or_factory =
            if field.flags & Flag::kTVMFFIFieldFlagBitMaskHasDefault as i64 != 0 {
                self.keep(&field.default_value_or_factory)?
            } else {
                RAW_NONE
            };
        let entry = self.entries.get_mut(&index).expect("checked above");
        entry.fields = grow(entry.fields, copy, &mut self.retired);
        // SAFETY: the info is only mutated under the registry mutex.
        unsafe {
            let info = &mut *entry.info.get();
            info.fields = entry.fields.as_ptr();
            info.num_fields = entry.fields.len() as i32;
        }
        Ok(())
    }

    fn register_method(&mut self, index: i32, method: &TVMFFIMethodInfo) -> Result<(), Error> {
        self.entry(index)?;
        let mut copy = *method;
        copy.name = self.copy_string(&method.name);
        copy.doc = self.copy_string(&method.doc);
        copy.metadata = self.copy_string(&method.metadata);
        copy.method = self.keep(&method.method)?;
        let entry = self.entries.get_mut(&index).expect("checked above");
        entry.methods = grow(entry.methods, copy, &mut self.retired);
        // SAFETY: as in `register_field`.
        unsafe {
            let info = &mut *entry.info.get();
            info.methods = entry.methods.as_ptr();
            info.num_methods = entry.methods.len() as i32;
        }
        Ok(())
    }

    fn register_metadata(
        &mut self,
        index: i32,
        metadata: &TVMFFITypeMetadata,
    ) -> Result<(), Error> {
        if self.entry(index)?.metadata.is_some() {
            return Err(Error::new(
                "RuntimeError",
                format!(
                    "Overriding {}, possible causes:\n- two ObjectDef<T>() calls for the same T \n- when we forget to assign _type_key to ObjectRef<Y> that inherits from T\n- another type with the same key is already registered\nCross check the reflection registration.",
                    self.key_of(index)
                ),
            ));
        }
        let mut copy = *metadata;
        copy.doc = self.copy_string(&metadata.doc);
        let copy: &'static TVMFFITypeMetadata = Box::leak(Box::new(copy));
        let entry = self.entry(index)?;
        entry.metadata = Some(copy);
        // SAFETY: as in `register_field`.
        unsafe { (*entry.info.get()).metadata = copy };
        Ok(())
    }

    fn register_attr(&mut self, index: i32, name: &[u8], value: &TVMFFIAny) -> Result<(), Error> {
        let column = self.columns.entry(name.into()).or_insert_with(|| Column {
            view: Box::leak(Box::new(UnsafeCell::new(TVMFFITypeAttrColumn {
                data: std::ptr::null(),
                size: 0,
                begin_index: 0,
            }))),
            values: Vec::new(),
        });
        if index == tindex::NONE {
            return Ok(());
        }
        if index < 0 {
            return Err(Error::new(
                "ValueError",
                format!("invalid type index {index} for a type attribute"),
            ));
        }
        let slot = index as usize;
        if slot < column.values.len() && column.values[slot].type_index() != tindex::NONE {
            return Err(Error::new(
                "RuntimeError",
                format!(
                    "TypeAttr `{}` is already registered for type index {index}. To update the stored value, register a mutable container (e.g., Dict/List) once and mutate it in place on subsequent calls.",
                    String::from_utf8_lossy(name)
                ),
            ));
        }
        // SAFETY: callers pass valid views.
        let owned = unsafe { view_to_owned(value)? };
        if slot >= column.values.len() {
            column.values.resize_with(slot + 1, Any::none);
        }
        column.values[slot] = owned;
        // SAFETY: the column view is only mutated under the registry mutex; `Any` is a
        // transparent `TVMFFIAny`.
        unsafe {
            let view = &mut *column.view.get();
            view.data = column.values.as_ptr().cast();
            view.size = column.values.len() as i32;
            view.begin_index = 0;
        }
        Ok(())
    }
}

/// `TVMFFITypeGetOrAllocIndex`: the index of `key`, allocating one if it is new.
pub fn get_or_alloc_index(key: &[u8], spec: TypeSpec) -> Result<i32, Error> {
    registry().get_or_alloc_index(key, spec)
}

/// The index registered for `key`.
pub fn key_to_index(key: &[u8]) -> Option<i32> {
    registry().key_to_index.get(key).copied()
}

/// Appends a field record to a type.
pub fn register_field(index: i32, field: &TVMFFIFieldInfo) -> Result<(), Error> {
    registry().register_field(index, field)
}

/// Appends a method record to a type.
pub fn register_method(index: i32, method: &TVMFFIMethodInfo) -> Result<(), Error> {
    registry().register_method(index, method)
}

/// Sets a type's metadata (once).
pub fn register_metadata(index: i32, metadata: &TVMFFITypeMetadata) -> Result<(), Error> {
    registry().register_metadata(index, metadata)
}

/// Stores `value` in attribute column `name` for type `index` (index 0 only creates the column).
pub fn register_attr(index: i32, name: &[u8], value: &TVMFFIAny) -> Result<(), Error> {
    registry().register_attr(index, name, value)
}

/// The attribute column `name`, if it exists; its address never changes.
pub fn attr_column(name: &[u8]) -> Option<&'static TVMFFITypeAttrColumn> {
    // SAFETY: columns are leaked; readers see a consistent view because writers hold the mutex
    // and this read takes it too.
    registry()
        .columns
        .get(name)
        .map(|c| unsafe { &*c.view.get() })
}

/// The value of attribute `name` for exactly type `index` (no inheritance), if set.
pub fn attr_value(name: &[u8], index: i32) -> Option<Any> {
    let registry = registry();
    let column = registry.columns.get(name)?;
    let value = column.values.get(usize::try_from(index).ok()?)?;
    (value.type_index() != tindex::NONE).then(|| value.clone())
}

/// Makes the type information of `index` present `fields` instead of its registered fields:
/// records of the same storage under other names (the compatibility layer: `ffi.Enum`'s field names of
/// an earlier release). Fields registered on the type later present the registered ones again.
pub fn present_fields(index: i32, fields: &'static [TVMFFIFieldInfo]) -> Result<(), Error> {
    let mut registry = registry();
    let entry = registry.entry(index)?;
    // SAFETY: the info is only mutated under the registry mutex (as in `register_field`).
    unsafe {
        let info = &mut *entry.info.get();
        info.fields = fields.as_ptr();
        info.num_fields = fields.len() as i32;
    }
    Ok(())
}

/// Every type with a value set in attribute column `name`, with that value, in index order.
pub fn attr_values(name: &[u8]) -> Vec<(i32, Any)> {
    let registry = registry();
    let Some(column) = registry.columns.get(name) else {
        return Vec::new();
    };
    column
        .values
        .iter()
        .enumerate()
        .filter(|(_, value)| value.type_index() != tindex::NONE)
        .map(|(index, value)| (index as i32, value.clone()))
        .collect()
}

/// Keys of every registered type, in index order.
pub fn registered_keys() -> Vec<Vec<u8>> {
    let registry = registry();
    let mut indices: Vec<i32> = registry.entries.keys().copied().collect();
    indices.sort_unstable();
    indices
        .into_iter()
        // SAFETY: keys point at leaked storage.
        .map(|i| unsafe { byte_array_slice(&(*registry.entries[&i].info.get()).type_key) }.to_vec())
        .collect()
}

/// Is `index` the type `ancestor` or one of its descendants?
pub fn is_instance(index: i32, ancestor: i32) -> bool {
    if index == ancestor {
        return true;
    }
    let (Some(info), Some(target)) = (type_info(index), type_info(ancestor)) else {
        return false;
    };
    if target.type_depth >= info.type_depth {
        return false;
    }
    // SAFETY: ancestor arrays hold `type_depth` valid pointers.
    unsafe { (*info.type_ancestors.add(target.type_depth as usize)).as_ref() }
        .is_some_and(|a| a.type_index == ancestor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(parent: i32, depth: i32, slots: i32) -> TypeSpec {
        TypeSpec {
            static_index: -1,
            depth,
            num_child_slots: slots,
            child_slots_can_overflow: true,
            parent_index: parent,
        }
    }

    #[test]
    fn static_types_are_registered() {
        assert_eq!(key_to_index(b"ffi.String"), Some(tindex::STR));
        assert_eq!(key_to_index(b"ffi.Object"), Some(tindex::OBJECT));
        let info = type_info(tindex::STR).unwrap();
        assert_eq!(info.type_depth, 1);
        assert_eq!(
            unsafe { (**info.type_ancestors).type_index },
            tindex::OBJECT
        );
        assert_eq!(unsafe { byte_array_slice(&info.type_key) }, b"ffi.String");
    }

    #[test]
    fn allocation_is_idempotent_and_reserves_child_slots() {
        let base = get_or_alloc_index(b"unit.Base", spec(tindex::OBJECT, 1, 2)).unwrap();
        assert!(base >= tindex::DYN_OBJECT_BEGIN);
        assert_eq!(
            get_or_alloc_index(b"unit.Base", spec(tindex::OBJECT, 1, 2)).unwrap(),
            base
        );
        let child = get_or_alloc_index(b"unit.Child", spec(base, 2, 0)).unwrap();
        assert_eq!(child, base + 1, "first child takes the first reserved slot");
        assert!(
            is_instance(child, base)
                && is_instance(child, tindex::OBJECT)
                && !is_instance(base, child)
        );
        assert_eq!(
            get_or_alloc_index(b"unit.Unknown", spec(NOT_FOUND_QUERY, 1, 0)).unwrap(),
            NOT_FOUND_QUERY
        );
    }

    #[test]
    fn type_info_pointers_are_stable() {
        let index = get_or_alloc_index(b"unit.Stable", spec(tindex::OBJECT, 1, 0)).unwrap();
        let before = type_info(index).unwrap() as *const TVMFFITypeInfo;
        for i in 0..200 {
            get_or_alloc_index(
                format!("unit.Filler{i}").as_bytes(),
                spec(tindex::OBJECT, 1, 0),
            )
            .unwrap();
        }
        assert_eq!(type_info(index).unwrap() as *const TVMFFITypeInfo, before);
    }

    #[test]
    fn attr_columns_keep_their_address() {
        register_attr(0, b"unit.attr", &RAW_NONE).unwrap();
        let column = attr_column(b"unit.attr").unwrap() as *const TVMFFITypeAttrColumn;
        register_attr(300, b"unit.attr", Any::int(7).as_raw()).unwrap();
        assert_eq!(
            attr_column(b"unit.attr").unwrap() as *const TVMFFITypeAttrColumn,
            column
        );
        assert_eq!(unsafe { (*column).size }, 301);
        let err = register_attr(300, b"unit.attr", Any::int(8).as_raw()).unwrap_err();
        assert_eq!(err.kind(), b"RuntimeError");
        assert_eq!(
            attr_value(b"unit.attr", 300).map(|v| unsafe { v.as_raw().value.v_int64 }),
            Some(7)
        );
    }
}
