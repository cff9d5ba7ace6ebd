//! Building a map from many pairs at once: `ffi.Map(k0, v0, ...)` and `ffi.Dict(...)` as Apache
//! inserts them one by one, computed with fewer steps (a dry run on the metadata, then one write
//! of the table).

use super::layout::*;
use super::table::*;
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::ptr;

/// Apache's `SmallMapBaseObj::CreateFromRange` (no duplicate check) into `n` slots.
pub(super) fn small_from_entries(n: u64, entries: Vec<(Any, Any)>, type_index: i32) -> ObjectRef {
    let obj = small_empty(n.max(entries.len() as u64), type_index);
    let raw = Raw::of(&obj);
    // SAFETY: the new object has room for every entry and nobody else sees it.
    unsafe {
        for (key, value) in entries {
            ptr::write(raw.small_kv(raw.size()), KvPair { key, value });
            (*raw.0).size += 1;
        }
    }
    obj
}

/// Apache's `MapBaseObj::CreateFromRange`: a new map holding `entries` (later duplicates
/// update earlier keys).
pub(super) fn create_from_range(
    entries: Vec<(Any, Any)>,
    type_index: i32,
) -> Result<ObjectRef, Error> {
    let cap = entries.len() as u64;
    if cap < SMALL_MAX_SLOTS {
        if cap < 2 {
            return Ok(small_from_entries(cap, entries, type_index));
        }
        let mut obj = small_empty(cap, type_index);
        for (key, value) in entries {
            // SAFETY: `obj` is a fresh small map only we see.
            if let Some(grown) = unsafe { small_insert(Raw::of(&obj), key, value)? } {
                obj = grown;
            }
        }
        Ok(obj)
    } else {
        let (fib_shift, n_slots) = calc_table_size(cap);
        let mut obj = dense_empty(fib_shift, n_slots, type_index)?;
        let mut hashes = SlotHashes::for_table_of(n_slots);
        for (key, value) in entries {
            // SAFETY: `obj` is a fresh dense map only we see.
            if let Some(grown) =
                unsafe { dense_insert(Raw::of(&obj), key, value, None, &mut hashes)? }
            {
                obj = grown;
            }
        }
        Ok(obj)
    }
}

/// A map of `type_index` made by inserting `pairs` one by one into an empty one, as
/// `ffi.Map(k0, v0, ...)` and `ffi.Dict(...)` make it (later duplicates update earlier keys):
/// the very table Apache's runtime builds, computed with fewer steps.
///
/// Apache's map grows by doubling, and each growth re-inserts every entry in iteration order
/// into the doubled table. While no key repeats, the iteration order is the insertion order, so
/// the table at any moment is "the pairs so far, inserted in order into an empty table of the
/// current size", and that size is the first of 8, 16, 32, ... into which the pairs all insert
/// without the table asking to grow. So the pairs are converted and hashed first, and a dry run
/// of the insertions on the metadata alone ([`Placement`], from the count's power of two on:
/// smaller tables cannot hold the keys) finds that size, each entry's slot, and that no two keys
/// can be equal. The table is then written once, slot after slot: no intermediate table, no
/// entry moved, no random writes into a table far larger than the CPU caches.
///
/// Where two keys may be equal, the entries are inserted for real ([`build_distinct`]), and a
/// repeated key ends the shortcut: the table is brought to the size Apache's would have for the
/// distinct keys before it, and the remaining pairs are inserted one by one, as Apache does (an
/// update moves its key to the end of the iteration order, which later growths follow). The
/// object is only ours until it is returned, so its dense table then keeps a hash cache, and
/// the slots the next entries will probe are prefetched while the current one is inserted.
///
/// Converting and hashing every pair before inserting any is invisible (converting and hashing
/// strings, bytes and plain values cannot fail after an insertion would have, and runs no
/// foreign code), except for keys of other object types, which may carry hash and equality
/// hooks: from the first such key on, pairs are converted, hashed and inserted one by one, in
/// Apache's order.
pub(super) fn build_by_insertion(
    type_index: i32,
    pairs: impl IntoIterator<Item = Result<(Any, Any), Error>>,
) -> Result<ObjectRef, Error> {
    let mut pairs = pairs.into_iter();
    let hashed = |(key, value): (Any, Any)| {
        // SAFETY: an `Any` is a valid owned value.
        let hash = unsafe { KeyHash::of(key.as_raw())? };
        Ok::<Hashed, Error>((key, value, hash))
    };
    // Keys whose hash or equality may run a type's own hook go in one by one, as in Apache's
    // loop, so that hooks run (and fail) in the same order: the shortcut takes the pairs before
    // the first such key.
    let mut entries = Vec::with_capacity(pairs.size_hint().0);
    let mut hooked = None;
    for pair in pairs.by_ref() {
        let (key, value) = pair?;
        if !hash_decides_equality(key.type_index()) {
            hooked = Some((key, value));
            break;
        }
        entries.push(hashed((key, value))?);
    }
    let mut map = Building::new(type_index);
    if entries.len() as u64 > SMALL_MAX_SLOTS {
        if let Some(plan) = plan_table(&entries) {
            let table = materialize(&plan, &mut entries, type_index)?;
            map = Building::of_table(type_index, table, SlotHashes::none())?;
        }
    }
    let mut entries = entries.into_iter();
    if entries.len() as u64 > SMALL_MAX_SLOTS {
        let repeated;
        (map, repeated) = build_distinct(type_index, &mut entries)?;
        if let Some(entry) = repeated {
            map.insert(entry)?;
        }
    }
    while let Some(entry) = entries.next() {
        if let Some(later) = entries.as_slice().get(AHEAD) {
            map.prefetch(later.2.hash);
        }
        map.insert(entry)?;
    }
    for pair in hooked.map(Ok).into_iter().chain(pairs) {
        map.insert(hashed(pair?)?)?;
    }
    Ok(map.obj)
}

/// A pair converted to owned values, with its key's hash.
pub(super) type Hashed = (Any, Any, KeyHash);

/// A map being built by [`build_by_insertion`], holding what Apache's would hold after the
/// same pairs.
struct Building {
    type_index: i32,
    /// The map; a Dict keeps its identity while its storage changes (as `Dict::set` does).
    obj: ObjectRef,
    /// The cache of `obj`'s dense table; it follows the storage it describes.
    hashes: SlotHashes,
}

impl Building {
    pub(super) fn new(type_index: i32) -> Building {
        Building {
            type_index,
            obj: small_empty(SMALL_INIT_SLOTS, type_index),
            hashes: SlotHashes::none(),
        }
    }

    /// A map holding the dense table `table` (a new Dict object takes over its storage).
    pub(super) fn of_table(
        type_index: i32,
        table: ObjectRef,
        hashes: SlotHashes,
    ) -> Result<Building, Error> {
        let obj = if type_index == tindex::DICT {
            let dict = small_empty(SMALL_INIT_SLOTS, type_index);
            // SAFETY: both objects are only ours.
            unsafe { inplace_switch_to(Raw::of(&dict), table)? };
            dict
        } else {
            table
        };
        Ok(Building {
            type_index,
            obj,
            hashes,
        })
    }

    /// Apache's `Set` of one entry.
    fn insert(&mut self, (key, value, hash): Hashed) -> Result<(), Error> {
        let raw = Raw::of(&self.obj);
        // SAFETY: nobody else sees `obj` yet.
        unsafe {
            if let Some(grown) = insert_maybe_rehash(raw, key, value, Some(hash), &mut self.hashes)?
            {
                if self.type_index == tindex::DICT {
                    inplace_switch_to(raw, grown)?;
                } else {
                    self.obj = grown;
                }
            }
        }
        Ok(())
    }

    /// Prefetches what inserting a key of `hash` reads first, when the table is large enough
    /// for that to matter.
    pub(super) fn prefetch(&self, hash: u64) {
        let raw = Raw::of(&self.obj);
        // SAFETY: `obj` is a live map; a large dense table has storage.
        unsafe {
            if !raw.is_small() && raw.slots() >= CACHE_MIN_SLOTS {
                prefetch_probe(raw, hash, &self.hashes);
            }
        }
    }
}

/// The shortcut of [`build_by_insertion`] for more entries than a small map holds when two keys
/// may be equal: inserts them into a dense table sized for their count (growing as Apache's
/// does) as long as their keys are new. At a repeated key it stops, brings the table to the size
/// Apache's has before that key, and returns the key's entry with the map.
fn build_distinct(
    type_index: i32,
    entries: &mut std::vec::IntoIter<Hashed>,
) -> Result<(Building, Option<Hashed>), Error> {
    let start = first_table_size(entries.len() as u64);
    let mut table = dense_empty(64 - start.trailing_zeros(), start, type_index)?;
    let mut hashes = SlotHashes::for_table_of(start);
    let prefetching = start >= CACHE_MIN_SLOTS;
    if prefetching {
        for later in entries.as_slice().iter().take(AHEAD) {
            // SAFETY: the table is a live dense map with storage.
            unsafe { prefetch_probe(Raw::of(&table), later.2.hash, &hashes) };
        }
    }
    let mut inserted: u64 = 0;
    let mut repeated = None;
    while let Some(entry) = entries.next() {
        if prefetching {
            if let Some(later) = entries.as_slice().get(AHEAD - 1) {
                // SAFETY: as above (the table only grows).
                unsafe { prefetch_probe(Raw::of(&table), later.2.hash, &hashes) };
            }
        }
        // SAFETY: the table is only ours.
        match unsafe { dense_insert_new(Raw::of(&table), entry, &mut hashes)? } {
            Ok(grown) => {
                if let Some(grown) = grown {
                    table = grown;
                }
                inserted += 1;
            }
            Err((entry, _)) => {
                repeated = Some(entry);
                break;
            }
        }
    }
    if repeated.is_none() {
        return Ok((Building::of_table(type_index, table, hashes)?, None));
    }
    if inserted <= SMALL_MAX_SLOTS {
        // Apache's map is still small: replay the few entries.
        let mut map = Building::new(type_index);
        // SAFETY: the table is only ours.
        for entry in unsafe { take_entries(Raw::of(&table), &mut hashes)? } {
            map.insert(entry)?;
        }
        return Ok((map, repeated));
    }
    // Apache's table for the keys so far is the first size from their count's power of two on
    // that holds them all: the same process as this table's, if it started there.
    let size = first_table_size(inserted);
    if size != start {
        // SAFETY: as above.
        table = unsafe { rehash_into(Raw::of(&table), &mut hashes, size)? };
    }
    Ok((Building::of_table(type_index, table, hashes)?, repeated))
}

/// The first dense table size that can hold `count` distinct keys, on the way of Apache's
/// doublings (8, 16, 32, ...): every smaller one is too small for them.
fn first_table_size(count: u64) -> u64 {
    count
        .checked_next_power_of_two()
        .unwrap_or(SMALL_TAG)
        .max(2 * SMALL_MAX_SLOTS)
}

/// The table Apache's map ends in after inserting `entries` one by one, planned on the
/// metadata alone when their keys are distinct: the first of Apache's sizes, from the count's
/// power of two on, into which a [`Placement`] dry run inserts them all. None when two keys may
/// be equal (then only real insertions can tell) or no dry run is possible.
pub(super) fn plan_table(entries: &[Hashed]) -> Option<Plan> {
    let mut slots = first_table_size(entries.len() as u64);
    loop {
        let mut placement = Placement::new(entries, slots)?;
        let mut fits = true;
        for idx in 0..entries.len() {
            if let Some(later) = entries.get(idx + AHEAD) {
                placement.prefetch(later.2.hash);
            }
            match placement.insert(idx)? {
                Step::Inserted => {}
                Step::Grow => {
                    fits = false;
                    break;
                }
                Step::MaybeRepeated => return None,
            }
        }
        if fits {
            return Some(Plan {
                meta: placement.meta,
                entry: placement.entry,
                fib_shift: placement.fib_shift,
            });
        }
        slots = slots.checked_mul(2)?;
    }
}

/// The dense table of a successful [`plan_table`], holding `entries` (moved out of the
/// vector, which is left empty) linked in their order. The table is written from the first
/// slot to the last.
fn materialize(
    plan: &Plan,
    entries: &mut Vec<Hashed>,
    type_index: i32,
) -> Result<ObjectRef, Error> {
    let slots = plan.meta.len() as u64;
    let n = entries.len();
    // Where each entry goes; a plan places each entry exactly once (checked before anything
    // moves, so that no entry is dropped twice or lost).
    const NOWHERE: u32 = u32::MAX;
    let mut slot_of = vec![NOWHERE; n];
    let mut placed = 0;
    for slot in 0..slots as usize {
        let meta = plan.meta[slot];
        if meta == EMPTY_SLOT {
            continue;
        }
        let idx = plan.entry[slot] as usize;
        if meta == PROTECTED_SLOT || idx >= n || slot_of[idx] != NOWHERE {
            return Err(corrupted("inconsistent placement plan"));
        }
        slot_of[idx] = slot as u32;
        placed += 1;
    }
    if placed != n || n == 0 {
        return Err(corrupted("inconsistent placement plan"));
    }
    let table = dense_empty(plan.fib_shift, slots, type_index)?;
    let raw = Raw::of(&table);
    let link = |idx: Option<usize>| idx.map_or(INVALID_INDEX, |i| u64::from(slot_of[i]));
    // SAFETY: the table is only ours and has `slots` slots; every entry is read exactly once
    // (checked above), and the vector forgets them afterwards.
    unsafe {
        let source = entries.as_ptr();
        for slot in 0..slots as usize {
            if let Some(&ahead) = plan.entry.get(slot + 2 * AHEAD) {
                if plan.meta[slot + 2 * AHEAD] != EMPTY_SLOT {
                    prefetch(source.add(ahead as usize));
                }
            }
            let meta = plan.meta[slot];
            if meta == EMPTY_SLOT {
                continue;
            }
            let idx = plan.entry[slot] as usize;
            let (key, value, _) = ptr::read(source.add(idx));
            *raw.meta(slot as u64) = meta;
            ptr::write(
                raw.item(slot as u64),
                DenseItem {
                    kv: KvPair { key, value },
                    prev: link(idx.checked_sub(1)),
                    next: link(Some(idx + 1).filter(|&i| i < n)),
                },
            );
        }
        entries.set_len(0);
        (*raw.0).size = n as u64;
        (*raw.dense()).iter_list_head = link(Some(0));
        (*raw.dense()).iter_list_tail = link(Some(n - 1));
    }
    Ok(table)
}

/// The outcome of a successful [`Placement`]: each slot's metadata byte and entry index.
pub(super) struct Plan {
    pub(super) meta: Vec<u8>,
    entry: Vec<u32>,
    fib_shift: u32,
}

/// What a [`Placement`] insertion did.
enum Step {
    Inserted,
    /// Apache's table would grow instead.
    Grow,
    /// The key's chain holds a key of equal hash and fingerprint: maybe the same key.
    MaybeRepeated,
}

/// A dry run of Apache's dense insertion (`TryInsert`, `TrySpareListHead`) of `entries` into an
/// empty table: only the metadata bytes and, per slot, the index of its entry and a 16-bit tag
/// of its key's hash and fingerprint, 7 bytes a slot instead of the table's 49, so that it
/// mostly stays in the CPU caches where the table would not. Walking a key's chain compares its
/// hash and fingerprint with each entry's (where the tags match), as the real insertion compares
/// keys, so a dry run that inserts every entry proves the keys distinct.
struct Placement<'e> {
    entries: &'e [Hashed],
    meta: Vec<u8>,
    entry: Vec<u32>,
    tag: Vec<u16>,
    fib_shift: u32,
    size: u64,
}

/// A 16-bit digest of a key's hash and fingerprint (equal keys have equal tags).
#[inline]
fn key_tag(hash: KeyHash) -> u16 {
    ((hash.hash ^ hash.fingerprint.rotate_left(29)).wrapping_mul(FIB_COEFF) >> 48) as u16
}

impl<'e> Placement<'e> {
    /// An empty table of `slots` slots (a power of two), if slot and entry numbers fit 32 bits.
    pub(super) fn new(entries: &'e [Hashed], slots: u64) -> Option<Placement<'e>> {
        if slots > 1 << 32 || !slots.is_power_of_two() || entries.len() > u32::MAX as usize {
            return None;
        }
        Some(Placement {
            entries,
            meta: vec![EMPTY_SLOT; slots as usize],
            entry: vec![0; slots as usize],
            tag: vec![0; slots as usize],
            fib_shift: 64 - slots.trailing_zeros(),
            size: 0,
        })
    }

    pub(super) fn slots(&self) -> u64 {
        self.meta.len() as u64
    }

    pub(super) fn is_full(&self) -> bool {
        (self.size + 1) as f64 > self.slots() as f64 * MAX_LOAD_FACTOR
    }

    fn hash_at(&self, slot: u64) -> KeyHash {
        self.entries[self.entry[slot as usize] as usize].2
    }

    pub(super) fn next_in_chain(&self, i: u64) -> Option<u64> {
        let offset = *NEXT_PROBE_LOCATION.get((self.meta[i as usize] & 0x7F) as usize)?;
        (offset != 0).then(|| i.wrapping_add(offset) & (self.slots() - 1))
    }

    pub(super) fn next_empty(&self, i: u64) -> Option<(u8, u64)> {
        (1..NUM_JUMP_DISTS).find_map(|jump| {
            let candidate = i.wrapping_add(NEXT_PROBE_LOCATION[jump]) & (self.slots() - 1);
            (self.meta[candidate as usize] == EMPTY_SLOT).then_some((jump as u8, candidate))
        })
    }

    pub(super) fn place(&mut self, i: u64, meta: u8, idx: u32, tag: u16) {
        self.meta[i as usize] = meta;
        self.entry[i as usize] = idx;
        self.tag[i as usize] = tag;
    }

    /// Prefetches what inserting a key of `hash` reads first.
    pub(super) fn prefetch(&self, hash: u64) {
        let head = fib_hash(hash, self.fib_shift) as usize;
        prefetch(self.meta.as_ptr().wrapping_add(head));
        prefetch(self.tag.as_ptr().wrapping_add(head));
    }

    pub(super) fn set_jump(&mut self, i: u64, jump: u8) {
        let meta = &mut self.meta[i as usize];
        *meta = (*meta & 0x80) | jump;
    }

    /// Inserts entry `idx`; None if the table is inconsistent (it never is).
    fn insert(&mut self, idx: usize) -> Option<Step> {
        let hash = self.entries.get(idx)?.2;
        let (idx, tag) = (idx as u32, key_tag(hash));
        let head = fib_hash(hash.hash, self.fib_shift);
        let meta = *self.meta.get(head as usize)?;
        if meta == EMPTY_SLOT {
            self.place(head, 0x00, idx, tag);
            self.size += 1;
            return Some(Step::Inserted);
        }
        if meta & 0x80 != 0 {
            if self.is_full() {
                return Some(Step::Grow);
            }
            return self.spare_list_head(head, idx, tag);
        }
        let mut tail = head;
        let mut steps = 0;
        loop {
            if self.tag[tail as usize] == tag && self.hash_at(tail) == hash {
                return Some(Step::MaybeRepeated);
            }
            match self.next_in_chain(tail) {
                Some(next) => tail = next,
                None => break,
            }
            steps += 1;
            if steps > self.slots() {
                return None;
            }
        }
        if self.is_full() {
            return Some(Step::Grow);
        }
        let Some((jump, empty)) = self.next_empty(tail) else {
            return Some(Step::Grow);
        };
        self.place(empty, 0x80, idx, tag);
        self.set_jump(tail, jump);
        self.size += 1;
        Some(Step::Inserted)
    }

    /// `TrySpareListHead`: moves the chain tail starting at `target` away so that `target` can
    /// head the chain of entry `idx`.
    fn spare_list_head(&mut self, target: u64, idx: u32, tag: u16) -> Option<Step> {
        let mut w = fib_hash(self.hash_at(target).hash, self.fib_shift);
        let mut steps = 0;
        loop {
            let next = self.next_in_chain(w)?;
            if next == target {
                break;
            }
            w = next;
            steps += 1;
            if steps > self.slots() {
                return None;
            }
        }
        let mut r = target;
        let mut first = true;
        loop {
            let Some((jump, empty)) = self.next_empty(w) else {
                return Some(Step::Grow);
            };
            let (moved, moved_tag) = (self.entry[r as usize], self.tag[r as usize]);
            self.place(empty, 0x80, moved, moved_tag);
            let next = self.next_in_chain(r);
            self.meta[r as usize] = if first { PROTECTED_SLOT } else { EMPTY_SLOT };
            first = false;
            self.set_jump(w, jump);
            w = empty;
            match next {
                Some(next) => r = next,
                None => break,
            }
        }
        self.place(target, 0x00, idx, tag);
        self.size += 1;
        Some(Step::Inserted)
    }
}
