//! `ffi.Enum` for both of its schemas (ADR 0013).
//!
//! Releases 0.1.11 and 0.1.12 name the enum fields `_value` (the ordinal, an int at +24) and
//! `_name` (a String at +32) and keep each enum class's entries in the type attributes
//! `__ffi_enum_entries__` (`Dict[str, Enum]`, name to singleton) and `__ffi_enum_attrs__`
//! (`Dict[str, List[Any]]`, attribute name to a list indexed by ordinal). From 0.1.13 the same
//! storage is named `_int_index` and `_str_index`, and a class's entries live in one
//! `ffi.EnumState` in `__ffi_enum__` (`entries` in order, `indexes` from both canonical indices,
//! `attrs` keyed by singleton). For a plain enum the values are the same: the ordinal and the
//! name.
//!
//! - The field names: only bindings read them, and a process has one Python package. `ffi.Enum`
//!   presents the names of 0.1.13+, and those of 0.1.11/0.1.12 when the process's Python package
//!   is one of those releases ([`before_type_info_read`]). Both Python packages warn about
//!   reflected fields their class does not declare, so one set of names cannot serve both.
//! - The entries: both forms are kept in step at the points where a consumer asks for an enum
//!   column (`TVMFFIGetTypeAttrColumn`, which bindings call on every access) and where the
//!   runtime reads one (JSON graphs): entries and attributes added to either form since are
//!   copied into the other, and the newer form is made for a class that has only the older one
//!   (see [`sync_class`] for why not the reverse).

use crate::abi::TVMFFIFieldInfo;
use crate::containers::map::Dict;
use crate::containers::seq::List;
use crate::registry::reflection::{init_field, new_reflected, read_field, Accessor};
use crate::registry::types::runtime_index::{ENUM, ENUM_STATE};
use crate::registry::types::TypeRegistrar;
use crate::tindex;
use crate::value::any::{byte_array, Any, RAW_NONE};
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::cell::Cell;
use std::sync::{Mutex, OnceLock};

/// The column of the 0.1.13+ schema: one `ffi.EnumState` per enum class.
const STATE_COLUMN: &[u8] = b"__ffi_enum__";
/// The columns of the 0.1.11/0.1.12 schema: name to singleton, attribute name to a list indexed
/// by ordinal, payload to singleton (the last one is filled by those releases' Python payload
/// enums only and has no counterpart in the later schema).
const ENTRIES_COLUMN: &[u8] = b"__ffi_enum_entries__";
const ATTRS_COLUMN: &[u8] = b"__ffi_enum_attrs__";
const VALUE_ENTRIES_COLUMN: &[u8] = b"__ffi_enum_value_entries__";

/// Offsets in enum singletons and in `ffi.EnumState`.
const INT_INDEX: usize = 24;
const STR_INDEX: usize = 32;
const STATE_ENTRIES: usize = 24;
const STATE_INDEXES: usize = 32;
const STATE_ATTRS: usize = 40;

/// Ordinals above this are not list positions (an IntEnum's payload read as `_value`).
const MAX_ORDINAL: i64 = 1 << 20;

/// Whether a lookup of column `name` must bring both enum forms in step first.
pub(crate) fn is_enum_column(name: &[u8]) -> bool {
    [STATE_COLUMN, ENTRIES_COLUMN, ATTRS_COLUMN].contains(&name)
}

/// Registers the columns of the older schema, which the runtime of 0.1.11/0.1.12 made at
/// startup: their header code caches a column's address on first use, so the column must exist
/// before any entry does.
pub(crate) fn register(registrar: &mut TypeRegistrar) -> Result<(), Error> {
    for column in [ENTRIES_COLUMN, ATTRS_COLUMN, VALUE_ENTRIES_COLUMN] {
        registrar.register_attr(tindex::NONE, column, &RAW_NONE)?;
    }
    Ok(())
}

/// `ffi.Enum`'s field records as releases 0.1.11 and 0.1.12 register them: the storage of
/// `_int_index` and `_str_index` under the older names. Made once (see
/// [`before_type_info_read`]) and kept for the process, like every type record.
fn older_fields() -> &'static [TVMFFIFieldInfo] {
    let field = |name: &'static str,
                 doc: &'static str,
                 metadata: &'static str,
                 flags,
                 offset,
                 accessor: Accessor,
                 size,
                 static_index| TVMFFIFieldInfo {
        name: byte_array(name.as_bytes()),
        doc: byte_array(doc.as_bytes()),
        metadata: byte_array(metadata.as_bytes()),
        flags,
        size,
        alignment: 8,
        offset,
        getter: Some(accessor.getter()),
        setter: accessor.setter() as *mut std::ffi::c_void,
        default_value_or_factory: RAW_NONE,
        field_static_type_index: static_index,
    };
    Box::leak(Box::new([
        field(
            "_value",
            "Ordinal assigned at registration.",
            r#"{"type_schema":"{\"type\":\"int\"}"}"#,
            crate::abi::TVMFFIFieldFlagBitMask::kTVMFFIFieldFlagBitMaskSEqHashIgnore as i64,
            INT_INDEX as i64,
            Accessor::I64,
            8,
            tindex::INT,
        ),
        field(
            "_name",
            "Instance name.",
            r#"{"type_schema":"{\"type\":\"ffi.String\"}"}"#,
            0,
            STR_INDEX as i64,
            Accessor::Any,
            16,
            tindex::ANY,
        ),
    ]))
}

/// Whether `ffi.Enum` presents the field names of 0.1.11/0.1.12, once decided.
static OLDER_NAMES: OnceLock<bool> = OnceLock::new();

/// Decides, when a consumer first reads `ffi.Enum`'s type information after a Python package
/// loaded, which field names `ffi.Enum` presents for the rest of the process. The Python
/// packages of 0.1.13 and later install a custom object allocator when they load (that release
/// introduced both the allocator and the `ffi.EnumState` schema); those of 0.1.11/0.1.12 register
/// their interpreter hooks and install none. Before any Python package loaded (C++, Rust and
/// ffihub's own bindings), the names of 0.1.13+ stay.
pub(crate) fn before_type_info_read(type_index: i32) {
    if type_index != ENUM
        || OLDER_NAMES.get().is_some()
        || !crate::value::env::python_host_registered()
    {
        return;
    }
    OLDER_NAMES.get_or_init(|| {
        let older = !crate::value::env::custom_allocator_installed();
        // The registry holds ffi.Enum from startup; nothing else can fail here.
        older && crate::registry::types::present_fields(ENUM, older_fields()).is_ok()
    });
}

/// Brings the two forms of every enum class that has the older one in step (`wanted` is the
/// column about to be read, see [`is_enum_column`]). A class whose columns hold something else
/// than their schema says is left as it is.
pub(crate) fn sync(wanted: &[u8]) {
    static SYNC: Mutex<()> = Mutex::new(());
    thread_local! {
        /// Set while this thread syncs: a lookup made from inside (a hashing hook of a key the
        /// merge inserts, calling back into a binding) reads the forms as they are.
        static SYNCING: Cell<bool> = const { Cell::new(false) };
    }
    /// Clears the flag however the sync ends.
    struct Syncing;
    impl Drop for Syncing {
        fn drop(&mut self) {
            SYNCING.set(false);
        }
    }
    if SYNCING.replace(true) {
        return;
    }
    let _syncing = Syncing;
    let _guard = SYNC.lock().unwrap_or_else(|e| e.into_inner());
    for (class, _) in crate::registry::types::attr_values(ENTRIES_COLUMN) {
        // Deliberately ignored: one malformed class must not fail another's lookup.
        let _ = sync_class(class, wanted);
    }
}

/// An object attribute of `class` in `column`, if it is one of type `type_index`.
fn attr_object(column: &[u8], class: i32, type_index: i32) -> Option<ObjectRef> {
    let value = crate::registry::types::attr_value(column, class)?;
    value
        .as_object()
        .filter(|obj| obj.type_index() == type_index)
        .cloned()
}

/// Registers `value` as `class`'s attribute in `column` and returns it.
fn register_attr(column: &[u8], class: i32, value: ObjectRef) -> Result<ObjectRef, Error> {
    crate::registry::types::register_attr(class, column, Any::object(value.clone()).as_raw())?;
    Ok(value)
}

fn object_field(obj: &ObjectRef, offset: usize) -> Result<ObjectRef, Error> {
    read_field(obj.as_ptr(), offset, Accessor::ObjectRef)
        .as_object()
        .cloned()
        .ok_or_else(|| Error::new("ValueError", "an ffi.EnumState field is null"))
}

fn list_of(obj: ObjectRef) -> Result<List, Error> {
    List::from_object(obj).map_err(|_| Error::new("TypeError", "expected an ffi.List"))
}

fn dict_of(obj: ObjectRef) -> Result<Dict, Error> {
    Dict::from_object(obj).map_err(|_| Error::new("TypeError", "expected an ffi.Dict"))
}

/// An enum singleton's canonical indices: (`_int_index`, `_str_index`).
fn indices(entry: &Any) -> Option<(i64, Any)> {
    let obj = entry.as_object()?;
    if !crate::registry::types::is_instance(obj.type_index(), ENUM) {
        return None;
    }
    let int_index = read_field(obj.as_ptr(), INT_INDEX, Accessor::I64);
    // SAFETY: the tag says the payload is an integer.
    let int_index = (int_index.type_index() == tindex::INT)
        .then(|| unsafe { int_index.as_raw().value.v_int64 })?;
    Some((
        int_index,
        read_field(obj.as_ptr(), STR_INDEX, Accessor::Any),
    ))
}

/// The two forms of one enum class.
struct Forms {
    entries: List,
    indexes: Dict,
    attrs: Dict,
    by_name: Dict,
    attr_lists: Option<Dict>,
}

/// Brings one class's forms in step. The newer form is made for a class that has only the older
/// one when it is asked for: header code of 0.1.13+ reads it from a column address it keeps. The
/// older form is never made for a class that has only the newer one: consumers of 0.1.11/0.1.12
/// register their (empty) form themselves before reading it, which merges the newer form's
/// entries in, and the suites of 0.1.13+ check that a class they define gets no older form.
/// A new, empty `ffi.EnumState` (what its `__ffi_init__` returns).
pub(crate) fn new_enum_state() -> Result<Any, Error> {
    let state = new_reflected(ENUM_STATE, 48);
    for (offset, constructor) in [
        (STATE_ENTRIES, "ffi.List"),
        (STATE_INDEXES, "ffi.Dict"),
        (STATE_ATTRS, "ffi.Dict"),
    ] {
        let container = crate::registry::globals::call(constructor, &[])?;
        init_field(&state, offset, Accessor::ObjectRef, &container)?;
    }
    Ok(Any::object(state))
}

fn sync_class(class: i32, wanted: &[u8]) -> Result<(), Error> {
    let Some(by_name) = attr_object(ENTRIES_COLUMN, class, tindex::DICT) else {
        return Ok(());
    };
    let state = match attr_object(STATE_COLUMN, class, ENUM_STATE) {
        Some(state) => state,
        None if wanted == STATE_COLUMN => {
            let state = new_enum_state()?;
            let state = state.as_object().cloned().expect("an EnumState object");
            register_attr(STATE_COLUMN, class, state)?
        }
        None => return Ok(()),
    };
    let attrs = dict_of(object_field(&state, STATE_ATTRS)?)?;
    let attr_lists = match attr_object(ATTRS_COLUMN, class, tindex::DICT) {
        Some(lists) => Some(lists),
        None if !attrs.is_empty() => Some(register_attr(
            ATTRS_COLUMN,
            class,
            Dict::new().into_object(),
        )?),
        None => None,
    };
    let mut forms = Forms {
        entries: list_of(object_field(&state, STATE_ENTRIES)?)?,
        indexes: dict_of(object_field(&state, STATE_INDEXES)?)?,
        attrs,
        by_name: dict_of(by_name)?,
        attr_lists: attr_lists.map(dict_of).transpose()?,
    };
    forms.merge_entries()?;
    forms.merge_attrs()
}

impl Forms {
    /// Entries of the state missing by name, and entries by name missing from the state, in
    /// registration order.
    fn merge_entries(&mut self) -> Result<(), Error> {
        for entry in self.entries.to_vec() {
            if let Some((_, name)) = indices(&entry) {
                if !self.by_name.contains(&name)? {
                    self.by_name.set(name, entry)?;
                }
            }
        }
        for (name, entry) in self.by_name.view().to_vec() {
            let Some((int_index, _)) = indices(&entry) else {
                continue;
            };
            if self.indexes.contains(&name)? {
                continue;
            }
            self.entries.push(entry.clone());
            self.indexes.set(name, entry.clone())?;
            let int_key = Any::int(int_index);
            if !self.indexes.contains(&int_key)? {
                self.indexes.set(int_key, entry)?;
            }
        }
        Ok(())
    }

    /// Attribute values set in one form for an entry that has none in the other.
    fn merge_attrs(&mut self) -> Result<(), Error> {
        let Some(lists) = &mut self.attr_lists else {
            return Ok(());
        };
        let entries = self.entries.to_vec();
        for (attr, column) in self.attrs.view().to_vec() {
            let column = dict_of(column.as_object().cloned().ok_or_else(not_a_dict)?)?;
            let mut list = match lists.get(&attr)? {
                Some(list) => list_of(list.as_object().cloned().ok_or_else(not_a_dict)?)?,
                None => {
                    let list = List::new();
                    lists.set(attr.clone(), list.clone().into_any())?;
                    list
                }
            };
            for (entry, value) in column.view().to_vec() {
                let Some((ordinal, _)) = indices(&entry) else {
                    continue;
                };
                if !(0..MAX_ORDINAL).contains(&ordinal) {
                    continue;
                }
                let slot = ordinal as usize;
                while list.len() <= slot {
                    list.push(Any::none());
                }
                if list
                    .get(slot)
                    .is_some_and(|v| v.type_index() == tindex::NONE)
                {
                    list.set(ordinal, value)?;
                }
            }
        }
        for (attr, list) in lists.view().to_vec() {
            let Ok(list) = list_of(list.as_object().cloned().ok_or_else(not_a_dict)?) else {
                continue;
            };
            let mut column = match self.attrs.get(&attr)? {
                Some(column) => dict_of(column.as_object().cloned().ok_or_else(not_a_dict)?)?,
                None => {
                    let column = Dict::new();
                    self.attrs.set(attr.clone(), column.clone().into_any())?;
                    column
                }
            };
            for (ordinal, value) in list.to_vec().into_iter().enumerate() {
                if value.type_index() == tindex::NONE {
                    continue;
                }
                let entry = entries
                    .iter()
                    .find(|e| indices(e).is_some_and(|(i, _)| i == ordinal as i64));
                if let Some(entry) = entry {
                    if !column.contains(entry)? {
                        column.set(entry.clone(), value)?;
                    }
                }
            }
        }
        Ok(())
    }
}

fn not_a_dict() -> Error {
    Error::new("TypeError", "an enum attribute column is not a container")
}
