//! Map (`ffi.Map`, copy-on-write) and Dict (`ffi.Dict`, mutated in place) with Apache TVM-FFI's
//! exact hash-table layout and algorithm.
//!
//! Header-only C++ code in extensions reads and mutates these objects directly, so a map built
//! here is probed by Apache's inline code and vice versa. Everything below mirrors
//! `tvm/ffi/container/map_base.h` step for step: the memory layout, the small form and its
//! growth (2 -> 4 slots, then dense), the dense table (Fibonacci hashing, blocks of 16 slots with
//! one metadata byte each, chains linked by 126 jump distances, spare-the-list-head relocation,
//! rehash to twice the slots), the insertion-ordered iteration list, and who frees which memory
//! (`data_deleter`).
//!
//! # Layout (x86-64)
//!
//! | offset | field | |
//! |---|---|---|
//! | 0 | `TVMFFIObject` header | type index 72 (Map) or 76 (Dict) |
//! | 24 | `data` | small: the `(key, value)` array; dense: the blocks |
//! | 32 | `size` | number of entries |
//! | 40 | `slots` | capacity; the most significant bit set means "small form" |
//! | 48 | `data_deleter` | frees `data` when it is not part of the object (NULL otherwise) |
//! | 56 | small: inline `(key, value)` pairs (32 bytes each); dense: `u32 fib_shift` | |
//! | 64 / 72 | dense: `iter_list_head` / `iter_list_tail` (slot indices, `u64::MAX` = none) | |
//!
//! A dense block is 16 metadata bytes followed by 16 items of 48 bytes
//! `{key, value, prev, next}`. Metadata: `0xFF` empty, `0xFE` protected (transiently unusable),
//! otherwise bit 7 clear for the head of a chain, and the low 7 bits index
//! [`NEXT_PROBE_LOCATION`] (0 = end of chain).
//!
//! # Foreign objects
//!
//! Objects created by C++ carry their own deleter; this module never frees them, it only
//! replaces their storage the way Apache's `InplaceSwitchTo` does: the old storage is released
//! through the object's `data_deleter`, and the new storage comes with this runtime's
//! `data_deleter`, which the C++ destructor later calls. Conversely our objects may get C++
//! storage (with C++ deleters) when header code grows them; our deleter honours it.
//!
//! # Concurrency
//!
//! Like Apache's containers, maps are not synchronized: concurrent mutation of one object (or
//! mutation concurrent with reads) from several threads must be prevented by the caller.

mod build;
mod layout;
mod table;
#[cfg(test)]
mod tests;

pub use layout::*;

use build::*;
use table::*;

use crate::abi::{TVMFFIAny, TVMFFIObject};
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::marker::PhantomData;

// ---------------------------------------------------------------------------------------------
// Safe API
// ---------------------------------------------------------------------------------------------

/// A borrowed map-like object: a Map or a Dict, created by this runtime or by foreign code.
#[derive(Clone, Copy)]
pub struct MapView<'a> {
    raw: Raw,
    _borrow: PhantomData<&'a ObjectRef>,
}

impl<'a> MapView<'a> {
    /// A view of `obj` if it is a Map or a Dict.
    pub fn new(obj: &'a ObjectRef) -> Option<MapView<'a>> {
        is_map_index(obj.type_index()).then(|| MapView {
            raw: Raw::of(obj),
            _borrow: PhantomData,
        })
    }

    /// A view of a raw object if it is a Map or a Dict.
    ///
    /// # Safety
    /// `obj` is a live object that stays alive for `'a`.
    pub unsafe fn from_raw(obj: *mut TVMFFIObject) -> Option<MapView<'a>> {
        is_map_index((*obj).type_index).then(|| MapView {
            raw: Raw(obj.cast()),
            _borrow: PhantomData,
        })
    }

    /// The object's raw fields (for layout checks).
    pub fn as_ptr(&self) -> *mut MapBaseObj {
        self.raw.0
    }

    /// The type index (Map or Dict).
    pub fn type_index(&self) -> i32 {
        // SAFETY: the view borrows a live map object.
        unsafe { self.raw.type_index() }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        // SAFETY: as for `type_index`.
        unsafe { self.raw.size() as usize }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the map is in the small form.
    pub fn is_small(&self) -> bool {
        // SAFETY: as for `type_index`.
        unsafe { self.raw.is_small() }
    }

    /// The capacity: the small array's length or the number of dense slots.
    pub fn slot_count(&self) -> u64 {
        // SAFETY: as for `type_index`.
        unsafe { (*self.raw.0).slots & !SMALL_TAG }
    }

    /// The value stored for `key`, as a new reference.
    pub fn get(&self, key: &Any) -> Result<Option<Any>, Error> {
        // SAFETY: an `Any` is a valid value.
        unsafe { self.get_raw(key.as_raw()) }
    }

    /// [`get`](Self::get) for a raw value or argument view.
    ///
    /// # Safety
    /// `key` is a valid value or view.
    #[inline]
    pub unsafe fn get_raw(&self, key: &TVMFFIAny) -> Result<Option<Any>, Error> {
        Ok(self
            .raw
            .find(key)?
            .map(|pos| (*self.raw.kv(pos)).value.clone()))
    }

    /// The stored key equal to `key` and its value, as new references.
    pub fn get_entry(&self, key: &Any) -> Result<Option<(Any, Any)>, Error> {
        // SAFETY: the view borrows a live map; positions from `find` hold entries.
        unsafe {
            Ok(self.raw.find(key.as_raw())?.map(|pos| {
                let kv = self.raw.kv(pos);
                ((*kv).key.clone(), (*kv).value.clone())
            }))
        }
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &Any) -> Result<bool, Error> {
        // SAFETY: an `Any` is a valid value.
        unsafe { self.contains_raw(key.as_raw()) }
    }

    /// [`contains`](Self::contains) for a raw value or argument view.
    ///
    /// # Safety
    /// `key` is a valid value or view.
    pub unsafe fn contains_raw(&self, key: &TVMFFIAny) -> Result<bool, Error> {
        Ok(self.raw.find(key)?.is_some())
    }

    /// The entries in Apache's iteration order (insertion order, with the quirks of each form),
    /// as new references.
    pub fn iter(&self) -> Iter<'a> {
        // SAFETY: the view borrows a live map.
        let (pos, end) = unsafe { (self.raw.begin(), self.raw.end()) };
        Iter {
            raw: self.raw,
            pos,
            end,
            remaining: self.len(),
            _borrow: PhantomData,
        }
    }

    /// The entries as a vector (see [`iter`](Self::iter)).
    pub fn to_vec(&self) -> Vec<(Any, Any)> {
        self.iter().collect()
    }

    /// A new Map (copy-on-write semantics) with the same layout and entries (Apache's
    /// `CopyFrom`).
    pub fn copy_to_map(&self) -> Result<Map, Error> {
        // SAFETY: the view borrows a live map.
        unsafe { copy_from(self.raw, tindex::MAP).map(Map) }
    }

    /// A new Dict holding the entries, built by insertion in iteration order (Apache's
    /// conversion of a Map argument to a Dict).
    pub fn copy_to_dict(&self) -> Result<Dict, Error> {
        let mut dict = Dict::new();
        for (key, value) in self.iter() {
            dict.set(key, value)?;
        }
        Ok(dict)
    }
}

/// Iterator over the entries of a map (new references). Robust against mutation during
/// iteration (it stops when its position no longer holds an entry).
pub struct Iter<'a> {
    raw: Raw,
    pos: u64,
    end: u64,
    remaining: usize,
    _borrow: PhantomData<&'a ObjectRef>,
}

impl Iterator for Iter<'_> {
    type Item = (Any, Any);

    fn next(&mut self) -> Option<(Any, Any)> {
        // SAFETY: the iterator borrows a live map; positions are validated before use.
        unsafe {
            if self.remaining == 0 || self.pos == self.end || !self.raw.valid(self.pos) {
                return None;
            }
            let kv = self.raw.kv(self.pos);
            let item = ((*kv).key.clone(), (*kv).value.clone());
            self.pos = self.raw.advance(self.pos);
            self.remaining -= 1;
            Some(item)
        }
    }
}

macro_rules! read_methods {
    () => {
        /// A borrowed view of the object.
        pub fn view(&self) -> MapView<'_> {
            MapView {
                raw: Raw::of(&self.0),
                _borrow: PhantomData,
            }
        }

        /// The underlying object.
        pub fn as_object(&self) -> &ObjectRef {
            &self.0
        }

        /// Gives up the wrapper, returning the object.
        pub fn into_object(self) -> ObjectRef {
            self.0
        }

        /// The object as an owned value.
        pub fn into_any(self) -> Any {
            Any::object(self.0)
        }

        /// Number of entries.
        pub fn len(&self) -> usize {
            self.view().len()
        }

        /// Whether there are no entries.
        pub fn is_empty(&self) -> bool {
            self.view().is_empty()
        }

        /// The value stored for `key`, as a new reference.
        pub fn get(&self, key: &Any) -> Result<Option<Any>, Error> {
            self.view().get(key)
        }

        /// Whether `key` is present.
        pub fn contains(&self, key: &Any) -> Result<bool, Error> {
            self.view().contains(key)
        }

        /// The entries in iteration order (new references).
        pub fn iter(&self) -> Iter<'_> {
            self.view().iter()
        }
    };
}

/// An `ffi.Map`: copy-on-write (mutating a shared map first copies it, like Apache's
/// `Map::Set`), so other holders never see changes.
#[derive(Clone, Debug)]
pub struct Map(ObjectRef);

impl Default for Map {
    fn default() -> Self {
        Map::new()
    }
}

impl Map {
    read_methods!();

    /// An empty map (small form, 2 slots).
    pub fn new() -> Map {
        Map(small_empty(SMALL_INIT_SLOTS, tindex::MAP))
    }

    /// A map of `pairs`, laid out as Apache's `Map(begin, end)` lays it out (later duplicates
    /// update earlier keys).
    pub fn from_pairs(pairs: impl IntoIterator<Item = (Any, Any)>) -> Result<Map, Error> {
        create_from_range(pairs.into_iter().collect(), tindex::MAP).map(Map)
    }

    /// A map made by inserting `pairs` one by one into an empty map, as `ffi.Map(k0, v0, ...)`
    /// makes it (later duplicates update earlier keys); the first error stops it.
    pub fn from_insertions(
        pairs: impl IntoIterator<Item = Result<(Any, Any), Error>>,
    ) -> Result<Map, Error> {
        build_by_insertion(tindex::MAP, pairs).map(Map)
    }

    /// Wraps an `ffi.Map` object (ours or foreign); other objects are given back.
    pub fn from_object(obj: ObjectRef) -> Result<Map, ObjectRef> {
        if obj.type_index() == tindex::MAP {
            Ok(Map(obj))
        } else {
            Err(obj)
        }
    }

    /// Is this handle the only strong reference (so the map may be written in place)?
    pub fn is_unique(&self) -> bool {
        self.0.is_unique()
    }

    fn copy_on_write(&mut self) -> Result<Raw, Error> {
        if !self.is_unique() {
            // SAFETY: the map is live; a shared map is only read here.
            self.0 = unsafe { copy_from(Raw::of(&self.0), tindex::MAP)? };
        }
        Ok(Raw::of(&self.0))
    }

    /// Sets `key` to `value` (Apache's `Map::Set`).
    pub fn set(&mut self, key: Any, value: Any) -> Result<(), Error> {
        let raw = self.copy_on_write()?;
        // SAFETY: `raw` is uniquely ours after copy-on-write.
        if let Some(grown) =
            unsafe { insert_maybe_rehash(raw, key, value, None, &mut SlotHashes::none())? }
        {
            self.0 = grown;
        }
        Ok(())
    }

    /// Removes `key` if present (Apache's `Map::erase`: copies a shared map first).
    pub fn erase(&mut self, key: &Any) -> Result<(), Error> {
        let raw = self.copy_on_write()?;
        // SAFETY: `raw` is uniquely ours after copy-on-write.
        let removed = unsafe { erase_key(raw, key.as_raw())? };
        drop(removed);
        Ok(())
    }

    /// Replaces the map with an empty one (Apache's `Map::clear`).
    pub fn clear(&mut self) {
        self.0 = small_empty(SMALL_INIT_SLOTS, tindex::MAP);
    }
}

/// An `ffi.Dict`: mutated in place, so every holder of the object sees changes. When it grows
/// beyond its storage, the object keeps its identity and takes over new storage (Apache's
/// `InplaceSwitchTo`).
#[derive(Clone, Debug)]
pub struct Dict(ObjectRef);

impl Default for Dict {
    fn default() -> Self {
        Dict::new()
    }
}

impl Dict {
    read_methods!();

    /// An empty dict (small form, 2 slots).
    pub fn new() -> Dict {
        Dict(small_empty(SMALL_INIT_SLOTS, tindex::DICT))
    }

    /// A dict of `pairs`, laid out as Apache's `Dict(begin, end)` lays it out.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (Any, Any)>) -> Result<Dict, Error> {
        create_from_range(pairs.into_iter().collect(), tindex::DICT).map(Dict)
    }

    /// A dict made by inserting `pairs` one by one into an empty dict, as `ffi.Dict(k0, v0,
    /// ...)` makes it; the first error stops it.
    pub fn from_insertions(
        pairs: impl IntoIterator<Item = Result<(Any, Any), Error>>,
    ) -> Result<Dict, Error> {
        build_by_insertion(tindex::DICT, pairs).map(Dict)
    }

    /// Wraps an `ffi.Dict` object (ours or foreign); other objects are given back.
    pub fn from_object(obj: ObjectRef) -> Result<Dict, ObjectRef> {
        if obj.type_index() == tindex::DICT {
            Ok(Dict(obj))
        } else {
            Err(obj)
        }
    }

    /// Sets `key` to `value` in place (Apache's `Dict::Set`).
    pub fn set(&mut self, key: Any, value: Any) -> Result<(), Error> {
        let raw = Raw::of(&self.0);
        // SAFETY: Dicts are mutated in place by design (see the module's concurrency note).
        unsafe {
            if let Some(grown) =
                insert_maybe_rehash(raw, key, value, None, &mut SlotHashes::none())?
            {
                inplace_switch_to(raw, grown)?;
            }
        }
        Ok(())
    }

    /// Removes `key` if present, in place.
    pub fn erase(&mut self, key: &Any) -> Result<(), Error> {
        // SAFETY: as for `set`.
        let removed = unsafe { erase_key(Raw::of(&self.0), key.as_raw())? };
        drop(removed);
        Ok(())
    }

    /// Removes every entry in place, keeping the storage (Apache's `Dict::clear`).
    pub fn clear(&mut self) {
        // SAFETY: as for `set`.
        let removed = unsafe { Raw::of(&self.0).clear() };
        drop(removed);
    }
}

/// A forward cursor over a map with the protocol of Apache's `MapForwardIterFunctor`: it starts
/// at the first entry; [`advance`](Cursor::advance) moves on and tells whether an entry is left.
/// The cursor keeps the map alive.
pub struct Cursor {
    map: ObjectRef,
    pos: u64,
    end: u64,
}

impl Cursor {
    /// A cursor at the first entry of a Map or Dict.
    pub fn new(map: ObjectRef) -> Option<Cursor> {
        let view = MapView::new(&map)?;
        // SAFETY: the view borrows a live map.
        let (pos, end) = unsafe { (view.raw.begin(), view.raw.end()) };
        Some(Cursor { map, pos, end })
    }

    fn entry(&self) -> Result<*mut KvPair, Error> {
        let raw = Raw::of(&self.map);
        // SAFETY: the cursor keeps the map alive; the position is validated before use.
        unsafe {
            if self.pos != self.end && raw.valid(self.pos) {
                Ok(raw.kv(self.pos))
            } else {
                Err(Error::new(
                    "IndexError",
                    "the map iterator is past the last entry",
                ))
            }
        }
    }

    /// The current key (new reference).
    pub fn key(&self) -> Result<Any, Error> {
        // SAFETY: `entry` returns a slot holding an entry.
        self.entry().map(|kv| unsafe { (*kv).key.clone() })
    }

    /// The current value (new reference).
    pub fn value(&self) -> Result<Any, Error> {
        // SAFETY: as for `key`.
        self.entry().map(|kv| unsafe { (*kv).value.clone() })
    }

    /// Replaces the current value where it is (the key, and so the layout, stay), returning
    /// the old one.
    ///
    /// # Safety
    /// Nobody may be reading the map meanwhile: the caller holds its only reference.
    pub unsafe fn replace_value(&self, value: Any) -> Result<Any, Error> {
        self.entry()
            .map(|kv| std::mem::replace(&mut (*kv).value, value))
    }

    /// Moves to the next entry; false once past the last one.
    pub fn advance(&mut self) -> bool {
        let raw = Raw::of(&self.map);
        // SAFETY: the cursor keeps the map alive; `advance` validates the position.
        unsafe {
            if self.pos != self.end {
                self.pos = raw.advance(self.pos);
            }
        }
        self.pos != self.end
    }
}
