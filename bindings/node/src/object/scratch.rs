//! The field scratch: memory `lib/object.js` and the addon exchange values through without a
//! Node-API call (a field reader's receiver and the number it read, the cells of a call's object
//! arguments).

use super::*;
use crate::env::EnvData;
use crate::napi::{self, napi_value, Result};
use ffihub_abi::abi::TVMFFIObjectHandle;

/// Elements of the field scratch: [0] a number read, [1] a field reader's receiver cell, [2]
/// the argument cells' code, [3..7] the argument cells (see [`argument_cells`]).
pub const SCRATCH_LEN: usize = 3 + ARG_CELLS;

/// Arguments whose cells a call can take from the scratch.
pub const ARG_CELLS: usize = 4;

/// The cells of the arguments of the call starting now, which `lib/object.js` put in the field
/// scratch just before calling (`withCells`): element 2 holds `16 * argc + mask` (bit i: element
/// 3 + i holds the cell of argument i, or 0), and is cleared here, by every call, so that it
/// only ever describes the call that immediately follows its writing. Returns the mask, or 0
/// when nothing was put there for a call with `argc` arguments.
///
/// Only `lib/object.js` holds the scratch, and it writes the code right before calling a
/// native TVM-FFI function with the very values whose cells it wrote: a cell found here belongs
/// to the live wrapper passed as that argument.
#[inline]
pub fn argument_cells(scratch: *mut f64, argc: usize) -> u32 {
    if scratch.is_null() {
        return 0;
    }
    // SAFETY: the scratch has SCRATCH_LEN elements and lives as long as the environment.
    let code = unsafe { scratch.add(2).read() };
    if code == 0.0 {
        return 0;
    }
    // SAFETY: as above.
    unsafe { scratch.add(2).write(0.0) };
    let code = code as u32;
    if (code >> 4) as usize == argc {
        code & ((1 << ARG_CELLS) - 1)
    } else {
        0
    }
}

/// The handle of argument `i` through its cell in the scratch ([`argument_cells`]), for a
/// call that borrows it (None as for [`borrowed_handle`]).
///
/// # Safety
/// `mask` comes from [`argument_cells`] for this call, and `i < ARG_CELLS`.
#[inline]
pub unsafe fn scratch_handle(scratch: *mut f64, mask: u32, i: usize) -> Option<TVMFFIObjectHandle> {
    if mask & (1 << i) == 0 {
        return None;
    }
    // SAFETY: the scratch has SCRATCH_LEN elements.
    let address = unsafe { scratch.add(3 + i).read() };
    let cell = address as usize as *const ObjectCell;
    if cell.is_null() || address != cell as usize as f64 {
        return None;
    }
    // SAFETY: the cell of the live wrapper passed as argument `i` (see argument_cells).
    unsafe { &*cell }.handle()
}

/// `setFieldScratch(float64Array)`: the memory field readers exchange values through (kept
/// for the life of the environment). Only the first call counts: `lib/object.js` makes it
/// when it loads, so no other code can hand readers addresses.
pub fn set_field_scratch(data: &EnvData, array: napi_value) -> Result<()> {
    let env = data.env;
    if !data.field_scratch.get().is_null() {
        return napi::type_error("the field scratch is already set");
    }
    let info = env.typedarray_info(array)?;
    if info.kind != napi_sys::TypedarrayType::float64_array || info.length < SCRATCH_LEN {
        return napi::type_error(format!(
            "the field scratch must be a Float64Array of {SCRATCH_LEN} elements"
        ));
    }
    // Held until the environment's teardown frees its references.
    env.reference(array, 1)?;
    data.field_scratch.set(info.data.cast());
    Ok(())
}
