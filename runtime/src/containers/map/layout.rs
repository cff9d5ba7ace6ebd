//! The map objects' memory: Apache's layout (headers, blocks, metadata bytes, constants), the
//! storage this runtime allocates for it, and who frees which part.

use crate::abi::TVMFFIObject;
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::{alloc_object, ObjectRef};
use std::ffi::c_void;
use std::ptr;

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
pub(super) unsafe extern "C" fn release_inline_owner(data: *mut c_void) {
    let owner = data
        .cast::<u8>()
        .sub(std::mem::size_of::<MapBaseObj>())
        .cast::<TVMFFIObject>();
    crate::value::object::dec_ref(owner);
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
pub(super) fn small_empty(n: u64, type_index: i32) -> ObjectRef {
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
pub(super) fn dense_empty(
    fib_shift: u32,
    n_slots: u64,
    type_index: i32,
) -> Result<ObjectRef, Error> {
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

pub(super) fn corrupted(what: &str) -> Error {
    Error::new("InternalError", format!("corrupted map object: {what}"))
}
