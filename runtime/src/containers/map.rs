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

use crate::abi::{TVMFFIAny, TVMFFIObject};
use crate::any::Any;
use crate::error::Error;
use crate::object::{alloc_object, ObjectRef};
use crate::tindex;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr;
use std::sync::atomic::Ordering;

/// Bit of `slots` marking the small form.
pub const SMALL_TAG: u64 = 1 << 63;
/// Slots of a new small map.
pub const SMALL_INIT_SLOTS: u64 = 2;
/// The largest small map; one more entry switches to the dense form.
pub const SMALL_MAX_SLOTS: u64 = 4;
/// Slots per dense block.
pub const BLOCK_CAP: u64 = 16;
/// Bytes of a dense block: 16 metadata bytes and 16 items.
pub const BLOCK_BYTES: usize = BLOCK_CAP as usize * (1 + std::mem::size_of::<DenseItem>());
/// A dense table is full when `size + 1 > slots * MAX_LOAD_FACTOR`.
pub const MAX_LOAD_FACTOR: f64 = 0.99;
/// Metadata of an empty slot.
pub const EMPTY_SLOT: u8 = 0xFF;
/// Metadata of a protected slot (empty but not writable, during a relocation).
pub const PROTECTED_SLOT: u8 = 0xFE;
/// Number of jump distances a metadata byte can name.
pub const NUM_JUMP_DISTS: usize = 126;
/// "No slot" in iteration-list links and iterator positions.
pub const INVALID_INDEX: u64 = u64::MAX;
/// Multiplier of Fibonacci hashing (2^64 / golden ratio).
pub const FIB_COEFF: u64 = 11_400_714_819_323_198_485;

/// The distances from a slot to the next element of its chain: 0 (end), 1..=15, triangle
/// numbers up to 2628, then larger triangle numbers.
#[rustfmt::skip]
pub const NEXT_PROBE_LOCATION: [u64; NUM_JUMP_DISTS] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    21, 28, 36, 45, 55, 66, 78, 91, 105, 120, 136, 153, 171, 190, 210, 231, 253, 276, 300, 325,
    351, 378, 406, 435, 465, 496, 528, 561, 595, 630, 666, 703, 741, 780, 820, 861, 903, 946, 990,
    1035, 1081, 1128, 1176, 1225, 1275, 1326, 1378, 1431, 1485, 1540, 1596, 1653, 1711, 1770, 1830,
    1891, 1953, 2016, 2080, 2145, 2211, 2278, 2346, 2415, 2485, 2556, 2628,
    8515, 19110, 42778, 96141, 216153, 486591, 1092981, 2458653, 5532801, 12442566, 27993903,
    62983476, 141717030, 318844378, 717352503, 1614057336, 3631522476, 8170957530, 18384510628,
    41364789378, 93070452520, 209408356380, 471168559170, 1060128894105, 2385289465695,
    5366898840628, 12075518705635, 27169915244790, 61132312065111, 137547689707000,
    309482283181501, 696335127828753, 1566753995631385, 3525196511162271, 7931691992677701,
    17846306936293605, 40154190677507445, 90346928918121501, 203280589587557251,
    457381325854679626, 1029107982097042876, 2315492959180353330, 5209859154120846435,
];

/// The fields shared by both forms (Apache's `MapBaseObj`).
#[repr(C)]
pub struct MapBaseObj {
    pub header: TVMFFIObject,
    pub data: *mut c_void,
    pub size: u64,
    pub slots: u64,
    pub data_deleter: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// The dense form (Apache's `DenseMapBaseObj`).
#[repr(C)]
pub struct DenseMapObj {
    pub base: MapBaseObj,
    pub fib_shift: u32,
    pub iter_list_head: u64,
    pub iter_list_tail: u64,
}

/// One entry (Apache's `KVType`, a `std::pair<Any, Any>`).
#[repr(C)]
pub struct KvPair {
    pub key: Any,
    pub value: Any,
}

/// One dense slot's item: the entry and its iteration-list links.
#[repr(C)]
pub struct DenseItem {
    pub kv: KvPair,
    pub prev: u64,
    pub next: u64,
}

const _: () = {
    assert!(std::mem::size_of::<MapBaseObj>() == 56);
    assert!(std::mem::size_of::<DenseMapObj>() == 80);
    assert!(std::mem::size_of::<KvPair>() == 32);
    assert!(std::mem::size_of::<DenseItem>() == 48);
    assert!(BLOCK_BYTES == 784);
};

/// Apache's `FibHash`: the slot of a hash value in a table of `2^(64 - fib_shift)` slots.
#[inline]
pub fn fib_hash(hash: u64, fib_shift: u32) -> u64 {
    FIB_COEFF
        .wrapping_mul(hash)
        .checked_shr(fib_shift)
        .unwrap_or(0)
}

/// Apache's `CalcTableSize`: `(fib_shift, slots)` of a dense table for `cap` entries (the
/// smallest power of two above `cap`, doubled when that leaves less than `cap` free slots).
pub fn calc_table_size(cap: u64) -> (u32, u64) {
    let mut shift: u32 = 64;
    let mut slots: u64 = 1;
    let mut c = cap;
    while c != 0 {
        shift -= 1;
        slots = slots.wrapping_shl(1);
        c >>= 1;
    }
    if slots < cap.wrapping_mul(2) {
        (shift.saturating_sub(1), slots.wrapping_shl(1))
    } else {
        (shift, slots)
    }
}

/// Is `type_index` one of the two map types?
#[inline]
pub fn is_map_index(type_index: i32) -> bool {
    type_index == tindex::MAP || type_index == tindex::DICT
}

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

/// `data_deleter` of the dense blocks this runtime allocates.
unsafe extern "C" fn free_blocks(data: *mut c_void) {
    free(data);
}

/// `data_deleter` of a small map whose entries live inline in another small map object
/// (Apache's `InplaceSmallMapDeleterFromData`): releases that object, found right before the data.
unsafe extern "C" fn release_inline_owner(data: *mut c_void) {
    let owner = data
        .cast::<u8>()
        .sub(std::mem::size_of::<MapBaseObj>())
        .cast::<TVMFFIObject>();
    crate::object::dec_ref(owner);
}

/// The payload of map objects made here: the `MapBaseObj` fields after the header. Small maps
/// have their entries (and room for the dense fields) in the object's tail, dense maps 24 tail
/// bytes for the dense fields.
#[repr(C)]
struct MapCell {
    data: *mut c_void,
    size: u64,
    slots: u64,
    data_deleter: Option<unsafe extern "C" fn(*mut c_void)>,
}

impl Drop for MapCell {
    fn drop(&mut self) {
        // SAFETY: the fields describe this object's current storage, whichever code (ours or
        // header code) last changed it; `data` carries the provenance of its own allocation.
        unsafe { destroy_storage(self.data, self.size, self.slots, self.data_deleter) }
    }
}

/// Destroys the entries of a storage and frees it through its `data_deleter` (Apache's
/// destructors of the small and dense forms).
///
/// # Safety
/// The arguments are the current fields of a map object that is being destroyed.
unsafe fn destroy_storage(
    data: *mut c_void,
    size: u64,
    slots: u64,
    data_deleter: Option<unsafe extern "C" fn(*mut c_void)>,
) {
    if data.is_null() {
        return;
    }
    if slots & SMALL_TAG != 0 {
        let kvs = data.cast::<KvPair>();
        for i in 0..size as usize {
            ptr::drop_in_place(kvs.add(i));
        }
    } else {
        let blocks = slots.div_ceil(BLOCK_CAP);
        for b in 0..blocks as usize {
            let block = data.cast::<u8>().add(b * BLOCK_BYTES);
            for j in 0..BLOCK_CAP as usize {
                let meta = *block.add(j);
                if meta != EMPTY_SLOT && meta != PROTECTED_SLOT {
                    let item = block
                        .add(BLOCK_CAP as usize + j * std::mem::size_of::<DenseItem>())
                        .cast::<DenseItem>();
                    ptr::drop_in_place(ptr::addr_of_mut!((*item).kv));
                }
            }
        }
    }
    if let Some(deleter) = data_deleter {
        deleter(data);
    }
}

/// A new empty small map with room for `n` (at least 2) entries.
fn small_empty(n: u64, type_index: i32) -> ObjectRef {
    let n = n.max(SMALL_INIT_SLOTS);
    let obj = alloc_object(
        type_index,
        MapCell {
            data: ptr::null_mut(),
            size: 0,
            slots: n | SMALL_TAG,
            data_deleter: None,
        },
        n as usize * std::mem::size_of::<KvPair>(),
    );
    // SAFETY: the object was allocated with `n` pairs right after its 56 bytes; nobody else
    // sees it yet.
    unsafe {
        let raw = obj.as_ptr().cast::<MapBaseObj>();
        (*raw).data = raw
            .cast::<u8>()
            .add(std::mem::size_of::<MapBaseObj>())
            .cast();
    }
    obj
}

/// A new empty dense map with `n_slots` slots (a power of two) and the given shift.
fn dense_empty(fib_shift: u32, n_slots: u64, type_index: i32) -> Result<ObjectRef, Error> {
    let too_large = || {
        Error::new(
            "ValueError",
            format!("a map of {n_slots} slots is too large"),
        )
    };
    if n_slots & SMALL_TAG != 0 {
        return Err(too_large());
    }
    let n_blocks = usize::try_from(n_slots.div_ceil(BLOCK_CAP)).map_err(|_| too_large())?;
    let bytes = n_blocks.checked_mul(BLOCK_BYTES).ok_or_else(too_large)?;
    let mut data: *mut c_void = ptr::null_mut();
    if bytes > 0 {
        // SAFETY: a plain allocation; every metadata byte is initialized below and items are
        // only read where the metadata says they were written.
        unsafe {
            data = malloc(bytes);
            if data.is_null() {
                std::alloc::handle_alloc_error(std::alloc::Layout::from_size_align_unchecked(
                    bytes, 16,
                ));
            }
            for b in 0..n_blocks {
                ptr::write_bytes(
                    data.cast::<u8>().add(b * BLOCK_BYTES),
                    EMPTY_SLOT,
                    BLOCK_CAP as usize,
                );
            }
        }
    }
    let obj = alloc_object(
        type_index,
        MapCell {
            data,
            size: 0,
            slots: n_slots,
            data_deleter: if data.is_null() {
                None
            } else {
                Some(free_blocks)
            },
        },
        std::mem::size_of::<DenseMapObj>() - std::mem::size_of::<MapBaseObj>(),
    );
    // SAFETY: the object has the 24 dense bytes in its tail; nobody else sees it yet.
    unsafe {
        let dense = obj.as_ptr().cast::<DenseMapObj>();
        (*dense).fib_shift = fib_shift;
        (*dense).iter_list_head = INVALID_INDEX;
        (*dense).iter_list_tail = INVALID_INDEX;
    }
    Ok(obj)
}

fn corrupted(what: &str) -> Error {
    Error::new("InternalError", format!("corrupted map object: {what}"))
}

/// A raw map object (ours or foreign). Every method requires a live map object whose fields are
/// consistent, and that nobody else mutates it meanwhile.
#[derive(Clone, Copy)]
struct Raw(*mut MapBaseObj);

impl Raw {
    fn of(obj: &ObjectRef) -> Raw {
        Raw(obj.as_ptr().cast())
    }

    unsafe fn type_index(self) -> i32 {
        (*self.0).header.type_index
    }

    unsafe fn is_small(self) -> bool {
        (*self.0).slots & SMALL_TAG != 0
    }

    unsafe fn size(self) -> u64 {
        (*self.0).size
    }

    unsafe fn small_slots(self) -> u64 {
        (*self.0).slots & !SMALL_TAG
    }

    /// Slots of the dense form.
    unsafe fn slots(self) -> u64 {
        (*self.0).slots
    }

    unsafe fn dense(self) -> *mut DenseMapObj {
        self.0.cast()
    }

    unsafe fn small_kv(self, i: u64) -> *mut KvPair {
        (*self.0).data.cast::<KvPair>().add(i as usize)
    }

    unsafe fn block(self, i: u64) -> *mut u8 {
        (*self.0)
            .data
            .cast::<u8>()
            .add((i / BLOCK_CAP) as usize * BLOCK_BYTES)
    }

    unsafe fn meta(self, i: u64) -> *mut u8 {
        self.block(i).add((i % BLOCK_CAP) as usize)
    }

    unsafe fn item(self, i: u64) -> *mut DenseItem {
        self.block(i)
            .add(BLOCK_CAP as usize + (i % BLOCK_CAP) as usize * std::mem::size_of::<DenseItem>())
            .cast()
    }

    unsafe fn key<'b>(self, i: u64) -> &'b TVMFFIAny {
        (*self.item(i)).kv.key.as_raw()
    }

    /// Is dense slot `i` an existing, occupied slot?
    unsafe fn occupied(self, i: u64) -> bool {
        if (*self.0).data.is_null() || i >= self.slots() {
            return false;
        }
        let meta = *self.meta(i);
        meta != EMPTY_SLOT && meta != PROTECTED_SLOT
    }

    // ----- lookup -----

    unsafe fn small_find(self, key: &TVMFFIAny) -> Result<Option<u64>, Error> {
        let mut i = 0;
        while i < self.size() {
            if crate::any_hash::any_equal((*self.small_kv(i)).key.as_raw(), key)? {
                return Ok(Some(i));
            }
            i += 1;
        }
        Ok(None)
    }

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

    unsafe fn next_in_chain(self, i: u64) -> Option<u64> {
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

    unsafe fn dense_search(self, key: &TVMFFIAny) -> Result<Option<u64>, Error> {
        if self.size() == 0 || self.slots() == 0 || (*self.0).data.is_null() {
            return Ok(None);
        }
        let mut node = self.index_from_hash(crate::any_hash::any_hash(key)?)?;
        if !self.is_head(node) {
            return Ok(None);
        }
        for _ in 0..=self.slots() {
            if crate::any_hash::any_equal(key, self.key(node))? {
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
            None => crate::any_hash::any_hash(self.key(i))?,
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
    unsafe fn find(self, key: &TVMFFIAny) -> Result<Option<u64>, Error> {
        // A raw string (or other view-only form) becomes its owned form once, not at every
        // hash and comparison.
        let key = crate::any_hash::normalize(key);
        let key = key.get();
        if self.is_small() {
            self.small_find(key)
        } else {
            self.dense_search(key)
        }
    }

    unsafe fn kv(self, pos: u64) -> *mut KvPair {
        if self.is_small() {
            self.small_kv(pos)
        } else {
            ptr::addr_of_mut!((*self.item(pos)).kv)
        }
    }

    // ----- iteration (Apache's iterator positions) -----

    unsafe fn begin(self) -> u64 {
        if self.is_small() {
            0
        } else {
            (*self.dense()).iter_list_head
        }
    }

    unsafe fn end(self) -> u64 {
        if self.is_small() {
            self.size()
        } else {
            INVALID_INDEX
        }
    }

    /// Is `pos` a position holding an entry right now?
    unsafe fn valid(self, pos: u64) -> bool {
        if self.is_small() {
            pos < self.size()
        } else {
            self.occupied(pos)
        }
    }

    unsafe fn advance(self, pos: u64) -> u64 {
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

    unsafe fn is_full(self) -> bool {
        (self.size() + 1) as f64 > self.slots() as f64 * MAX_LOAD_FACTOR
    }

    unsafe fn set_jump(self, i: u64, jump: u8) {
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

    unsafe fn next_empty(self, i: u64) -> Option<(u8, u64)> {
        (1..NUM_JUMP_DISTS).find_map(|jump| {
            let candidate = self.wrap(i.wrapping_add(NEXT_PROBE_LOCATION[jump]));
            (*self.meta(candidate) == EMPTY_SLOT).then_some((jump as u8, candidate))
        })
    }

    unsafe fn iter_unlink(self, n: u64) {
        let dense = self.dense();
        let (prev, next) = ((*self.item(n)).prev, (*self.item(n)).next);
        if prev == INVALID_INDEX {
            (*dense).iter_list_head = next;
        } else {
            (*self.item(prev)).next = next;
        }
        if next == INVALID_INDEX {
            (*dense).iter_list_tail = prev;
        } else {
            (*self.item(next)).prev = prev;
        }
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
        let dense = self.dense();
        let (prev, next) = ((*self.item(src)).prev, (*self.item(src)).next);
        (*self.item(dst)).prev = prev;
        (*self.item(dst)).next = next;
        if prev == INVALID_INDEX {
            (*dense).iter_list_head = dst;
        } else {
            (*self.item(prev)).next = dst;
        }
        if next == INVALID_INDEX {
            (*dense).iter_list_tail = dst;
        } else {
            (*self.item(next)).prev = dst;
        }
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
                    && crate::any_hash::any_equal(key.as_raw(), self.key(node))?
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
    unsafe fn clear(self) -> Vec<KvPair> {
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
/// [`crate::any_hash::content_fingerprint`]).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct KeyHash {
    hash: u64,
    fingerprint: u64,
}

impl KeyHash {
    /// # Safety
    /// `key` is a valid owned value.
    unsafe fn of(key: &TVMFFIAny) -> Result<KeyHash, Error> {
        Ok(KeyHash {
            hash: crate::any_hash::any_hash(key)?,
            fingerprint: crate::any_hash::content_fingerprint(key),
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
struct SlotHashes(Option<SlotCache>);

/// The smallest table that gets a [`SlotHashes`] cache (and prefetching while building).
const CACHE_MIN_SLOTS: u64 = 64;

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
    fn none() -> SlotHashes {
        SlotHashes(None)
    }

    /// A cache for an empty table of `slots` slots, if the table is large enough to gain
    /// from one: a small table stays in the CPU caches, where probing and comparing are cheap
    /// and keeping the cache costs more than it saves.
    fn for_table_of(slots: u64) -> SlotHashes {
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
    unsafe fn of_table(raw: Raw) -> Result<SlotHashes, Error> {
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
    fn get(&self, slot: u64) -> Option<KeyHash> {
        self.0.as_ref().map(|c| c.slots[slot as usize].hash)
    }

    #[inline]
    fn prefetch(&self, slot: u64) {
        if let Some(c) = &self.0 {
            prefetch(c.slots.as_ptr().wrapping_add(slot as usize));
        }
    }

    #[inline]
    fn set(&mut self, slot: u64, hash: KeyHash) {
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
    unsafe fn ordered(&self, raw: Raw) -> Option<Vec<(u64, KeyHash)>> {
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
fn hash_decides_equality(type_index: i32) -> bool {
    !crate::object::is_object_index(type_index)
        || type_index == tindex::STR
        || type_index == tindex::BYTES
}

/// Replaces the value at `pos`, returning the old one.
unsafe fn replace_value(raw: Raw, pos: u64, value: Any) -> Any {
    std::mem::replace(&mut (*raw.kv(pos)).value, value)
}

/// Apache's `SmallMapBaseObj::CreateFromRange` (no duplicate check) into `n` slots.
fn small_from_entries(n: u64, entries: Vec<(Any, Any)>, type_index: i32) -> ObjectRef {
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
fn create_from_range(entries: Vec<(Any, Any)>, type_index: i32) -> Result<ObjectRef, Error> {
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
fn build_by_insertion(
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
type Hashed = (Any, Any, KeyHash);

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
    fn new(type_index: i32) -> Building {
        Building {
            type_index,
            obj: small_empty(SMALL_INIT_SLOTS, type_index),
            hashes: SlotHashes::none(),
        }
    }

    /// A map holding the dense table `table` (a new Dict object takes over its storage).
    fn of_table(type_index: i32, table: ObjectRef, hashes: SlotHashes) -> Result<Building, Error> {
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
    fn prefetch(&self, hash: u64) {
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
fn plan_table(entries: &[Hashed]) -> Option<Plan> {
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
struct Plan {
    meta: Vec<u8>,
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
    fn new(entries: &'e [Hashed], slots: u64) -> Option<Placement<'e>> {
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

    fn slots(&self) -> u64 {
        self.meta.len() as u64
    }

    fn is_full(&self) -> bool {
        (self.size + 1) as f64 > self.slots() as f64 * MAX_LOAD_FACTOR
    }

    fn hash_at(&self, slot: u64) -> KeyHash {
        self.entries[self.entry[slot as usize] as usize].2
    }

    fn next_in_chain(&self, i: u64) -> Option<u64> {
        let offset = *NEXT_PROBE_LOCATION.get((self.meta[i as usize] & 0x7F) as usize)?;
        (offset != 0).then(|| i.wrapping_add(offset) & (self.slots() - 1))
    }

    fn next_empty(&self, i: u64) -> Option<(u8, u64)> {
        (1..NUM_JUMP_DISTS).find_map(|jump| {
            let candidate = i.wrapping_add(NEXT_PROBE_LOCATION[jump]) & (self.slots() - 1);
            (self.meta[candidate as usize] == EMPTY_SLOT).then_some((jump as u8, candidate))
        })
    }

    fn place(&mut self, i: u64, meta: u8, idx: u32, tag: u16) {
        self.meta[i as usize] = meta;
        self.entry[i as usize] = idx;
        self.tag[i as usize] = tag;
    }

    /// Prefetches what inserting a key of `hash` reads first.
    fn prefetch(&self, hash: u64) {
        let head = fib_hash(hash, self.fib_shift) as usize;
        prefetch(self.meta.as_ptr().wrapping_add(head));
        prefetch(self.tag.as_ptr().wrapping_add(head));
    }

    fn set_jump(&mut self, i: u64, jump: u8) {
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

/// Apache's `SmallMapBaseObj::InsertMaybeReHash`.
///
/// # Safety
/// `raw` is a small map the caller may mutate.
unsafe fn small_insert(raw: Raw, key: Any, value: Any) -> Result<Option<ObjectRef>, Error> {
    if let Some(pos) = raw.small_find(key.as_raw())? {
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
unsafe fn dense_insert(
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
unsafe fn dense_insert_new(
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
unsafe fn take_entries(raw: Raw, hashes: &mut SlotHashes) -> Result<Vec<Hashed>, Error> {
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
unsafe fn grow(raw: Raw, hashes: &mut SlotHashes) -> Result<ObjectRef, Error> {
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
unsafe fn rehash_into(raw: Raw, hashes: &mut SlotHashes, n_slots: u64) -> Result<ObjectRef, Error> {
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
const AHEAD: usize = 8;

/// Asks the CPU to start fetching the memory at `ptr` (a hint: no effect on results).
#[inline]
fn prefetch<T>(ptr: *const T) {
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
unsafe fn prefetch_probe(raw: Raw, hash: u64, hashes: &SlotHashes) {
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
unsafe fn insert_maybe_rehash(
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
unsafe fn erase_key(raw: Raw, key: &TVMFFIAny) -> Result<Option<KvPair>, Error> {
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
unsafe fn inplace_switch_to(raw: Raw, other: ObjectRef) -> Result<(), Error> {
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
unsafe fn copy_from(raw: Raw, type_index: i32) -> Result<ObjectRef, Error> {
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
        // SAFETY: we hold a reference, so the header is live. Acquire pairs with the releasing
        // decrements of former holders, so their reads happen before our writes.
        let count = unsafe {
            (*self.0.as_ptr())
                .combined_ref_count
                .load(Ordering::Acquire)
        };
        count & 0xFFFF_FFFF == 1
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

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i64) -> Any {
        Any::int(v)
    }

    fn as_int(v: &Any) -> i64 {
        assert_eq!(v.type_index(), tindex::INT);
        // SAFETY: the tag says the payload is an integer.
        unsafe { v.as_raw().value.v_int64 }
    }

    #[test]
    fn table_sizes_match_apache() {
        assert_eq!(calc_table_size(4), (61, 8));
        assert_eq!(calc_table_size(5), (60, 16));
        assert_eq!(calc_table_size(8), (60, 16));
        assert_eq!(calc_table_size(9), (59, 32));
        assert_eq!(calc_table_size(100), (56, 256));
        assert_eq!(calc_table_size(1), (63, 2));
    }

    /// `n` distinct keys of a few kinds, spread over the hash space (a tiny deterministic
    /// generator).
    fn spread_keys(n: usize, seed: u64) -> Vec<Any> {
        let mut state = seed;
        (0..n)
            .map(|i| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                match i % 3 {
                    0 => int(((state >> 24) << 20 | i as u64) as i64),
                    1 => Any::string(format!("k{i}-{}", state % 1000)),
                    _ => Any::string(format!("a longer key {i} {}", state >> 40)),
                }
            })
            .collect()
    }

    /// The two maps have the same form, slots, metadata, keys and links.
    fn assert_same_layout(a: &Map, b: &Map) {
        let (ra, rb) = (Raw::of(a.as_object()), Raw::of(b.as_object()));
        // SAFETY: both maps are live and not mutated meanwhile; slots are read only where the
        // metadata says they hold entries.
        unsafe {
            assert_eq!((ra.is_small(), ra.size()), (rb.is_small(), rb.size()));
            if ra.is_small() {
                return;
            }
            let (da, db) = (ra.dense(), rb.dense());
            assert_eq!(ra.slots(), rb.slots(), "{} entries", ra.size());
            assert_eq!((*da).fib_shift, (*db).fib_shift);
            assert_eq!((*da).iter_list_head, (*db).iter_list_head);
            assert_eq!((*da).iter_list_tail, (*db).iter_list_tail);
            for i in 0..ra.slots() {
                assert_eq!(*ra.meta(i), *rb.meta(i), "slot {i}");
                if ra.occupied(i) {
                    let (ia, ib) = (ra.item(i), rb.item(i));
                    assert!(crate::any_hash::any_equal(ra.key(i), rb.key(i)).unwrap());
                    assert_eq!(((*ia).prev, (*ia).next), ((*ib).prev, (*ib).next));
                }
            }
        }
    }

    #[test]
    fn dry_run_finds_the_table_size_of_one_by_one_insertion() {
        // Counts around the load-factor limit of 1024 and 2048 slots, where whether the table
        // grows depends on where the last keys land.
        let counts = (1005..=1025)
            .chain(2020..=2049)
            .chain([5, 8, 9, 100, 127, 128, 129]);
        for (round, n) in counts.enumerate() {
            for seed in 0..3u64 {
                let keys = spread_keys(n, seed * 1000 + round as u64);
                let mut one_by_one = Map::new();
                let entries: Vec<Hashed> = keys
                    .iter()
                    .map(|k| {
                        one_by_one.set(k.clone(), int(0)).unwrap();
                        // SAFETY: an `Any` is a valid owned value.
                        (k.clone(), int(0), unsafe {
                            KeyHash::of(k.as_raw()).unwrap()
                        })
                    })
                    .collect();
                let built =
                    Map::from_insertions(keys.iter().map(|k| Ok((k.clone(), int(0))))).unwrap();
                assert_same_layout(&built, &one_by_one);
                if keys.len() as u64 > SMALL_MAX_SLOTS {
                    let plan = plan_table(&entries).expect("distinct keys have a plan");
                    let want = one_by_one.view().slot_count();
                    assert_eq!(plan.meta.len() as u64, want, "{} keys", keys.len());
                }
            }
        }
    }

    #[test]
    fn small_map_grows_then_turns_dense() {
        let mut m = Map::new();
        assert!(m.view().is_small());
        assert_eq!(m.view().slot_count(), 2);
        for i in 0..4 {
            m.set(int(i), int(i * 10)).unwrap();
        }
        assert!(m.view().is_small());
        assert_eq!(m.view().slot_count(), 4);
        m.set(int(4), int(40)).unwrap();
        assert!(!m.view().is_small());
        assert_eq!(m.view().slot_count(), 8);
        for i in 0..200 {
            m.set(int(i), int(i * 10)).unwrap();
        }
        assert_eq!(m.len(), 200);
        for i in 0..200 {
            assert_eq!(as_int(&m.get(&int(i)).unwrap().unwrap()), i * 10);
        }
        assert!(m.get(&int(1000)).unwrap().is_none());
    }

    #[test]
    fn iteration_keeps_insertion_order_and_dense_updates_move_to_the_end() {
        let mut d = Dict::new();
        for i in 0..10 {
            d.set(int(i), int(i)).unwrap();
        }
        d.set(int(3), int(33)).unwrap();
        let keys: Vec<i64> = d.iter().map(|(k, _)| as_int(&k)).collect();
        assert_eq!(keys, vec![0, 1, 2, 4, 5, 6, 7, 8, 9, 3]);
        let mut small = Dict::new();
        for i in 0..3 {
            small.set(int(i), int(i)).unwrap();
        }
        small.set(int(0), int(5)).unwrap();
        let keys: Vec<i64> = small.iter().map(|(k, _)| as_int(&k)).collect();
        assert_eq!(keys, vec![0, 1, 2], "small updates keep their position");
    }

    #[test]
    fn erase_and_clear() {
        let mut d = Dict::new();
        for i in 0..50 {
            d.set(int(i), int(i)).unwrap();
        }
        for i in (0..50).step_by(2) {
            d.erase(&int(i)).unwrap();
        }
        assert_eq!(d.len(), 25);
        for i in 0..50 {
            assert_eq!(d.contains(&int(i)).unwrap(), i % 2 == 1, "key {i}");
        }
        let keys: Vec<i64> = d.iter().map(|(k, _)| as_int(&k)).collect();
        assert_eq!(keys, (0..50).filter(|i| i % 2 == 1).collect::<Vec<_>>());
        d.clear();
        assert!(d.is_empty());
        assert!(!d.view().is_small(), "clear keeps the dense storage");
        d.set(int(7), int(8)).unwrap();
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn map_is_copy_on_write() {
        let mut a = Map::new();
        a.set(Any::string("x"), int(1)).unwrap();
        let b = a.clone();
        a.set(Any::string("y"), int(2)).unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(b.len(), 1);
        assert_ne!(a.as_object().as_ptr(), b.as_object().as_ptr());
    }

    #[test]
    fn dict_keeps_identity_when_growing() {
        let mut d = Dict::new();
        let other = d.clone();
        for i in 0..100 {
            d.set(int(i), int(i)).unwrap();
        }
        assert_eq!(other.len(), 100);
        assert_eq!(d.as_object().as_ptr(), other.as_object().as_ptr());
    }

    #[test]
    fn cursor_protocol() {
        let m = Map::from_pairs([(int(1), int(2)), (int(3), int(4))]).unwrap();
        let mut c = Cursor::new(m.into_object()).unwrap();
        assert_eq!(as_int(&c.key().unwrap()), 1);
        assert_eq!(as_int(&c.value().unwrap()), 2);
        assert!(c.advance());
        assert_eq!(as_int(&c.key().unwrap()), 3);
        assert!(!c.advance());
        assert!(!c.advance());
        assert!(c.key().is_err());
        let empty = Cursor::new(Map::new().into_object()).unwrap();
        assert!(empty.key().is_err());
    }
}
