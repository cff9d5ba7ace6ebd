//! How many bytes can safely be read at a data symbol, so that a lying size field inside the
//! symbol cannot make the runtime read past it.
//!
//! On 64-bit Linux with glibc the answer comes from the dynamic linker: the symbol's own size
//! (`st_size` of its ELF symbol, through `dladdr1`) when the address is exactly a sized symbol,
//! bounded by the end of the loaded segment that holds the address (`dl_iterate_phdr`). Elsewhere,
//! and for memory outside every loaded object (a heap blob registered as a system-library
//! symbol), the extent is unknown and callers fall back to trusting the data, as Apache's runtime
//! always does.

use std::ffi::c_void;

/// The number of readable bytes starting at `addr`, if the dynamic linker knows.
pub fn readable_extent(addr: *const c_void) -> Option<usize> {
    imp::readable_extent(addr)
}

#[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
mod imp {
    use libc::{c_int, c_void, dl_phdr_info, Dl_info, Elf64_Sym, PT_LOAD};

    /// glibc's `dladdr1` flag for the symbol's ELF record (not in the libc crate).
    const RTLD_DL_SYMENT: c_int = 1;

    struct Search {
        addr: u64,
        found: Option<u64>,
    }

    unsafe extern "C" fn visit(info: *mut dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
        // SAFETY: glibc passes a valid info record, and `data` is the `Search` handed to
        // `dl_iterate_phdr` below, alive for the whole iteration.
        let (info, search) = (&*info, &mut *data.cast::<Search>());
        if info.dlpi_phdr.is_null() {
            return 0;
        }
        for i in 0..usize::from(info.dlpi_phnum) {
            // SAFETY: `dlpi_phdr` points at `dlpi_phnum` program headers.
            let phdr = &*info.dlpi_phdr.add(i);
            if phdr.p_type != PT_LOAD {
                continue;
            }
            let start = info.dlpi_addr.wrapping_add(phdr.p_vaddr);
            let end = start.wrapping_add(phdr.p_memsz);
            if start <= search.addr && search.addr < end {
                search.found = Some(end - search.addr);
                return 1;
            }
        }
        0
    }

    /// Bytes from `addr` to the end of the loaded segment holding it.
    fn segment_extent(addr: *const c_void) -> Option<u64> {
        let mut search = Search {
            addr: addr as u64,
            found: None,
        };
        // SAFETY: the callback only reads the records glibc gives it and writes `search`.
        unsafe { libc::dl_iterate_phdr(Some(visit), std::ptr::addr_of_mut!(search).cast()) };
        search.found
    }

    /// `st_size` of the dynamic symbol that starts exactly at `addr`, if it has one.
    fn symbol_size(addr: *const c_void) -> Option<u64> {
        let mut info = Dl_info {
            dli_fname: std::ptr::null(),
            dli_fbase: std::ptr::null_mut(),
            dli_sname: std::ptr::null(),
            dli_saddr: std::ptr::null_mut(),
        };
        let mut sym: *mut c_void = std::ptr::null_mut();
        // SAFETY: plain out-parameters; dladdr1 only inspects the loader's tables.
        let ok = unsafe { libc::dladdr1(addr, &mut info, &mut sym, RTLD_DL_SYMENT) };
        if ok == 0 || sym.is_null() || !std::ptr::eq(info.dli_saddr.cast_const(), addr) {
            return None;
        }
        // SAFETY: with RTLD_DL_SYMENT, `sym` points at the symbol's ELF record.
        let size = unsafe { (*sym.cast::<Elf64_Sym>()).st_size };
        (size > 0).then_some(size)
    }

    pub(super) fn readable_extent(addr: *const c_void) -> Option<usize> {
        let segment = segment_extent(addr);
        let extent = match (symbol_size(addr), segment) {
            (Some(sym), Some(seg)) => sym.min(seg),
            (Some(sym), None) => sym,
            (None, seg) => seg?,
        };
        Some(usize::try_from(extent).unwrap_or(usize::MAX))
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64")))]
mod imp {
    pub(super) fn readable_extent(_addr: *const std::ffi::c_void) -> Option<usize> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[used]
    static FFIHUB_TEST_EXTENT_SYMBOL: [u8; 37] = [7; 37];

    #[test]
    fn static_data_is_inside_a_segment() {
        let addr = FFIHUB_TEST_EXTENT_SYMBOL.as_ptr().cast();
        let extent = readable_extent(addr);
        if cfg!(all(target_os = "linux", target_env = "gnu")) {
            let extent = extent.expect("static data lies in a loaded segment");
            assert!(extent >= 37, "extent {extent}");
        }
    }

    #[test]
    fn heap_memory_is_unknown() {
        let heap = vec![0u8; 64].into_boxed_slice();
        // Heap memory is in no loaded segment (it may only be by coincidence of brk layout,
        // which glibc does not report as PT_LOAD).
        assert_eq!(readable_extent(heap.as_ptr().cast()), None);
    }
}
