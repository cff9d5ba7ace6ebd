//! The hash table's primitives on a raw map object (ours or foreign): probing, chains, the
//! iteration list, insertion, erasure, growth and copies, step for step as Apache's.

use super::build::*;
use super::layout::*;
use crate::abi::TVMFFIAny;
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::ptr;

/// A raw map object (ours or foreign). Every method requires a live map object whose fields are
/// consistent, and that nobody else mutates it meanwhile.
#[derive(Clone, Copy)]
pub(super) struct Raw(pub(super) *mut MapBaseObj);

impl Raw {
    pub(super) fn of(obj: &ObjectRef) -> Raw {
        Raw(obj.as_ptr().cast())
    }

    pub(super) unsafe fn type_index(self) -> i32 {
        (*self.0).header.type_index
    }

    pub(super) unsafe fn is_small(self) -> bool {
        (*self.0).slots & SMALL_TAG != 0
    }

    pub(super) unsafe fn size(self) -> u64 {
        (*self.0).size
    }

    unsafe fn small_slots(self) -> u64 {
        (*self.0).slots & !SMALL_TAG
    }

    /// Slots of the dense form.
    pub(super) unsafe fn slots(self) -> u64 {
        (*self.0).slots
    }

    pub(super) unsafe fn dense(self) -> *mut DenseMapObj {
        self.0.cast()
    }

    pub(super) unsafe fn small_kv(self, i: u64) -> *mut KvPair {
        (*self.0).data.cast::<KvPair>().add(i as usize)
    }

    pub(super) unsafe fn block(self, i: u64) -> *mut u8 {
        (*self.0)
            .data
            .cast::<u8>()
            .add((i / BLOCK_CAP) as usize * BLOCK_BYTES)
    }

    pub(super) unsafe fn meta(self, i: u64) -> *mut u8 {
        self.block(i).add((i % BLOCK_CAP) as usize)
    }

    pub(super) unsafe fn item(self, i: u64) -> *mut DenseItem {
        self.block(i)
            .add(BLOCK_CAP as usize + (i % BLOCK_CAP) as usize * std::mem::size_of::<DenseItem>())
            .cast()
    }

    pub(super) unsafe fn key<'b>(self, i: u64) -> &'b TVMFFIAny {
        (*self.item(i)).kv.key.as_raw()
    }

    /// Is dense slot `i` an existing, occupied slot?
    pub(super) unsafe fn occupied(self, i: u64) -> bool {
        if (*self.0).data.is_null() || i >= self.slots() {
            return false;
        }
        let meta = *self.meta(i);
        meta != EMPTY_SLOT && meta != PROTECTED_SLOT
    }

    // ----- lookup -----

    unsafe fn index_from_hash(self, hash: u64) -> Result<u64, Error> {
        let index = fib_hash(hash, (*self.dense()).fib_shift);
        if index >= self.slots() {
            return Err(corrupted("hash slot beyond the table"));
        }
        Ok(index)
    }

    /// `i % slots`, as Apache probes; a mask for the power-of-two tables both runtimes make.
    #[inline]
    unsafe fn wrap(self, i: u64) -> u64 {
        let slots = self.slots();
        if slots.is_power_of_two() {
            i & (slots - 1)
        } else {
            i % slots
        }
    }

    unsafe fn move_to_next(self, i: u64, meta: u8) -> Option<u64> {
        let jump = (meta & 0x7F) as usize;
        let offset = *NEXT_PROBE_LOCATION.get(jump)?;
        if offset == 0 {
            return None;
        }
        Some(self.wrap(i.wrapping_add(offset)))
    }

    pub(super) unsafe fn next_in_chain(self, i: u64) -> Option<u64> {
        self.move_to_next(i, *self.meta(i))
    }

    unsafe fn is_head(self, i: u64) -> bool {
        *self.meta(i) & 0x80 == 0
    }

    unsafe fn has_next(self, i: u64) -> bool {
        NEXT_PROBE_LOCATION
            .get((*self.meta(i) & 0x7F) as usize)
            .is_some_and(|&d| d != 0)
    }

    /// The position of the key that `matches` accepts: in the small array by a scan, in the
    /// dense table along the chain of `hash` (computed only there). `matches` receives stored
    /// keys, which are in their owned forms.
    #[inline(always)]
    unsafe fn search(
        self,
        hash: impl FnOnce() -> Result<u64, Error>,
        matches: impl Fn(&TVMFFIAny) -> Result<bool, Error>,
    ) -> Result<Option<u64>, Error> {
        if self.is_small() {
            for i in 0..self.size() {
                if matches((*self.small_kv(i)).key.as_raw())? {
                    return Ok(Some(i));
                }
            }
            return Ok(None);
        }
        if self.size() == 0 || self.slots() == 0 || (*self.0).data.is_null() {
            return Ok(None);
        }
        let mut node = self.index_from_hash(hash()?)?;
        if !self.is_head(node) {
            return Ok(None);
        }
        // A chain holds at most one entry per slot: one more is a cycle.
        for _ in 0..self.slots() {
            if matches(self.key(node))? {
                return Ok(Some(node));
            }
            match self.next_in_chain(node) {
                Some(next) => node = next,
                None => return Ok(None),
            }
        }
        Err(corrupted("cyclic chain"))
    }

    /// The previous element of `i` in its chain (`i` is not a head).
    unsafe fn find_prev(self, i: u64, hashes: &SlotHashes) -> Result<u64, Error> {
        let hash = match hashes.get(i) {
            Some(cached) => cached.hash,
            None => crate::containers::any_hash::any_hash(self.key(i))?,
        };
        let mut next = self.index_from_hash(hash)?;
        let mut prev = next;
        for _ in 0..=self.slots() {
            match self.next_in_chain(next) {
                Some(n) if n == i => return Ok(prev),
                Some(n) => {
                    prev = n;
                    next = n;
                }
                None => return Err(corrupted("slot missing from its chain")),
            }
        }
        Err(corrupted("cyclic chain"))
    }

    /// Position of `key`: an index in the small array or a dense slot.
    #[inline]
    pub(super) unsafe fn find(self, key: &TVMFFIAny) -> Result<Option<u64>, Error> {
        if crate::containers::any_hash::is_view_form(key.type_index) {
            return self.find_view(key);
        }
        self.find_owned(key)
    }

    /// [`find`](Self::find) of a view-only form. A raw string or byte array is looked up as the
    /// String or Bytes it stands for, without making one: in its small form when it fits, by
    /// its bytes otherwise.
    #[inline(never)]
    unsafe fn find_view(self, key: &TVMFFIAny) -> Result<Option<u64>, Error> {
        use crate::containers::any_hash::{equals_heap_text, heap_text_hash, view_text};
        match view_text(key) {
            Some((kind, bytes)) => match crate::value::string::small_text(kind, bytes) {
                Some(small) => self.find_owned(&small),
                None => self.search(
                    || Ok(heap_text_hash(kind, bytes)),
                    |stored| Ok(equals_heap_text(stored, kind, bytes)),
                ),
            },
            None => self.find_owned(crate::containers::any_hash::owned_form(key).as_raw()),
        }
    }

    /// [`find`](Self::find) of a key in its owned form.
    #[inline(never)]
    unsafe fn find_owned(self, key: &TVMFFIAny) -> Result<Option<u64>, Error> {
        self.search(
            || crate::containers::any_hash::hash_owned(key),
            |stored| crate::containers::any_hash::equal_owned(stored, key),
        )
    }

    pub(super) unsafe fn kv(self, pos: u64) -> *mut KvPair {
        if self.is_small() {
            self.small_kv(pos)
        } else {
            ptr::addr_of_mut!((*self.item(pos)).kv)
        }
    }

    // ----- iteration (Apache's iterator positions) -----

    pub(super) unsafe fn begin(self) -> u64 {
        if self.is_small() {
            0
        } else {
            (*self.dense()).iter_list_head
        }
    }

    pub(super) unsafe fn end(self) -> u64 {
        if self.is_small() {
            self.size()
        } else {
            INVALID_INDEX
        }
    }

    /// Is `pos` a position holding an entry right now?
    pub(super) unsafe fn valid(self, pos: u64) -> bool {
        if self.is_small() {
            pos < self.size()
        } else {
            self.occupied(pos)
        }
    }

    pub(super) unsafe fn advance(self, pos: u64) -> u64 {
        if self.is_small() {
            if pos + 1 < self.size() {
                pos + 1
            } else {
                self.size()
            }
        } else if self.occupied(pos) {
            (*self.item(pos)).next
        } else {
            INVALID_INDEX
        }
    }

    // ----- dense building blocks -----

    pub(super) unsafe fn is_full(self) -> bool {
        (self.size() + 1) as f64 > self.slots() as f64 * MAX_LOAD_FACTOR
    }

    pub(super) unsafe fn set_jump(self, i: u64, jump: u8) {
        let meta = self.meta(i);
        *meta = (*meta & 0x80) | jump;
    }

    unsafe fn write_item(self, i: u64, meta: u8, kv: KvPair) {
        *self.meta(i) = meta;
        ptr::write(
            self.item(i),
            DenseItem {
                kv,
                prev: INVALID_INDEX,
                next: INVALID_INDEX,
            },
        );
    }

    pub(super) unsafe fn next_empty(self, i: u64) -> Option<(u8, u64)> {
        (1..NUM_JUMP_DISTS).find_map(|jump| {
            let candidate = self.wrap(i.wrapping_add(NEXT_PROBE_LOCATION[jump]));
            (*self.meta(candidate) == EMPTY_SLOT).then_some((jump as u8, candidate))
        })
    }

    /// Points what follows `prev` (the list head when `prev` is none) at `after_prev`, and
    /// what precedes `next` (the tail when `next` is none) at `before_next`.
    unsafe fn iter_relink(self, prev: u64, after_prev: u64, next: u64, before_next: u64) {
        let dense = self.dense();
        if prev == INVALID_INDEX {
            (*dense).iter_list_head = after_prev;
        } else {
            (*self.item(prev)).next = after_prev;
        }
        if next == INVALID_INDEX {
            (*dense).iter_list_tail = before_next;
        } else {
            (*self.item(next)).prev = before_next;
        }
    }

    unsafe fn iter_unlink(self, n: u64) {
        let (prev, next) = ((*self.item(n)).prev, (*self.item(n)).next);
        self.iter_relink(prev, next, next, prev);
    }

    unsafe fn iter_push_back(self, n: u64) {
        let dense = self.dense();
        let tail = (*dense).iter_list_tail;
        (*self.item(n)).prev = tail;
        (*self.item(n)).next = INVALID_INDEX;
        if tail != INVALID_INDEX {
            (*self.item(tail)).next = n;
        }
        if (*dense).iter_list_head == INVALID_INDEX {
            (*dense).iter_list_head = n;
        }
        (*dense).iter_list_tail = n;
    }

    /// Puts `dst` in the iteration list where `src` is.
    unsafe fn iter_replace(self, src: u64, dst: u64) {
        let (prev, next) = ((*self.item(src)).prev, (*self.item(src)).next);
        (*self.item(dst)).prev = prev;
        (*self.item(dst)).next = next;
        self.iter_relink(prev, dst, next, dst);
    }

    /// Apache's `TryInsert` of an entry whose key hashes to `hash`: the slot now holding it (a
    /// new key's entry, with a None value), the slot of an equal key already present (nothing
    /// changes: Apache then unlinks it from the iteration list, see [`dense_insert`]), or the
    /// entry back when the table must grow.
    unsafe fn try_insert<'k>(
        self,
        entry: NewEntry<'k>,
        hash: KeyHash,
        hashes: &mut SlotHashes,
    ) -> Result<Result<Placed, NewEntry<'k>>, Error> {
        if self.slots() == 0 || (*self.0).data.is_null() {
            return Ok(Err(entry));
        }
        let head = self.index_from_hash(hash.hash)?;
        // Case 1: the slot is empty.
        if *self.meta(head) == EMPTY_SLOT {
            self.write_item(head, 0x00, entry.into_kv());
            hashes.set(head, hash);
            (*self.0).size += 1;
            return Ok(Ok(Placed::New(head)));
        }
        // Case 2: the slot belongs to another chain: move that chain away.
        if !self.is_head(head) {
            return if self.is_full() {
                Ok(Err(entry))
            } else {
                self.try_spare_list_head(head, entry, hash, hashes)
            };
        }
        // Case 3: the slot heads the key's chain.
        let mut tail = head;
        let mut next = Some(head);
        let mut steps = 0;
        while let Some(node) = next {
            if let NewEntry::Key(key) = &entry {
                if hashes.may_be_equal(node, hash, key)
                    && crate::containers::any_hash::any_equal(key.as_raw(), self.key(node))?
                {
                    return Ok(Ok(Placed::Existing(node)));
                }
            }
            tail = node;
            next = self.next_in_chain(node);
            steps += 1;
            if steps > self.slots() {
                return Err(corrupted("cyclic chain"));
            }
        }
        if self.is_full() {
            return Ok(Err(entry));
        }
        let Some((jump, empty)) = self.next_empty(tail) else {
            return Ok(Err(entry));
        };
        self.write_item(empty, 0x80, entry.into_kv());
        hashes.set(empty, hash);
        self.set_jump(tail, jump);
        (*self.0).size += 1;
        Ok(Ok(Placed::New(empty)))
    }

    /// Apache's `TrySpareListHead`: relocates the chain tail starting at `target` (which is not
    /// a head) so that `target` can head the new entry's chain.
    unsafe fn try_spare_list_head<'k>(
        self,
        target: u64,
        entry: NewEntry<'k>,
        hash: KeyHash,
        hashes: &mut SlotHashes,
    ) -> Result<Result<Placed, NewEntry<'k>>, Error> {
        // The only fallible step comes first, before anything moves.
        let mut w = self.find_prev(target, hashes)?;
        let mut r = target;
        let mut first = true;
        loop {
            let Some((jump, empty)) = self.next_empty(w) else {
                return Ok(Err(entry));
            };
            // Move r's entry to `empty`, which takes r's place in the iteration list.
            let kv = ptr::read(ptr::addr_of!((*self.item(r)).kv));
            self.write_item(empty, 0x80, kv);
            hashes.relocated(r, empty);
            self.iter_replace(r, empty);
            let r_meta = *self.meta(r);
            *self.meta(r) = if first { PROTECTED_SLOT } else { EMPTY_SLOT };
            first = false;
            self.set_jump(w, jump);
            w = empty;
            match self.move_to_next(r, r_meta) {
                Some(next) => r = next,
                None => break,
            }
        }
        self.write_item(target, 0x00, entry.into_kv());
        hashes.set(target, hash);
        (*self.0).size += 1;
        Ok(Ok(Placed::New(target)))
    }

    /// Apache's dense `Erase` of the entry in slot `i`; returns the removed entry.
    unsafe fn dense_erase(self, i: u64) -> Result<KvPair, Error> {
        if !self.has_next(i) {
            let prev = if self.is_head(i) {
                None
            } else {
                Some(self.find_prev(i, &SlotHashes::none())?)
            };
            (*self.0).size -= 1;
            if let Some(prev) = prev {
                self.set_jump(prev, 0);
            }
            self.iter_unlink(i);
            let removed = ptr::read(ptr::addr_of!((*self.item(i)).kv));
            *self.meta(i) = EMPTY_SLOT;
            Ok(removed)
        } else {
            // Move the chain's last entry into slot i and cut it off the chain.
            let mut prev = i;
            let mut last = self
                .next_in_chain(i)
                .ok_or_else(|| corrupted("broken chain"))?;
            let mut steps = 0;
            while self.has_next(last) {
                prev = last;
                last = self
                    .next_in_chain(last)
                    .ok_or_else(|| corrupted("broken chain"))?;
                steps += 1;
                if steps > self.slots() {
                    return Err(corrupted("cyclic chain"));
                }
            }
            (*self.0).size -= 1;
            self.iter_unlink(i);
            let removed = ptr::read(ptr::addr_of!((*self.item(i)).kv));
            let moved = ptr::read(ptr::addr_of!((*self.item(last)).kv));
            ptr::write(ptr::addr_of_mut!((*self.item(i)).kv), moved);
            self.iter_replace(last, i);
            *self.meta(last) = EMPTY_SLOT;
            self.set_jump(prev, 0);
            Ok(removed)
        }
    }

    /// Removes every entry, keeping the storage; returns the removed entries.
    pub(super) unsafe fn clear(self) -> Vec<KvPair> {
        let mut removed = Vec::with_capacity(self.size() as usize);
        if self.is_small() {
            for i in 0..self.size() {
                removed.push(ptr::read(self.small_kv(i)));
            }
            (*self.0).size = 0;
        } else {
            if !(*self.0).data.is_null() {
                let blocks = self.slots().div_ceil(BLOCK_CAP);
                for i in 0..blocks * BLOCK_CAP {
                    let meta = self.meta(i);
                    if *meta != EMPTY_SLOT && *meta != PROTECTED_SLOT {
                        *meta = EMPTY_SLOT;
                        removed.push(ptr::read(ptr::addr_of!((*self.item(i)).kv)));
                    }
                }
            }
            (*self.0).size = 0;
            (*self.dense()).iter_list_head = INVALID_INDEX;
            (*self.dense()).iter_list_tail = INVALID_INDEX;
        }
        removed
    }

    /// Apache's dense `ReleaseMemory`: frees the blocks without touching entries.
    unsafe fn release_memory(self) {
        let base = self.0;
        if !(*base).data.is_null() {
            if let Some(deleter) = (*base).data_deleter {
                deleter((*base).data);
            }
        }
        (*base).data = ptr::null_mut();
        (*base).data_deleter = None;
        (*base).slots = 0;
        (*base).size = 0;
        (*self.dense()).fib_shift = 63;
    }

    /// The occupied slots of a dense table in iteration order. The list is linked through the
    /// items, whose slots are scattered over the table; following it through a large table
    /// would wait on memory at every step, so the links are first read in one sequential pass.
    unsafe fn iteration_order(self) -> Vec<u64> {
        const VACANT: u64 = INVALID_INDEX - 1;
        let (slots, size) = (self.slots(), self.size() as usize);
        if (*self.0).data.is_null() || slots == 0 {
            return Vec::new();
        }
        let mut next = vec![VACANT; slots as usize];
        for (i, link) in next.iter_mut().enumerate() {
            let meta = *self.meta(i as u64);
            if meta != EMPTY_SLOT && meta != PROTECTED_SLOT {
                *link = (*self.item(i as u64)).next;
            }
        }
        let mut order = Vec::with_capacity(size);
        let mut pos = self.begin();
        while pos < slots && next[pos as usize] != VACANT && order.len() < size {
            order.push(pos);
            pos = next[pos as usize];
        }
        order
    }

    /// The entries in iteration order, as new references.
    unsafe fn cloned_entries(self) -> Vec<(Any, Any)> {
        let mut out = Vec::with_capacity(self.size() as usize);
        let (mut pos, end) = (self.begin(), self.end());
        while pos != end && self.valid(pos) && out.len() < self.size() as usize {
            let kv = self.kv(pos);
            out.push(((*kv).key.clone(), (*kv).value.clone()));
            pos = self.advance(pos);
        }
        out
    }
}

/// Where [`Raw::try_insert`] put a key.
#[derive(Clone, Copy)]
enum Placed {
    /// A new entry in this slot.
    New(u64),
    /// The key was already present, in this slot.
    Existing(u64),
}

/// What [`Raw::try_insert`] inserts.
enum NewEntry<'k> {
    /// A key that may already be present (its entry gets a None value when it is new).
    Key(&'k Any),
    /// An entry moved from another table while rehashing: its key is known to be absent, so
    /// no key is compared and no reference count changes.
    Moved(KvPair),
}

impl NewEntry<'_> {
    fn into_kv(self) -> KvPair {
        match self {
            NewEntry::Key(key) => KvPair {
                key: key.clone(),
                value: Any::none(),
            },
            NewEntry::Moved(kv) => kv,
        }
    }
}

/// The `any_hash` of a key, with a private fingerprint of its content (see
/// [`crate::containers::any_hash::content_fingerprint`]).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct KeyHash {
    pub(super) hash: u64,
    pub(super) fingerprint: u64,
}

impl KeyHash {
    /// # Safety
    /// `key` is a valid owned value.
    pub(super) unsafe fn of(key: &TVMFFIAny) -> Result<KeyHash, Error> {
        Ok(KeyHash {
            hash: crate::containers::any_hash::any_hash(key)?,
            fingerprint: crate::containers::any_hash::content_fingerprint(key),
        })
    }
}

/// The key hash of every occupied dense slot of a table only this runtime sees (one being
/// built or rehashed), kept beside the table, never in it: the object layout stays Apache's.
/// With it, chain walks compare only keys whose hash and fingerprint match (Apache's string
/// hash collides often, so the hash alone is not enough), and rehashing never reads a key
/// again: building a large map touches each key's memory about once instead of on every probe
/// and every regrowth. Each slot also records when its entry joined the iteration list, so that
/// the iteration order is found by one sequential pass instead of following the list through
/// memory. Maps others may have touched have no cache.
pub(super) struct SlotHashes(Option<SlotCache>);

/// The smallest table that gets a [`SlotHashes`] cache (and prefetching while building).
pub(super) const CACHE_MIN_SLOTS: u64 = 64;

struct SlotCache {
    slots: Vec<CachedSlot>,
    /// The sequence number of the next entry appended to the iteration list.
    next_seq: u64,
}

#[derive(Clone, Copy, Default)]
struct CachedSlot {
    hash: KeyHash,
    /// Order of appending to the iteration list (later entries have larger numbers).
    seq: u64,
}

impl SlotHashes {
    /// No cache.
    pub(super) fn none() -> SlotHashes {
        SlotHashes(None)
    }

    /// A cache for an empty table of `slots` slots, if the table is large enough to gain
    /// from one: a small table stays in the CPU caches, where probing and comparing are cheap
    /// and keeping the cache costs more than it saves.
    pub(super) fn for_table_of(slots: u64) -> SlotHashes {
        if slots < CACHE_MIN_SLOTS {
            SlotHashes::none()
        } else {
            SlotHashes::for_empty(slots)
        }
    }

    /// A cache for an empty table of `slots` slots.
    fn for_empty(slots: u64) -> SlotHashes {
        SlotHashes(Some(SlotCache {
            slots: vec![CachedSlot::default(); slots as usize],
            next_seq: 0,
        }))
    }

    /// The cache of an existing dense table (hashes every key once).
    ///
    /// # Safety
    /// `raw` is a live dense map nobody mutates meanwhile.
    pub(super) unsafe fn of_table(raw: Raw) -> Result<SlotHashes, Error> {
        let mut cache = SlotHashes::for_empty(raw.slots());
        let (mut pos, end) = (raw.begin(), raw.end());
        while pos != end && raw.valid(pos) {
            cache.set(pos, KeyHash::of(raw.key(pos))?);
            cache.appended(pos);
            pos = raw.advance(pos);
        }
        Ok(cache)
    }

    #[inline]
    pub(super) fn get(&self, slot: u64) -> Option<KeyHash> {
        self.0.as_ref().map(|c| c.slots[slot as usize].hash)
    }

    #[inline]
    pub(super) fn prefetch(&self, slot: u64) {
        if let Some(c) = &self.0 {
            prefetch(c.slots.as_ptr().wrapping_add(slot as usize));
        }
    }

    #[inline]
    pub(super) fn set(&mut self, slot: u64, hash: KeyHash) {
        if let Some(c) = &mut self.0 {
            c.slots[slot as usize].hash = hash;
        }
    }

    /// The entry in `slot` was appended to the iteration list.
    #[inline]
    fn appended(&mut self, slot: u64) {
        if let Some(c) = &mut self.0 {
            c.slots[slot as usize].seq = c.next_seq;
            c.next_seq += 1;
        }
    }

    /// The entry in `from` moved to `to` (keeping its place in the iteration list).
    #[inline]
    fn relocated(&mut self, from: u64, to: u64) {
        if let Some(c) = &mut self.0 {
            c.slots[to as usize] = c.slots[from as usize];
        }
    }

    /// The occupied slots of `raw` (whose cache this is) in iteration order, with their key
    /// hashes, from the sequence numbers: one sequential pass over the table.
    ///
    /// # Safety
    /// `raw` is a live dense map with storage, described by this cache.
    pub(super) unsafe fn ordered(&self, raw: Raw) -> Option<Vec<(u64, KeyHash)>> {
        let c = self.0.as_ref()?;
        const VACANT: u64 = INVALID_INDEX;
        let mut by_seq = vec![(VACANT, KeyHash::default()); c.next_seq as usize];
        for i in 0..raw.slots() {
            let meta = *raw.meta(i);
            if meta != EMPTY_SLOT && meta != PROTECTED_SLOT {
                let cached = c.slots[i as usize];
                by_seq[cached.seq as usize] = (i, cached.hash);
            }
        }
        by_seq.retain(|&(slot, _)| slot != VACANT);
        Some(by_seq)
    }

    /// Can the key in `slot` equal `key`, whose hash is `hash`? Without a cache, or for keys
    /// whose equality may come from a type's own hook, only a comparison can tell; for the
    /// built-in kinds equal keys always have equal hashes and fingerprints.
    #[inline]
    fn may_be_equal(&self, slot: u64, hash: KeyHash, key: &Any) -> bool {
        match self.get(slot) {
            Some(stored) => stored == hash || !hash_decides_equality(key.type_index()),
            None => true,
        }
    }
}

/// Do different hashes prove two keys different (no user hook can make them equal)?
#[inline]
pub(super) fn hash_decides_equality(type_index: i32) -> bool {
    !crate::value::object::is_object_index(type_index)
        || type_index == tindex::STR
        || type_index == tindex::BYTES
}

/// Replaces the value at `pos`, returning the old one.
pub(super) unsafe fn replace_value(raw: Raw, pos: u64, value: Any) -> Any {
    std::mem::replace(&mut (*raw.kv(pos)).value, value)
}

/// Apache's `SmallMapBaseObj::InsertMaybeReHash`.
///
/// # Safety
/// `raw` is a small map the caller may mutate.
pub(super) unsafe fn small_insert(
    raw: Raw,
    key: Any,
    value: Any,
) -> Result<Option<ObjectRef>, Error> {
    if let Some(pos) = raw.find_owned(key.as_raw())? {
        drop(replace_value(raw, pos, value));
        return Ok(None);
    }
    let slots = raw.small_slots();
    if raw.size() < slots {
        ptr::write(raw.small_kv(raw.size()), KvPair { key, value });
        (*raw.0).size += 1;
        return Ok(None);
    }
    let next_size = (slots * 2).clamp(SMALL_INIT_SLOTS, SMALL_MAX_SLOTS);
    if next_size <= slots {
        return Err(corrupted("small map beyond its maximum size"));
    }
    let grown = small_from_entries(next_size, raw.cloned_entries(), raw.type_index());
    match small_insert(Raw::of(&grown), key, value)? {
        Some(regrown) => Ok(Some(regrown)),
        None => Ok(Some(grown)),
    }
}

/// Apache's `DenseMapBaseObj::InsertMaybeReHash`. `hashes` is the table's hash cache (or
/// none); when the table grows it becomes the cache of the new table.
///
/// # Safety
/// `raw` is a dense map the caller may mutate.
pub(super) unsafe fn dense_insert(
    raw: Raw,
    key: Any,
    value: Any,
    hash: Option<KeyHash>,
    hashes: &mut SlotHashes,
) -> Result<Option<ObjectRef>, Error> {
    let hash = match hash {
        Some(hash) => hash,
        None => KeyHash::of(key.as_raw())?,
    };
    match dense_insert_new(raw, (key, value, hash), hashes)? {
        Ok(grown) => Ok(grown),
        Err(((_, value, _), slot)) => {
            // An update moves the key to the end of the iteration order, keeping the stored key.
            raw.iter_unlink(slot);
            let old = replace_value(raw, slot, value);
            raw.iter_push_back(slot);
            hashes.appended(slot);
            drop(old);
            Ok(None)
        }
    }
}

/// [`dense_insert`] of a key that is not present yet: the new table when the map had to grow;
/// the entry back, with nothing changed, and the slot of its key when that is present.
///
/// # Safety
/// `raw` is a dense map the caller may mutate.
pub(super) unsafe fn dense_insert_new(
    raw: Raw,
    (key, value, hash): Hashed,
    hashes: &mut SlotHashes,
) -> Result<Result<Option<ObjectRef>, (Hashed, u64)>, Error> {
    let mut grown: Option<ObjectRef> = None;
    loop {
        let table = grown.as_ref().map_or(raw, Raw::of);
        match table.try_insert(NewEntry::Key(&key), hash, hashes)? {
            Ok(Placed::New(slot)) => {
                let old = replace_value(table, slot, value);
                table.iter_push_back(slot);
                hashes.appended(slot);
                drop(old);
                return Ok(Ok(grown));
            }
            // Only the first table can hold the key: a table grows only for a new key.
            Ok(Placed::Existing(slot)) => return Ok(Err(((key, value, hash), slot))),
            Err(_) => grown = Some(grow(table, hashes)?),
        }
    }
}

/// The occupied slots of a dense table in iteration order, with their keys' hashes: from
/// `hashes` when it is a cache, otherwise computed (hash hooks may fail: nothing has moved yet).
///
/// # Safety
/// `raw` is a live dense map nobody mutates meanwhile; `hashes` is its cache or none.
unsafe fn ordered_slots(raw: Raw, hashes: &SlotHashes) -> Result<Vec<(u64, KeyHash)>, Error> {
    match hashes.ordered(raw) {
        Some(ordered) => Ok(ordered),
        None => raw
            .iteration_order()
            .into_iter()
            .map(|pos| Ok((pos, KeyHash::of(raw.key(pos))?)))
            .collect(),
    }
}

/// Moves every entry of a dense table out, in iteration order (keys, values and hashes); on
/// return the table is empty, without storage and without a cache.
///
/// # Safety
/// `raw` is a dense map the caller may mutate; `hashes` is its cache or none.
pub(super) unsafe fn take_entries(raw: Raw, hashes: &mut SlotHashes) -> Result<Vec<Hashed>, Error> {
    let ordered = ordered_slots(raw, hashes)?;
    let entries = ordered
        .into_iter()
        .map(|(pos, hash)| {
            let kv = ptr::read(ptr::addr_of!((*raw.item(pos)).kv));
            *raw.meta(pos) = EMPTY_SLOT;
            (kv.key, kv.value, hash)
        })
        .collect();
    drop(raw.clear());
    raw.release_memory();
    *hashes = SlotHashes::none();
    Ok(entries)
}

/// Apache's rehash of a full dense table: a table of twice the slots receiving every entry in
/// iteration order (see [`rehash_into`]).
///
/// # Safety
/// `raw` is a dense map the caller may mutate.
pub(super) unsafe fn grow(raw: Raw, hashes: &mut SlotHashes) -> Result<ObjectRef, Error> {
    let slots = if raw.slots() == 0 {
        calc_table_size(1).1
    } else {
        raw.slots()
            .checked_mul(2)
            .ok_or_else(|| corrupted("table too large"))?
    };
    rehash_into(raw, hashes, slots)
}

/// A new table of `n_slots` slots (a power of two) receiving every entry of `raw` in iteration
/// order, as Apache's `InsertMaybeReHash` of each entry into that table would place them (and
/// growing further where it would). The entries are moved, not copied: keys are known to be
/// distinct, so none is compared, and no reference count changes. Hashes come from `hashes`
/// when it is a cache, and are otherwise computed before anything moves, so an error from a
/// hash hook leaves the map intact. On return `raw` is empty and without storage, and `hashes`
/// describes the new table.
///
/// # Safety
/// `raw` is a dense map the caller may mutate.
pub(super) unsafe fn rehash_into(
    raw: Raw,
    hashes: &mut SlotHashes,
    n_slots: u64,
) -> Result<ObjectRef, Error> {
    // The fallible step (hash hooks) comes before anything moves.
    let ordered = ordered_slots(raw, hashes)?;
    let mut grown = dense_empty(64 - n_slots.trailing_zeros(), n_slots, raw.type_index())?;
    let mut grown_hashes = SlotHashes::for_table_of(n_slots);
    // The slots read and probed next are known: fetch them ahead of time (a large table is far
    // bigger than the caches, so each access would otherwise wait on memory).
    for &(_, hash) in ordered.iter().take(AHEAD) {
        prefetch_head(Raw::of(&grown), hash.hash);
    }
    for (k, &(pos, hash)) in ordered.iter().enumerate() {
        if let Some(&(later_pos, later)) = ordered.get(k + AHEAD) {
            prefetch_head(Raw::of(&grown), later.hash);
            prefetch(raw.item(later_pos));
        }
        let mut entry = NewEntry::Moved(ptr::read(ptr::addr_of!((*raw.item(pos)).kv)));
        *raw.meta(pos) = EMPTY_SLOT;
        loop {
            let table = Raw::of(&grown);
            match table.try_insert(entry, hash, &mut grown_hashes)? {
                Ok(Placed::New(slot)) => {
                    table.iter_push_back(slot);
                    grown_hashes.appended(slot);
                    break;
                }
                Ok(Placed::Existing(_)) => return Err(corrupted("a moved key compared equal")),
                Err(back) => {
                    entry = back;
                    grown = grow(table, &mut grown_hashes)?;
                }
            }
        }
    }
    // Every entry has moved out: only the (now empty) storage is left to release.
    drop(raw.clear());
    raw.release_memory();
    *hashes = grown_hashes;
    Ok(grown)
}
/// How many entries ahead building and rehashing prefetch.
pub(super) const AHEAD: usize = 8;

/// Asks the CPU to start fetching the memory at `ptr` (a hint: no effect on results).
#[inline]
pub(super) fn prefetch<T>(ptr: *const T) {
    // SAFETY: prefetching never faults, whatever the address.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

/// Prefetches what inserting a key of hash `hash` reads first: its head slot's metadata, item
/// and cached hash.
///
/// # Safety
/// `raw` is a live dense map with storage.
#[inline]
pub(super) unsafe fn prefetch_probe(raw: Raw, hash: u64, hashes: &SlotHashes) {
    let index = fib_hash(hash, (*raw.dense()).fib_shift);
    if index < raw.slots() {
        prefetch(raw.meta(index));
        prefetch(raw.item(index));
        hashes.prefetch(index);
    }
}

/// Prefetches the metadata byte of the slot `hash` maps to.
///
/// # Safety
/// `raw` is a live dense map with storage.
#[inline]
unsafe fn prefetch_head(raw: Raw, hash: u64) {
    let index = fib_hash(hash, (*raw.dense()).fib_shift);
    if index < raw.slots() {
        prefetch(raw.meta(index));
    }
}

/// Apache's `MapBaseObj::InsertMaybeReHash`: inserts or updates `key` in place when the map has
/// room, otherwise returns a new, larger map (of the same type index) holding every entry.
/// `hashes` is the hash cache of a dense `raw` (or none); it follows the map when it grows.
///
/// # Safety
/// `raw` is a map the caller may mutate.
pub(super) unsafe fn insert_maybe_rehash(
    raw: Raw,
    key: Any,
    value: Any,
    hash: Option<KeyHash>,
    hashes: &mut SlotHashes,
) -> Result<Option<ObjectRef>, Error> {
    if raw.is_small() {
        let slots = raw.small_slots();
        if slots < SMALL_MAX_SLOTS || raw.size() < slots {
            return small_insert(raw, key, value);
        }
        // A full small map becomes dense, even when `key` is already present.
        let dense = create_from_range(raw.cloned_entries(), raw.type_index())?;
        if Raw::of(&dense).slots() >= CACHE_MIN_SLOTS {
            *hashes = SlotHashes::of_table(Raw::of(&dense))?;
        }
        match dense_insert(Raw::of(&dense), key, value, hash, hashes)? {
            Some(regrown) => Ok(Some(regrown)),
            None => Ok(Some(dense)),
        }
    } else {
        dense_insert(raw, key, value, hash, hashes)
    }
}

/// Apache's `erase(find(key))`; returns the removed entry.
///
/// # Safety
/// `raw` is a map the caller may mutate.
pub(super) unsafe fn erase_key(raw: Raw, key: &TVMFFIAny) -> Result<Option<KvPair>, Error> {
    let Some(pos) = raw.find(key)? else {
        return Ok(None);
    };
    if raw.is_small() {
        let size = raw.size();
        let removed = ptr::read(raw.small_kv(pos));
        if pos + 1 < size {
            ptr::copy(
                raw.small_kv(pos + 1),
                raw.small_kv(pos),
                (size - pos - 1) as usize,
            );
        }
        (*raw.0).size -= 1;
        Ok(Some(removed))
    } else {
        raw.dense_erase(pos).map(Some)
    }
}

/// Apache's `InplaceSwitchTo`: `raw` (a Dict, possibly foreign) drops its entries and storage
/// and takes over the storage of `other`, which is left empty.
///
/// # Safety
/// `raw` is a map the caller may mutate; `other` is a map nobody else uses.
pub(super) unsafe fn inplace_switch_to(raw: Raw, other: ObjectRef) -> Result<(), Error> {
    let src = Raw::of(&other);
    let removed;
    if raw.is_small() {
        // Reset: destroy the entries, release separately allocated storage.
        removed = raw.clear();
        if let Some(deleter) = (*raw.0).data_deleter {
            deleter((*raw.0).data);
            (*raw.0).slots = 0;
            (*raw.0).data = ptr::null_mut();
            (*raw.0).data_deleter = None;
        }
        if src.is_small() {
            (*raw.0).size = (*src.0).size;
            (*raw.0).slots = (*src.0).slots;
            (*raw.0).data = (*src.0).data;
            let keep_other_alive = match (*src.0).data_deleter.take() {
                Some(deleter) => {
                    (*raw.0).data_deleter = Some(deleter);
                    false
                }
                None => {
                    // The entries live inside `other`: it stays alive until `raw` lets go.
                    (*raw.0).data_deleter = Some(release_inline_owner);
                    true
                }
            };
            (*src.0).data = ptr::null_mut();
            (*src.0).size = 0;
            (*src.0).slots = 0;
            if keep_other_alive {
                let _ = other.into_raw();
            }
        } else {
            // Every small map object has room for the dense fields (at least 2 inline pairs).
            take_dense_storage(raw, src);
        }
    } else {
        if src.is_small() {
            return Err(corrupted("a dense map cannot switch to the small form"));
        }
        removed = raw.clear();
        raw.release_memory();
        take_dense_storage(raw, src);
    }
    drop(removed);
    Ok(())
}

/// Moves the dense storage of `src` into `dst`, leaving `src` empty.
unsafe fn take_dense_storage(dst: Raw, src: Raw) {
    let (d, s) = (dst.dense(), src.dense());
    (*d).base.size = (*s).base.size;
    (*d).base.slots = (*s).base.slots;
    (*d).base.data = (*s).base.data;
    (*d).base.data_deleter = (*s).base.data_deleter;
    (*d).fib_shift = (*s).fib_shift;
    (*d).iter_list_head = (*s).iter_list_head;
    (*d).iter_list_tail = (*s).iter_list_tail;
    (*s).base.data = ptr::null_mut();
    (*s).base.data_deleter = None;
    (*s).base.size = 0;
    (*s).base.slots = 0;
}

/// Apache's `CopyFrom`: a new map of `type_index` with the same form, slots and entries.
///
/// # Safety
/// `raw` is a live map nobody mutates meanwhile.
pub(super) unsafe fn copy_from(raw: Raw, type_index: i32) -> Result<ObjectRef, Error> {
    if raw.is_small() {
        return Ok(small_from_entries(
            raw.size(),
            raw.cloned_entries(),
            type_index,
        ));
    }
    let copy = dense_empty((*raw.dense()).fib_shift, raw.slots(), type_index)?;
    let dst = Raw::of(&copy);
    if !(*raw.0).data.is_null() {
        let blocks = raw.slots().div_ceil(BLOCK_CAP);
        for i in 0..blocks * BLOCK_CAP {
            let meta = *raw.meta(i);
            if meta == EMPTY_SLOT || meta == PROTECTED_SLOT {
                continue;
            }
            *dst.meta(i) = meta;
            let item = raw.item(i);
            ptr::write(
                dst.item(i),
                DenseItem {
                    kv: KvPair {
                        key: (*item).kv.key.clone(),
                        value: (*item).kv.value.clone(),
                    },
                    prev: (*item).prev,
                    next: (*item).next,
                },
            );
        }
    }
    (*dst.0).size = raw.size();
    (*dst.dense()).iter_list_head = (*raw.dense()).iter_list_head;
    (*dst.dense()).iter_list_tail = (*raw.dense()).iter_list_tail;
    Ok(copy)
}
